"""Type aliases the tests cast a callable to where mypy cannot infer one.

A lambda that binds a loop variable through a default (`lambda f, i=i: ...`) has one parameter more than the
callable it is passed as, which mypy cannot match against that callable's type; cast to the alias, it is checked as
what it is passed as.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FramePredicate = Callable[[dict[str, Any]], object]  # LapClient.wait_for's predicate: is this the frame?
