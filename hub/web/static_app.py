"""The web app's files: under content-versioned URLs cached for good, compressed, and index.html preloading them.

There is no build step: at start the hub reads ui/ once, hashes it (one version for the whole tree) and keeps
each file with its gzip form in memory (about 0.6 MB). index.html is served with every module and style sheet
under `/v/<version>/…`, cached by the browser for a year (`immutable`: a repeat visit asks for none of them), and
with a `modulepreload` for every module its scripts import (found by reading their static imports at start), so the
browser fetches them in parallel instead of discovering the imports one level at a time; what the app imports
only when a screen needs it is not preloaded. Modules import each other by relative paths, so they resolve inside
the same version. index.html, `/sw.js` and the unversioned paths are revalidated (`no-cache` with an ETag). A new hub
version has a new tree hash, so no browser keeps a stale file.

What the app needs from the hub before its first paint and that is no secret (the protocol's vocabularies,
hub/protocol/vocabulary.py) is written into index.html as JSON data blocks (`inline`): no extra round trip, and the
page kept for relay mode carries it too.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from starlette.types import Receive, Scope, Send

IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
COMPRESSIBLE = {".js", ".css", ".html", ".svg", ".json", ".webmanifest", ".md", ".txt"}
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".webmanifest": "application/manifest+json",
         ".json": "application/json", ".png": "image/png", ".md": "text/markdown; charset=utf-8"}
SKIP = {"README.md", "LICENSE"}
BUNDLE = "styles/bundle.css"  # the page's style sheets in one file (made at start, in their order)
SUBRESOURCES = ("text/javascript", "text/css", "image/png")
# A module's static imports (`import … from './x.js'`, `import './x.js'`, `export … from './x.js'`): what a page
# needs before it runs. Dynamic `import()` is not matched, so what a screen loads when first shown (the Markdown
# renderer, the diff view, the other screens: ui/lib/lazy.js) is not preloaded.
# Published vendor files put several on one line (`import{x}from"../a.js";import{y}from"./b.js"`); a match in a
# comment only adds a preload.
STATIC_IMPORT = re.compile(r"""(?:^|[;}\s])(?:import|export)(?![\w$(])[^'";()]*?['"](\.{1,2}/[^'"]+)['"]""", re.M)
SCRIPT_SRC = re.compile(r'<script type="module"[^>]*\bsrc="/([^"]+\.js)"')


def static_imports(files: dict[str, AppFile], entries: list[str]) -> list[str]:
    """Every module the entry modules need before they run (their static imports, transitively), entries first."""
    found: list[str] = []
    todo = [rel for rel in entries if rel in files]
    while todo:
        rel = todo.pop(0)
        if rel in found:
            continue
        found.append(rel)
        folder = PurePosixPath(rel).parent
        for target in STATIC_IMPORT.findall(files[rel].body.decode("utf-8", "replace")):
            resolved = posixpath.normpath(str(folder / target))
            if resolved in files and resolved not in found:
                todo.append(resolved)
    return found


@dataclass(frozen=True)
class AppFile:
    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: bytes


# What reading a file made, by the file as it was (path, size, modification time, inode): a hub started again in the
# same process (the in-process test hub, hub.testing for plugin authors) does not gzip the whole app again, while a
# file changed since is read again, so what is served is always what is on disk.
_read: dict[tuple[str, int, int, int], AppFile] = {}
_READ_MAX = 4096  # more files than the app and a few plugins' folders: beyond that, start again


def _load(path: Path) -> AppFile:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    found = _read.get(key)
    if found is None:
        if len(_read) >= _READ_MAX:
            _read.clear()
        found = _read[key] = _read_file(path)
    return found


def _read_file(path: Path) -> AppFile:
    body = path.read_bytes()
    suffix = path.suffix.lower()
    content_type = TYPES.get(suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    packed = gzip.compress(body, compresslevel=9, mtime=0) if suffix in COMPRESSIBLE and len(body) > 512 else None
    return AppFile(body, packed if packed is not None and len(packed) < len(body) else None, content_type,
                   b'"' + hashlib.sha256(body).hexdigest()[:20].encode() + b'"')


class AppFiles:
    """The ASGI app behind `/`: the web app's files, read once."""

    def __init__(self, folder: Path, inline: dict[str, Any] | None = None) -> None:
        self.folder = folder
        self.inline = inline or {}  # element id -> JSON value, written into index.html (_index)
        self.files: dict[str, AppFile] = {}
        self.preloaded: list[str] = []  # the modules index.html preloads (_index)
        tree = hashlib.sha256()
        if folder.is_dir():
            inside = folder.resolve()
            # Only what really lies in the folder: a symbolic link out of it is not served (a plugin's static
            # folder could otherwise hand out any file the hub can read).
            for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in SKIP
                               and p.resolve().is_relative_to(inside)):
                rel = path.relative_to(folder).as_posix()
                self.files[rel] = _load(path)
                tree.update(rel.encode() + b"\0" + self.files[rel].etag)
        self.version = tree.hexdigest()[:12]
        self.prefix = f"/v/{self.version}/"
        if "index.html" in self.files:
            self.files["index.html"] = self._index(self.files["index.html"].body.decode())
        self.assets = [self.prefix + rel for rel in self.files if rel.endswith((".js", ".css")) and rel != "sw.js"]
        if "sw.js" in self.files:
            self.files["sw.js"] = self._worker(self.files["sw.js"].body.decode())

    def _index(self, html: str) -> AppFile:
        html = self._bundle_styles(html)
        entries = SCRIPT_SRC.findall(html)
        # What the page's scripts import, preloaded at once (no waterfall); not the entries, already named.
        self.preloaded = [rel for rel in static_imports(self.files, entries) if rel not in entries]
        for rel in self.files:  # the page's own references, made versioned
            if not rel.endswith(".html"):
                html = html.replace(f'"/{rel}"', f'"{self.prefix}{rel}"')
        preloads = "\n".join(f'  <link rel="modulepreload" href="{self.prefix}{rel}">' for rel in self.preloaded)
        html = html.replace("</head>", self._data_blocks() + preloads + "\n</head>", 1)
        return self._built(html.encode(), "index.html")

    def _data_blocks(self) -> str:
        """Each `inline` value as `<script type="application/json" id=…>`: data, never run (no CSP hash needed)."""
        blocks = []
        for element_id, value in self.inline.items():
            # "<" escaped: no value can close the script element early.
            body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
            blocks.append(f'  <script type="application/json" id="{element_id}">{body}</script>\n')
        return "".join(blocks)

    def _bundle_styles(self, html: str) -> str:
        """The page's style sheets as one file, in their order: each is render-blocking, and on a slow phone link
        six requests cost about half a second more than one (Lighthouse, mobile)."""
        links = re.findall(r'[ \t]*<link rel="stylesheet" href="/(styles/[\w.-]+\.css)">\n?', html)
        sheets = [rel for rel in links if rel in self.files]
        if len(sheets) < 2:
            return html
        body = b"\n".join(b"/* " + rel.encode() + b" */\n" + self.files[rel].body for rel in sheets)
        self.files[BUNDLE] = self._built(body, BUNDLE)
        for index, rel in enumerate(sheets):
            tag = re.search(rf'[ \t]*<link rel="stylesheet" href="/{re.escape(rel)}">\n?', html)
            assert tag is not None
            html = html.replace(tag.group(0), f'  <link rel="stylesheet" href="/{BUNDLE}">\n' if index == 0 else "", 1)
        return html

    def _worker(self, source: str) -> AppFile:
        source = source.replace("'%VERSION%'", json.dumps(self.version)).replace("'%ASSETS%'", json.dumps(self.assets))
        return self._built(source.encode(), "sw.js")

    def _built(self, body: bytes, name: str) -> AppFile:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        etag = b'"' + hashlib.sha256(body).hexdigest()[:20].encode() + b'"'
        return AppFile(body, packed, TYPES[Path(name).suffix], etag)

    def lookup(self, path: str) -> tuple[AppFile, bytes] | None:
        """The file for a URL path and its cache policy, or None."""
        if path in ("/", "/index.html"):
            found = self.files.get("index.html")
            return (found, REVALIDATE) if found else None
        if path.startswith("/v/"):
            version, _, rel = path[3:].partition("/")
            found = self.files.get(rel)
            if found is None or rel in ("index.html", "sw.js"):
                return None
            # Another version (a tab opened before the hub was updated): today's file, but not cached for good.
            return found, IMMUTABLE if version == self.version else REVALIDATE
        found = self.files.get(path.lstrip("/"))
        return (found, REVALIDATE) if found else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        method = scope["method"]
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):  # mounted below / (a plugin's static folder)
            path = path[len(root):] or "/"
        found = self.lookup(path) if method in ("GET", "HEAD") else None
        if found is None:
            status = 405 if method not in ("GET", "HEAD") else 404
            body = b"Not Found" if status == 404 else b"Method Not Allowed"
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        file, policy = found
        headers = dict(scope["headers"])
        headers_out = [(b"content-type", file.content_type.encode()), (b"cache-control", policy),
                       (b"etag", file.etag), (b"vary", b"accept-encoding")]
        if policy is IMMUTABLE and file.content_type.startswith(SUBRESOURCES):
            # A script, a style sheet or an image is never a document: the page's and the worker's answers carry
            # the policy headers (hub/web/headers.py); on these ~70 files they were 15 KB of every cold load.
            headers_out.append((b"x-lineup-subresource", b"1"))
        if headers.get(b"if-none-match") == file.etag:
            await send({"type": "http.response.start", "status": 304, "headers": headers_out})
            await send({"type": "http.response.body", "body": b""})
            return
        body = file.body
        if file.gzipped is not None and b"gzip" in headers.get(b"accept-encoding", b""):
            body = file.gzipped
            headers_out.append((b"content-encoding", b"gzip"))
        headers_out.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers_out})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
