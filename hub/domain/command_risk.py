"""The import path the rest of the hub uses for the risk judgement; the model lives in hub/domain/risk/."""

from __future__ import annotations

from hub.domain.risk import REASONS, Assessment, assess_command, assess_file_change, assess_tool_input, higher

__all__ = ["REASONS", "Assessment", "assess_command", "assess_file_change", "assess_tool_input", "higher"]
