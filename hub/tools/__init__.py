"""The tool layer of seed 000 §4: definitions, the registry of who offers what, and routing of calls."""
