"""The suite's one skip rule: what a test needs and is missing skips it on a developer's machine and fails it in CI."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """Whether this run is CI's (`CI` set, as .ci/run and bench.suite set it): there nothing may skip."""
    return bool(os.environ.get("CI"))


def missing(problem: str) -> NoReturn:
    """Skip the test for `problem` (say what is missing and how to get it), or fail it in CI, which installs
    everything the suite needs before it starts."""
    if in_ci():
        pytest.fail(problem)
    pytest.skip(problem)
