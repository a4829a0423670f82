"""The hub's version (pyproject.toml's `version`), a leaf any layer may read; `hub.__version__` is this."""

__version__ = "0.1.0"
