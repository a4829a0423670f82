"""Unit tests of hub/store."""
