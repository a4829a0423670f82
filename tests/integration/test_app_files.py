"""The web app is installable, compressed and cached (hub/web/static_app.py), served by a real hub.

index.html names every module and style sheet under `/v/<version>/` with a `modulepreload` for each module; those
files are gzipped and cached for a year (`immutable`), carry `nosniff` but not the document-only policy headers;
index.html, the worker and unversioned paths are revalidated (ETag → 304); the manifest has the icons and fields
an installable app needs; `/sw.js` names this version's files; compressed API reads; a symbolic link out of a
static folder is never served.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import pytest

from hub.web.static_app import STATIC_IMPORT, AppFiles
from tests.support.hubproc import HubProcess
from tests.support.inproc import InProcessHub


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessHub]:
    served = InProcessHub(tmp_path_factory.mktemp("appfiles") / "hub").start()
    yield served
    served.stop()


def test_index_preloads_every_module_under_one_version(hub: HubProcess) -> None:
    page = httpx.get(hub.base + "/", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
    assert page.headers["cache-control"] == "no-cache" and "frame-ancestors 'none'" in page.headers[
        "content-security-policy"]
    versions = set(re.findall(r'"/v/([0-9a-f]{12})/', page.text))
    assert len(versions) == 1, versions
    preloads = re.findall(r'<link rel="modulepreload" href="/v/[0-9a-f]{12}/([^"]+)">', page.text)
    ui = Path(__file__).resolve().parents[2] / "ui"
    shipped = {p.relative_to(ui).as_posix() for p in ui.rglob("*.js")}
    assert set(preloads) <= shipped and len(preloads) == len(set(preloads))
    # What the inbox needs before it runs, also through a minified vendor line (repeat.js → directive.js) ...
    assert {"components/lineup-inbox.js", "lib/workspace.js", "lib/strings-en.js", "vendor/lit-html/lit-html.js",
            "vendor/lit-html/directive.js", "vendor/lit-html/directive-helpers.js"} <= set(preloads)
    # ... and not what loads when first needed: the worker, a language, other screens, the Markdown renderer, and
    # vendor files the app does not import (plugins may).
    assert not {"sw.js", "lib/strings-zh.js", "components/lineup-settings.js", "components/lineup-conversation.js",
                "components/lineup-setup.js", "lib/markdown-render.js", "vendor/marked/marked.esm.js",
                "vendor/lit-html/directives/keyed.js"} & set(preloads)
    assert re.search(r'<script type="module" async src="/v/[0-9a-f]{12}/lib/early.js">', page.text)
    assert re.search(r'<link rel="manifest" href="/v/[0-9a-f]{12}/manifest.webmanifest">', page.text)
    assert 'rel="apple-touch-icon"' in page.text and 'name="apple-mobile-web-app-capable"' in page.text
    # Revalidated: the same page again is a 304 without a body.
    again = httpx.get(hub.base + "/", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_static_imports_are_found_and_dynamic_ones_are_not() -> None:
    source = ("import { a } from './a.js';\nimport './b.js';\nexport { c } from \"../c.js\";\n"
              'import{d as e}from"../d.js";import{f}from"./f.js";export*from"./g.js";\n'
              "const later = () => import('./lazy.js'); const also = import ('./lazy2.js');\n"
              "const text = 'important'; // imports are read from source, not from strings like 'x.js'\n")
    assert STATIC_IMPORT.findall(source) == ["./a.js", "./b.js", "../c.js", "../d.js", "./f.js", "./g.js"]


def test_versioned_files_are_compressed_and_kept_for_good(hub: HubProcess) -> None:
    version = cast(re.Match[str], re.search(r'"/v/([0-9a-f]{12})/app\.js"', httpx.get(hub.base + "/").text)).group(1)
    script = httpx.get(f"{hub.base}/v/{version}/lib/workspace.js", headers={"Accept-Encoding": "gzip"})
    assert script.status_code == 200
    assert script.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert script.headers["content-encoding"] == "gzip" and script.headers["content-type"].startswith("text/javascript")
    raw = (Path(__file__).resolve().parents[2] / "ui" / "lib" / "workspace.js").read_bytes()
    assert script.content == raw and int(script.headers["content-length"]) < len(raw) / 2  # httpx decoded it
    assert script.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in script.headers and "x-lineup-subresource" not in script.headers
    # Without gzip the same bytes, plain; an SVG (which can be opened as a document) keeps the policy headers.
    plain = httpx.get(f"{hub.base}/v/{version}/lib/workspace.js", headers={"Accept-Encoding": "identity"})
    assert plain.content == raw and "content-encoding" not in plain.headers
    icon = httpx.get(f"{hub.base}/v/{version}/icon.svg")
    assert "content-security-policy" in icon.headers
    # Another version's path (a tab opened before an update) gets today's file, revalidated, not kept for good.
    stale = httpx.get(f"{hub.base}/v/000000000000/lib/workspace.js")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert httpx.get(f"{hub.base}/v/{version}/lib/nothing.js").status_code == 404
    assert httpx.get(f"{hub.base}/v/{version}/../pyproject.toml").status_code == 404


def test_installable_manifest_icons_and_worker(hub: HubProcess) -> None:
    manifest = httpx.get(hub.base + "/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    fields = manifest.json()
    assert fields["display"] == "standalone" and fields["start_url"] == "/" and fields["name"] == "LineUp Agents"
    assert fields["theme_color"] and fields["background_color"]
    icons = {(i["sizes"], i["purpose"]): i["src"] for i in fields["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= set(icons)
    for (sizes, _), src in icons.items():
        png = httpx.get(hub.base + src)
        assert png.headers["content-type"] == "image/png"
        width = int.from_bytes(png.content[16:20], "big")  # the PNG header's width
        assert f"{width}x{width}" == sizes
    worker = httpx.get(hub.base + "/sw.js")
    assert worker.headers["cache-control"] == "no-cache" and "script-src 'self'" in worker.headers[
        "content-security-policy"]
    version = cast(re.Match[str], re.search(r'const VERSION = "([0-9a-f]{12})"', worker.text)).group(1)
    assets = json.loads(cast(re.Match[str], re.search(r"const ASSETS = (\[.*?\]);", worker.text)).group(1))
    assert f"/v/{version}/app.js" in assets and f"/v/{version}/styles/tokens.css" in assets
    assert "%VERSION%" not in worker.text


def test_api_reads_are_compressed_and_never_stored(hub: HubProcess) -> None:
    token = hub.token()
    for n in range(5):  # a few events, so the page is worth compressing (over 1 KiB)
        httpx.post(hub.base + "/api/pairing-codes", json={"name": f"agent {n}"},
                   headers={"Authorization": f"Bearer {token}"}).raise_for_status()
    answer = httpx.get(hub.base + "/api/events", headers={"Authorization": f"Bearer {token}",
                                                          "Accept-Encoding": "gzip"})
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    assert answer.headers.get("content-encoding") == "gzip"  # a page of events is well over 1 KiB
    login = httpx.post(hub.base + "/api/login", json={"username": "nobody", "password": "x" * 2000},
                       headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in login.headers  # answers to writes are not compressed (BREACH)


def test_a_link_out_of_a_static_folder_is_not_served(tmp_path: Path) -> None:
    folder, secret = tmp_path / "static", tmp_path / "secret.txt"
    folder.mkdir()
    secret.write_text("not for the web")
    (folder / "ok.js").write_text("export const ok = 1;\n")
    (folder / "escape.txt").symlink_to(secret)
    files = AppFiles(folder)
    assert files.lookup("/ok.js") is not None
    assert files.lookup("/escape.txt") is None and files.lookup(f"{files.prefix}escape.txt") is None


def test_a_file_is_read_again_once_it_changed_and_not_before(tmp_path: Path) -> None:
    """A hub started again in one process (the in-process test hub, hub.testing) keeps what it read of an unchanged
    file instead of gzipping the whole app again; a file changed since is read again, so what is served is what is
    on disk."""
    import os

    from hub.web import static_app

    page = tmp_path / "app.js"
    page.write_text("console.log('first');\n" * 100)
    first = static_app._load(page)
    assert static_app._load(page) is first  # unchanged: kept
    page.write_text("console.log('second');\n" * 100)
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 1_000_000))
    again = static_app._load(page)
    assert again is not first and again.body.startswith(b"console.log('second')")
    assert static_app.AppFiles(tmp_path).files["app.js"].body == again.body
