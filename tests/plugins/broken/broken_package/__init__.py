"""A package plugin whose import fails inside a submodule: reported under the package's name."""

from .inner import VALUE  # noqa: F401
