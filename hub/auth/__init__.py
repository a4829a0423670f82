"""Who is asking: passwords, device tokens, agent credentials, pairing codes and guess limits."""
