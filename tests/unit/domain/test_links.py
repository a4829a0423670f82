"""Addresses agents store (hub/domain/links.py, security issue item 10): judged on the parsed URL, never on how the
string starts. What LineUp's own agents send is taken; every trick that made a link clickable, or passed another
site off as the hub, in the app before is refused, naming the field and saying what is allowed."""

from __future__ import annotations

import base64
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any, cast
from urllib.parse import quote

import pytest

from hub.domain.links import DATA_TYPES, MAX_LINK_CHARS, check_link
from hub.protocol.errors import LapError

# What LineUp's own agents send: the Claude Code hook's written file (hub/connect/hooks.py written_file: small
# files inline, bigger ones by path), lineup mcp's publish_artifact content (hub/mcp/bridge.py), the demo agent's
# report (hub/sdk/demo.py).
NOTES = "# Release 1.0\n\n- faster sync\t(50% less)\n- 中文 \"quoted\" & <tags>\n"
OWN = [
    "data:text/plain;charset=utf-8," + quote(NOTES, safe=""),
    "data:text/plain;base64," + base64.b64encode(NOTES.encode()).decode(),
    "data:text/markdown;base64," + base64.b64encode(NOTES.encode()).decode(),
    PurePosixPath("/home/ada/my project/notes #1?.md").as_uri(),
    PurePosixPath("/home/ada/项目/说明.md").as_uri(),
    PureWindowsPath("C:/Users/Ada/My Project/notes.md").as_uri(),
]

ACCEPTED = [
    "https://example.com",
    "https://example.com/docs/page?x=1&y=%20z#part",
    "http://192.168.1.20:9527/#/tasks?task=t1",
    "HTTPS://EXAMPLE.COM/",
    "https://[::1]:8443/x",
    "https://my_host.internal/",
    "https://例子.测试/路径",
    "data:,hello",
    "data:;base64,aGk=",
    "data:image/png;base64,iVBORw0KGgo=",
    "data:IMAGE/WEBP;base64,UklGRg==",
    "data:application/json,%7B%22a%22%3A1%7D",
    "data:application/pdf;base64,JVBERi0=",
    "data:text/csv;charset=utf-8;header=present,a%2Cb",
    "file:///tmp/report.pdf",
    "file://localhost/tmp/report.pdf",
    "/icons/icon-192.png",
    "/files/report?v=2",
]


@pytest.mark.parametrize("value", OWN + ACCEPTED)
def test_addresses_agents_send_are_stored_as_given(value: str) -> None:
    assert check_link(value, "url") == value


# (value, what the refusal says)
REFUSED = [
    # Tricks that became clickable links in the app: the browser drops or ignores these characters, a prefix check
    # did not.
    (" javascript:alert(1)", "U+0020 at position 0"),
    ("\tjavascript:alert(1)", "U+0009 at position 0"),
    ("java\nscript:alert(1)", "U+000A at position 4"),
    ("javascript:alert(1)", "scheme javascript:"),
    ("JaVaScRiPt:alert(1)", "scheme javascript:"),
    ("javascript://example.com/%0Aalert(1)", "scheme javascript:"),
    ("vbscript:msgbox(1)", "scheme vbscript:"),
    ("blob:https://example.com/0f9c", "scheme blob:"),
    ("mailto:ada@example.com", "scheme mailto:"),
    # Labelled as the hub, opened another site.
    ("/\t/evil.example/login", "U+0009 at position 1"),
    ("//evil.example/login", "starts with //"),
    ("/\\evil.example/login", "backslash"),
    ("https://evil.example\\@hub.local/", "backslash"),
    ("https:evil.example", "no host"),
    ("https:///evil.example", "no host"),
    ("https://hub.local@evil.example/", "user name or password"),
    ("https://ada:secret@example.com/", "user name or password"),
    # Characters nobody sees.
    ("https://example.com/\u202egpj.exe", "U+202E"),
    ("https://exa\u200bmple.com/", "U+200B"),
    ("https://example.com/\u00a0x", "U+00A0"),
    ("https://example.com/x\u0085", "U+0085"),
    ("https://example.com/x\x7f", "U+007F"),
    ("https://example.com/ x", "U+0020"),
    ("https://example.com/x ", "U+0020 at position 21"),
    # Hosts and ports that are no such thing.
    ("https://exa$mple.com/", "characters a host name cannot hold"),
    ("https://[::zz]/", "not a valid address"),
    ("https://example.com:99999/", "not a valid address"),
    ("https://example.com:port/", "not a valid address"),
    # data: of a type the app must never treat as a page or a script, or malformed.
    ("data:text/html,<script>alert(1)</script>", "type text/html"),
    ("data:text/html;base64,PHNjcmlwdD4=", "type text/html"),
    ("data:image/svg+xml;base64,PHN2Zy8+", "type image/svg+xml"),
    ("data:application/javascript,alert(1)", "type application/javascript"),
    ("data:text/plain", "without the comma"),
    ("data:text/plain;base64,not*base64", "not base64"),
    ("data:text/plain,50%", "% that is not followed"),
    ("data:text/plain;charset=\"utf-8\",x", "malformed parameter"),
    ("data:text/plain;base64;charset=utf-8,aGk=", "malformed parameter"),
    # file: only as a path on the agent's own machine.
    ("file://fileserver/share/x.txt", "another machine"),
    ("file:/etc/passwd", "not file:///path"),
    ("file:///tmp/x?y", "not file:///path"),
    # Not addresses at all.
    ("relative/path.png", "no scheme"),
    ("example.com", "no scheme"),
    ("", "non-empty"),
    ("h" * (MAX_LINK_CHARS + 1), f"longer than {MAX_LINK_CHARS}"),
]


@pytest.mark.parametrize(("value", "why"), REFUSED)
def test_a_link_that_is_not_what_it_reads_as_is_refused_saying_what_is_allowed(value: str, why: str) -> None:
    with pytest.raises(LapError) as info:
        check_link(value, "attachments[2].url")
    error = info.value
    assert error.code == "invalid_payload"
    assert error.message.startswith("attachments[2].url "), error.message
    assert why in error.message, error.message
    assert "Allowed: http:// or https:// with a host, data: of type" in error.message
    assert error.details == {"field": "attachments[2].url"}


@pytest.mark.parametrize("code", [*range(0x20), 0x7F, *range(0x80, 0xA0)])
@pytest.mark.parametrize("where", ["start", "scheme", "host", "path", "end"])
def test_no_control_character_passes_anywhere(code: int, where: str) -> None:
    char = chr(code)
    value = {"start": f"{char}https://example.com/a", "scheme": f"ht{char}tps://example.com/a",
             "host": f"https://exam{char}ple.com/a", "path": f"https://example.com/a{char}b",
             "end": f"https://example.com/a{char}"}[where]
    with pytest.raises(LapError) as info:
        check_link(value, "url")
    assert f"U+{code:04X}" in info.value.message


def test_every_allowed_data_type_is_one_the_app_shows_as_text_an_image_or_a_pdf() -> None:
    assert {t for t in DATA_TYPES if not t.startswith(("text/", "image/"))} == {"application/json", "application/pdf"}
    assert {t for t in DATA_TYPES if t.startswith("image/")} == {"image/png", "image/jpeg", "image/gif", "image/webp"}
    for mime in DATA_TYPES:
        assert check_link(f"data:{mime};base64,aGk=", "url")
    assert not any(word in mime for mime in DATA_TYPES for word in ("html", "xml", "svg", "script"))


def test_a_non_string_is_refused() -> None:
    with pytest.raises(LapError):
        check_link(cast(Any, None), "url")  # None on purpose, past the type checker
