"""Owner-only files written atomically, safe when several processes of one agent write the same file."""

# Two processes of one agent may save the same file at once (two `lineup mcp` windows in one folder, parallel
# hook commands, an agent started twice): a fixed `<file>.tmp` made them truncate and rename each other's half
# written file (`…state.json.tmp` errors). Each write uses a temporary name of its own; the last rename wins whole.

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any


def write_private_json(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path`, readable by the owner only (0600), atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
