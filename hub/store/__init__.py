"""Persistence: the SQLite database, its migrations, the event log, the projections and their rebuild."""
