"""Unit tests of hub/protocol."""
