"""The docs are self-contained: nothing cites a document outside the repository, and every docs anchor resolves."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hub.protocol import payloads as P
from hub.protocol import stored as S

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The team's specification files (the Chinese seeds and the four upper-case pages beside them) and its issue tracker
# live outside the checkout: a citation of one (a seed's section, an issue's number) sends the reader somewhere they
# cannot follow. Any case, except the four pages' names: upper case only, so that docs/protocol.md is not taken for
# its namesake.
OUTSIDE = re.compile(r"\bseed 00\d|\bseeds/|\bissues? #?\d+|\.\./shared\b"
                     r"|(?-i:\b(?:QUALITY|PROTOCOL|DESIGN|STYLE)\.md|\bshared/(?:QUALITY|PROTOCOL|DESIGN|STYLE))|\bshared/seeds",
                     re.IGNORECASE)
# A page and section of the docs, as code cites it ("docs/design.md#task-states"), and as docs/ links to itself.
CITED_ANCHOR = re.compile(r"\bdocs/([\w-]+\.md)#([\w-]+)")
RELATIVE_LINK = re.compile(r"\]\(([\w-]+\.md)#([\w-]+)\)")
CITED_PAGE = re.compile(r"\bdocs/([\w-]+\.md)\b")
SKIPPED_DIRS = {".git", ".venv", "build", "dist", "node_modules", "__pycache__"}


def repo_files() -> list[Path]:
    """Tracked and untracked files that git does not ignore; without git, a walk that skips what git would."""
    git = shutil.which("git")
    try:
        if git is None:
            raise OSError("no git")
        listed = subprocess.run([git, "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, check=True, timeout=30).stdout.decode()
        names = [name for name in listed.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        names = []
        for folder, dirs, files in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
            names += [os.path.relpath(os.path.join(folder, f), ROOT) for f in files]
    return [ROOT / name for name in names if not set(Path(name).parts) & SKIPPED_DIRS and (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary (images, fonts, databases)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (word characters, spaces and hyphens kept),
    each space a hyphen."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor on a Markdown page, outside fenced code, with GitHub's -1, -2 for repeats."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    fenced = False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.fixture(scope="module")
def texts() -> dict[Path, str]:
    out = {}
    for path in repo_files():
        text = text_of(path)
        if text is not None:
            out[path] = text
    assert len(out) > 100, "the repository's files were not found"
    return out


def test_slug_follows_github() -> None:
    assert slug("Task states") == "task-states"
    assert slug("Hello, welcome, resume") == "hello-welcome-resume"
    assert slug("The schema (`lineup schema`)") == "the-schema-lineup-schema"
    assert slug("An agent's unfinished work: `openTasks`") == "an-agents-unfinished-work-opentasks"


def test_the_outside_pattern_catches_seeds_and_issues_in_any_case() -> None:
    seed, issue = "Seed" + " 002 §15", "issue" + " 15"  # split, so this file does not cite them itself
    for text in (seed, seed.lower(), issue + " #8", issue.capitalize() + " item 14: ...", "(" + issue + ")",
                 "Issues" + " 14 and 15", "../" + "shared/x", "SHARED/se" + "eds/002.md", "see DESIGN" + ".md"):
        assert OUTSIDE.search(text), text
    for text in ("docs/" + "protocol.md", "[design.md](design.md#tools-and-mcp)", "github.com/o/r/issues/12",
                 "reissue 3 codes", "tissue 4"):
        assert not OUTSIDE.search(text), text


def test_nothing_cites_a_document_outside_the_repository(texts: dict[Path, str]) -> None:
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
             for path, text in texts.items()
             for number, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]
    assert not found, "cite docs/<page>.md#<section> instead:\n" + "\n".join(found)


def test_every_cited_docs_page_and_anchor_exists(texts: dict[Path, str]) -> None:
    cache: dict[Path, set[str]] = {}
    broken = []
    for path, text in texts.items():
        for number, line in enumerate(text.splitlines(), 1):
            cited = [(DOCS / page, anchor) for page, anchor in CITED_ANCHOR.findall(line)]
            cited += [(DOCS / page, None) for page in CITED_PAGE.findall(line)]
            if path.parent == DOCS:
                cited += [(DOCS / page, anchor) for page, anchor in RELATIVE_LINK.findall(line)]
            for page, anchor in cited:
                if not page.is_file():
                    broken.append(f"{path.relative_to(ROOT)}:{number}: no page {page.relative_to(ROOT)}")
                elif anchor is not None and anchor not in cache.setdefault(page, anchors(page)):
                    broken.append(f"{path.relative_to(ROOT)}:{number}: no section #{anchor} in "
                                  f"{page.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_the_code_cites_the_docs_pages_that_replaced_the_outside_ones(texts: dict[Path, str]) -> None:
    """The replacement is real: design, quality and protocol sections are cited from the code."""
    cited = {page for text in texts.values() for page, _ in CITED_ANCHOR.findall(text)}
    assert {"design.md", "quality.md", "protocol.md", "style.md"} <= cited


def test_protocol_page_covers_every_frame_type() -> None:
    """Every event type the hub accepts or sends is named on docs/protocol.md."""
    text = (DOCS / "protocol.md").read_text()
    types = (set(P.HANDSHAKES) | set(P.APP_INBOUND) | set(P.AGENT_INBOUND) | set(P.CLIENT_SYSTEM)
             | set(P.SYSTEM_OUTBOUND) | set(S.STORED) | set(S.AGENT_RECEIVES) | set(S.LIVE_TO_APPS)
             | set(S.LIVE_TO_AGENTS))
    assert len(types) > 30
    missing = sorted(t for t in types if not re.search(r"(?<![\w.])" + re.escape(t) + r"(?![\w.])", text))
    assert not missing, f"docs/protocol.md does not describe: {missing}"
