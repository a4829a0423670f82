"""Unit tests of hub/domain."""
