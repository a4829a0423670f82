"""The hub's risk judgement of what an approval approves, from a positive model: low only where every part is
understood and known harmless; what the hub cannot read is high ("LineUp cannot tell what this runs"); reasons say
what happens to what (docs/security.md#how-the-hub-judges-the-risk)."""

from __future__ import annotations

from hub.domain.risk.items import assess_command, assess_file_change, assess_tool_input
from hub.domain.risk.reasons import REASONS, Assessment, higher

__all__ = ["REASONS", "Assessment", "assess_command", "assess_file_change", "assess_tool_input", "higher"]
