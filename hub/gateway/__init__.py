"""The LAP/0.1 sockets: sessions with bounded outbound buffers, fan-out, resume, presence and streams."""
