"""The package map (the rest of the build is pyproject.toml's): plugins/ and ui/ at the top of the checkout install
as hub.plugins and hub.ui, so a wheel, an editable install and the executable hold one top-level name, `hub`."""

from setuptools import find_namespace_packages, setup

# Mapped by prefix: hub.plugins.canvas is plugins/canvas/. Folders of files only (ui/lib/, canvas/static/, the
# OpenClaw channel's dist/) are namespace packages, so their files travel as package data (pyproject.toml).
PACKAGE_DIR = {"hub.plugins": "plugins", "hub.ui": "ui"}


def packages_in(folder: str, name: str) -> list[str]:
    return [name, *(f"{name}.{sub}" for sub in find_namespace_packages(folder))]


setup(
    packages=[*find_namespace_packages(include=["hub", "hub.*"]), *packages_in("plugins", "hub.plugins"),
              *packages_in("ui", "hub.ui")],
    package_dir=PACKAGE_DIR,
)
