"""Notifications: reach the person when an agent waits for them or fails (seed 002 §5.1, §11)."""
