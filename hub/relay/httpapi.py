"""WuKongIM's HTTP API as the hub uses it: tokens, system users, whitelists, and `/channel/messagesync`."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.error
import urllib.request
from typing import Any

from hub.relay import wire
from hub.relay.transport import Inbound


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status  # HTTP status, or 0 when the server could not be reached


class HttpApi:
    """POST JSON, answer JSON. With a manager token every call carries it in the `token` header (WuKongIM's
    `managerToken` setting). Runs urllib in a thread: a handful of calls per reconnect needs no HTTP stack."""

    def __init__(self, base_url: str, manager_token: str = "", timeout_s: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.manager_token = manager_token
        self.timeout_s = timeout_s

    def _post_sync(self, path: str, body: Any) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.manager_token:
            headers["token"] = self.manager_token
        request = urllib.request.Request(self.base_url + path, data=json.dumps(body).encode(),  # noqa: S310 - configured URL
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - configured URL
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode(errors="replace")
            exc.close()
            raise ApiError(exc.code, f"{path}: HTTP {exc.code} {detail}".strip()) from None
        except (urllib.error.URLError, OSError) as exc:
            raise ApiError(0, f"{path}: cannot reach {self.base_url}: {getattr(exc, 'reason', exc)}") from None
        return json.loads(raw) if raw.strip() else None

    async def post(self, path: str, body: Any) -> Any:
        return await asyncio.to_thread(self._post_sync, path, body)

    async def user_token(self, uid: str, token: str, device_flag: int) -> None:
        """Register (or update) a uid's token for one device flag, as the master device of that flag."""
        await self.post("/user/token", {"uid": uid, "token": token, "device_flag": device_flag, "device_level": 1})

    async def add_system_uids(self, uids: list[str]) -> None:
        await self.post("/user/systemuids_add", {"uids": uids})

    async def whitelist_add(self, channel_id: str, uids: list[str]) -> None:
        """Let `uids` send to the person `channel_id` (person whitelists are checked on the receiver's channel)."""
        await self.post("/channel/whitelist_add", {"channel_id": channel_id, "channel_type": wire.PERSON,
                                                   "uids": uids})

    async def messagesync(self, login_uid: str, channel_id: str, start_seq: int,
                          limit: int = 100) -> tuple[list[Inbound], bool]:
        """Messages of a person channel from `start_seq` on (inclusive), oldest first; and whether more follow."""
        answer = await self.post("/channel/messagesync", {
            "login_uid": login_uid, "channel_id": channel_id, "channel_type": wire.PERSON,
            "start_message_seq": start_seq, "end_message_seq": 0, "limit": limit, "pull_mode": 1})
        if not isinstance(answer, dict):
            raise ApiError(200, "/channel/messagesync answered without an object")
        messages = []
        for item in answer.get("messages") or []:
            payload_text = item.get("payload")
            payload = None
            if isinstance(payload_text, str):
                try:
                    payload = wire.decode_payload(base64.b64decode(payload_text).decode())
                except (ValueError, UnicodeError):
                    payload = wire.decode_payload(payload_text)
            messages.append(Inbound(
                message_id=str(item.get("message_idstr") or item.get("message_id")),
                message_seq=int(item.get("message_seq") or 0), from_uid=str(item.get("from_uid", "")),
                channel_id=str(item.get("channel_id", "")), channel_type=int(item.get("channel_type") or 1),
                payload=payload, client_msg_no=str(item.get("client_msg_no") or ""),
                timestamp=int(item.get("timestamp") or 0)))
        messages.sort(key=lambda m: m.message_seq)
        return messages, bool(answer.get("more"))
