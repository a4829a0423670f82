"""Names starting with `_` are not plugins: the hub must never import this file."""

raise RuntimeError("_skipped.py was imported, but files starting with _ are not plugins")
