"""The app reads the protocol's vocabularies from the hub. The page a real hub serves carries them as
a JSON data block (no request of its own before the first paint), `GET /-/vocabulary.json` answers the same without
a token, and both are exactly hub/protocol/vocabulary.py's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import cast

import httpx

from hub.protocol import vocabulary
from hub.web.static_app import AppFile, AppFiles
from tests.support.hubproc import HubProcess

DATA_BLOCK = re.compile(r'<script type="application/json" id="lineup-vocabulary">(.*?)</script>', re.S)


def test_the_page_carries_the_protocols_vocabulary(hub: HubProcess) -> None:
    page = httpx.get(hub.base + "/", headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert page.status_code == 200
    blocks = DATA_BLOCK.findall(page.text)
    assert len(blocks) == 1
    assert json.loads(blocks[0]) == vocabulary.for_app()
    assert json.loads(blocks[0])["taskStatuses"] == list(vocabulary.TASK_STATUSES)
    # In the head, where the app's modules find it when they run (they are deferred: the whole page is parsed).
    assert page.text.index('id="lineup-vocabulary"') < page.text.index("</head>")


def test_the_vocabulary_is_public_json(hub: HubProcess) -> None:
    answer = httpx.get(hub.base + "/-/vocabulary.json", timeout=10)  # no token: nothing in it is secret
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == vocabulary.for_app()
    assert answer.json()["terminalTaskStatuses"] == ["succeeded", "failed", "cancelled"]


def test_a_data_block_cannot_close_its_script_element(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><html><head><title>x</title></head><body></body></html>")
    hostile = {"names": ["</script><script>alert(1)</script>", "ok"]}
    files = AppFiles(tmp_path, inline={"data": hostile})
    found = files.lookup("/")
    assert found is not None
    page = found[0].body.decode()
    block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert block is not None and json.loads(block.group(1)) == hostile  # the value is intact ...
    assert page.count("</script>") == 1  # ... and closes nothing early
    # A folder without data blocks (a plugin's static folder) is served as it is.
    assert 'type="application/json"' not in cast(tuple[AppFile, bytes], AppFiles(tmp_path).lookup("/"))[0].body.decode()
