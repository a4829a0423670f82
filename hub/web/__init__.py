"""HTTP: the JSON API, introspection endpoints, the static app, and the checks every request passes."""
