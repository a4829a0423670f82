"""The tool layer (docs/design.md#tool-types): definitions, the registry of who offers what, and routing of calls."""
