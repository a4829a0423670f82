"""Agents the hub starts and supervises itself: configuration, the runtime contract, the supervisor."""
