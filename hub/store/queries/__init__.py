"""Typed reads over the projections, and the few writes beside them, grouped by what they read."""
