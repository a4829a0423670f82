"""Files to and from the hub (docs/sdk.md "Files"): upload a file an agent made, download one the person attached.

```python
stored = await client.upload_file("report.md")                 # {fileId, name, mimeType, size, sha256}
await task.artifact("Weekly report", file="report.md")          # uploads it and shows it in the app
data = await client.download_file(attachment["fileId"])         # bytes (or to=path: written to a file)
```

Over HTTP to the hub the credential names (`POST /api/files`, `GET /api/files/{id}`), with the credential in the
`Authorization` header (never in the URL) and the same TLS pin as the agent's socket. The body is streamed from the
file, and a download streamed to disk with `to=`, so neither is held whole in memory. The hub keeps files by content
and gives the same id to the same agent sending the same file under the same name again, so a handler that runs
again after a restart uploads the same file to the same id (and its artifact is stored once).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import mimetypes
import os
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlsplit

from hub.sdk.credentials import Credential
from hub.sdk.errors import AuthError, HubError, SdkError
from hub.sdk.tlspin import check_peer, client_context

BLOCK = 256 * 1024
# A download larger than this is refused before it is read, unless `max_bytes` says otherwise (the hub's own limit
# per file is 25 MiB by default, max_file_bytes).
DEFAULT_MAX_DOWNLOAD = 1024 * 1024 * 1024


async def upload_file(credential: Credential, source: str | os.PathLike[str] | bytes, *, name: str | None = None,
                      mime_type: str | None = None, timeout_s: float = 300.0) -> dict[str, Any]:
    """Store a file (a path, or the bytes themselves) on the hub: `{fileId, name, mimeType, size, sha256}`.

    `name` defaults to the file's name ("file" for bytes); `mime_type` to one guessed from the name. The hub judges
    the type from the bytes all the same (an image is png, jpeg, gif or webp by its content; an svg or html page is
    kept as text). Raises HubError: `invalid_payload` (413, larger than the hub's max_file_bytes) or `rate_limited`
    (413, this agent keeps max_agent_file_bytes already; `details["limit"]` says which)."""
    name = name or ("file" if isinstance(source, bytes) else Path(source).name)
    mime_type = mime_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return await asyncio.to_thread(_upload, credential, source, name, mime_type, timeout_s)


async def download_file(credential: Credential, file_id: str, *, to: str | os.PathLike[str] | None = None,
                        max_bytes: int = DEFAULT_MAX_DOWNLOAD, timeout_s: float = 300.0) -> bytes | Path:
    """A file's bytes, or with `to`, the path they were written to (replaced whole: written beside it, then renamed).
    An agent may read the files it uploaded and those attached where it takes part (a message delivered to it, its
    task, a conversation it is a member of); any other is HubError("not_found")."""
    return await asyncio.to_thread(_download, credential, file_id, None if to is None else Path(to), max_bytes,
                                   timeout_s)


# ---- the HTTP underneath (blocking: run on a thread) -----------------------------------------------------------------

def _connection(credential: Credential, timeout_s: float) -> http.client.HTTPConnection:
    parts = urlsplit(credential.hub_url)
    host = parts.hostname or ""
    if parts.scheme == "https":
        pin = credential.tls_fingerprint
        context = client_context(pin)

        class Pinned(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                check_peer(self.sock if isinstance(self.sock, ssl.SSLSocket) else None, pin)  # before anything is sent

        return Pinned(host, parts.port, timeout=timeout_s, context=context, blocksize=BLOCK)
    return http.client.HTTPConnection(host, parts.port, timeout=timeout_s, blocksize=BLOCK)


def _path(credential: Credential, rest: str) -> str:
    return urlsplit(credential.hub_url).path.rstrip("/") + rest


@contextlib.contextmanager
def _opened(source: str | os.PathLike[str] | bytes) -> Iterator[tuple[IO[bytes], int]]:
    if isinstance(source, bytes):
        yield io.BytesIO(source), len(source)
        return
    with open(source, "rb") as handle:
        yield handle, os.fstat(handle.fileno()).st_size


def _refusal(response: http.client.HTTPResponse) -> HubError:
    try:
        error = json.loads(response.read(64 * 1024))["error"]
    except Exception:  # noqa: BLE001 - whatever the body is, the status says enough
        return HubError("internal", f"The hub answered HTTP {response.status}.")
    kind = AuthError if error["code"] == "unauthorized" else HubError
    return kind.from_payload(error)


def _upload(credential: Credential, source: str | os.PathLike[str] | bytes, name: str, mime_type: str,
            timeout_s: float) -> dict[str, Any]:
    connection = _connection(credential, timeout_s)
    try:
        with _opened(source) as (body, size):
            headers = {"Authorization": f"Bearer {credential.credential}", "Content-Type": mime_type,
                       "Content-Length": str(size), "X-File-Name": quote(name, safe="")}
            try:
                connection.request("POST", _path(credential, "/api/files"), body=body, headers=headers)
                response = connection.getresponse()
            except (BrokenPipeError, ConnectionResetError):
                # The hub refused the body before reading it all (413) and closed: its answer may still be readable.
                try:
                    response = connection.getresponse()
                except (OSError, http.client.HTTPException):
                    raise SdkError(f"The hub closed the connection while {name!r} ({size} bytes) was sent: it refuses "
                                   "a file far larger than its max_file_bytes (25 MiB unless set otherwise) without "
                                   "reading it.") from None
            if response.status != 201:
                raise _refusal(response)
            answer: dict[str, Any] = json.loads(response.read())
            return answer
    except SdkError:
        raise
    except (OSError, http.client.HTTPException) as exc:
        raise SdkError(f"Could not upload {name!r} to {credential.hub_url}: {exc}") from None
    finally:
        connection.close()


def _download(credential: Credential, file_id: str, to: Path | None, max_bytes: int, timeout_s: float) -> bytes | Path:
    connection = _connection(credential, timeout_s)
    try:
        connection.request("GET", _path(credential, f"/api/files/{quote(file_id, safe='')}"),
                           headers={"Authorization": f"Bearer {credential.credential}"})
        response = connection.getresponse()
        if response.status != 200:
            raise _refusal(response)
        length = int(response.getheader("content-length") or -1)
        if length > max_bytes:
            raise SdkError(f"File {file_id} is {length} bytes, more than max_bytes={max_bytes}.")
        if to is None:
            data = response.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise SdkError(f"File {file_id} is more than max_bytes={max_bytes}.")
            return data
        return _save(response, to, max_bytes, file_id)
    except SdkError:
        raise
    except (OSError, http.client.HTTPException) as exc:
        raise SdkError(f"Could not download file {file_id} from {credential.hub_url}: {exc}") from None
    finally:
        connection.close()


def _save(response: http.client.HTTPResponse, to: Path, max_bytes: int, file_id: str) -> Path:
    fd, temp = tempfile.mkstemp(prefix=f".{to.name}.", dir=to.parent or ".")
    try:
        written = 0
        with os.fdopen(fd, "wb") as handle:
            while block := response.read(BLOCK):
                written += len(block)
                if written > max_bytes:
                    raise SdkError(f"File {file_id} is more than max_bytes={max_bytes}.")
                handle.write(block)
        os.replace(temp, to)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return to
