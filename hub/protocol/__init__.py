"""LAP/0.1 wire types: envelopes, payloads, error codes and the published JSON Schema."""
