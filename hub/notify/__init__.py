"""Notifications: reach the person when an agent waits for them or fails (docs/design.md#notifications)."""
