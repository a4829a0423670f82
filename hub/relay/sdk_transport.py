"""The compat server line through WuKongIM's official Python SDK (wukong-easy-sdk, WebSocket JSON-RPC)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from wukong_easy_sdk import WKIM, AuthOptions, ErrorCode, WKIMDeviceFlag, WKIMError, WKIMEvent, WKIMOptions
from wukong_easy_sdk.types import Header

from hub.relay import wire
from hub.relay.transport import Inbound, OnMessage, SendAck, TransportError, session_end

log = logging.getLogger("lineup.relay")


def classify(error: WKIMError) -> TransportError:
    """SDK errors as the uplink's kinds: server reason codes are >= 0, the SDK's own are negative."""
    code = error.code
    if code == wire.AUTH_FAIL or code == 14:  # 14 QueryTokenError: the token lookup failed on the server
        kind = "auth"
    elif code == wire.CONNECT_KICK:
        kind = "kicked"
    elif code == ErrorCode.PROTOCOL:
        kind = "protocol"
    elif code >= 0:
        kind = "rejected"
    else:
        kind = "network"
    return TransportError(code, f"{error} ({wire.reason_name(code) if code >= 0 else ErrorCode(code).name})",
                          kind=kind)


class SdkTransport:
    """One SDK client per session; the uplink owns reconnecting, so the SDK's own retries are switched off."""

    line = "compat"

    def __init__(self, url: str, uid: str, token: str, device_id: str, device_flag: int, on_message: OnMessage, *,
                 ping_interval_s: float, connect_timeout_s: float, request_timeout_s: float) -> None:
        options = WKIMOptions(ping_interval=ping_interval_s, connect_timeout=connect_timeout_s,
                              request_timeout=request_timeout_s, max_reconnect_attempts=0)
        self._client = WKIM(url, AuthOptions(uid=uid, token=token, device_id=device_id,
                                             device_flag=WKIMDeviceFlag(device_flag)), options)
        self._on_message = on_message
        self._ended: asyncio.Future[TransportError] = session_end()
        # Listeners first (docs/relay.md): a message pushed right after CONNECT must not find nobody listening —
        # the SDK acknowledges a message whether or not anyone received it.
        self._client.on(WKIMEvent.MESSAGE, self._message)
        self._client.on(WKIMEvent.DISCONNECT, self._disconnected)
        self._client.on(WKIMEvent.ERROR, self._error)

    async def _message(self, params: dict[str, Any]) -> None:
        await self._on_message(Inbound(
            message_id=str(params["messageId"]), message_seq=int(params["messageSeq"]), from_uid=params["fromUid"],
            channel_id=params["channelId"], channel_type=int(params["channelType"]),
            payload=wire.decode_payload(params.get("payload")), client_msg_no=str(params.get("clientMsgNo") or ""),
            timestamp=int(params.get("timestamp") or 0)))

    def _end(self, error: TransportError) -> None:
        if not self._ended.done():
            self._ended.set_result(error)

    def _disconnected(self, event: dict[str, Any]) -> None:
        code = int(event.get("reasonCode", ErrorCode.CONNECTION_LOST))
        self._end(classify(WKIMError(code, "Session ended")))

    def _error(self, error: Any) -> None:
        if isinstance(error, WKIMError) and error.code not in (ErrorCode.CALLBACK, ErrorCode.RECONNECT_EXHAUSTED):
            self._end(classify(error))

    async def connect(self) -> dict[str, Any]:
        try:
            return dict(await self._client.connect())
        except WKIMError as exc:
            raise classify(exc) from None

    async def send(self, channel_id: str, payload: dict[str, Any], client_msg_no: str, *, red_dot: bool,
                   no_persist: bool = False) -> SendAck:
        header: Header = {"redDot": red_dot}
        if no_persist:
            header["noPersist"] = True
        try:
            result = await self._client.send(channel_id, wire.PERSON, payload, client_msg_no=client_msg_no,
                                             header=header)
        except WKIMError as exc:
            raise classify(exc) from None
        return SendAck(str(result["messageId"]), int(result["messageSeq"]))

    async def wait_closed(self) -> TransportError:
        return await asyncio.shield(self._ended)

    async def close(self) -> None:
        self._end(TransportError(ErrorCode.CLOSED, "closed by the hub", kind="network"))
        await self._client.destroy()
