"""Unit tests of hub/auth."""
