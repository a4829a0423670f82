"""Files attached to a person's message, as ACP prompt content: images and text the agent says it takes."""

from __future__ import annotations

import base64
import logging
from typing import Any

import acp

from hub.sdk import AgentClient, HubError

log = logging.getLogger("lineup.runtimes.acp")

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
TEXT_TYPES = {"application/json", "application/xml", "application/x-yaml", "application/yaml", "application/toml",
              "application/javascript", "application/x-sh"}
MAX_IMAGE_BYTES = 10 * 1024 * 1024      # one image, base64 in the prompt's one JSON-RPC line
MAX_TEXT_BYTES = 1024 * 1024            # one text file
MAX_PROMPT_FILE_BYTES = 20 * 1024 * 1024  # all of one prompt's files together


def takes(agent_info: Any) -> dict[str, bool]:
    """What an agent's `initialize` answer says it takes in a prompt besides text."""
    caps = getattr(getattr(agent_info, "agent_capabilities", None), "prompt_capabilities", None)
    return {"image": bool(getattr(caps, "image", False)), "embeddedContext": bool(getattr(caps, "embedded_context",
                                                                                           False))}


async def prompt_blocks(client: AgentClient, agent_info: Any, attachments: list[dict[str, Any]]) -> tuple[
        list[Any], list[str]]:
    """The prompt blocks for a message's files, and a note for each file the agent could not be given (said in the
    prompt, so the agent knows it was attached)."""
    can = takes(agent_info)
    blocks: list[Any] = []
    notes: list[str] = []
    budget = MAX_PROMPT_FILE_BYTES
    for item in attachments[:10]:
        name = str(item.get("name") or "file")
        mime = str(item.get("mimeType") or "application/octet-stream").split(";")[0].strip().lower()
        size = int(item.get("size") or 0)
        file_id = item.get("fileId")
        is_image = mime in IMAGE_TYPES
        is_text = mime.startswith("text/") or mime in TEXT_TYPES
        limit = MAX_IMAGE_BYTES if is_image else MAX_TEXT_BYTES
        if not isinstance(file_id, str) or not (is_image and can["image"] or is_text) or size > min(limit, budget):
            why = "this agent takes no images" if is_image and not can["image"] else (
                "too large to pass in a prompt" if is_image or is_text else "only images and text files are passed")
            notes.append(f"[The person attached {name} ({mime}, {size:,} bytes); it could not be given to you: {why}.]")
            continue
        try:
            data = await client.download_file(file_id)
        except (HubError, OSError) as exc:
            log.warning("attachment %s could not be read: %s", file_id, exc)
            notes.append(f"[The person attached {name}; it could not be read from the hub.]")
            continue
        assert isinstance(data, bytes)
        budget -= len(data)
        if is_image:
            blocks.append(acp.image_block(base64.b64encode(data).decode("ascii"), mime))
            continue
        text = data.decode("utf-8", errors="replace")
        if can["embeddedContext"]:
            blocks.append(acp.resource_block(acp.embedded_text_resource(f"file:///lineup/attachments/{file_id}/{name}",
                                                                        text, mime_type=mime)))
        else:
            blocks.append(acp.text_block(f"\n\nAttached file {name}:\n```\n{text}\n```"))
    return blocks, notes
