"""Finding, loading and calling plugins (pluggy), and reporting the ones that fail."""
