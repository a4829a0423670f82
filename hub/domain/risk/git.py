"""git, subcommand by subcommand: reading is low; changing the repository, fetching and pushing a branch is medium;
force-pushing, pushing to main, deleting remote branches, discarding uncommitted work and rewriting history are high
and say so. `git -c` settings that make git run a program, aliases and unknown subcommands (which may be an alias
from the repository's config) are "LineUp cannot tell what this runs"."""

from __future__ import annotations

import re
from dataclasses import replace

from hub.domain.risk.network import host_of, loopback
from hub.domain.risk.options import Parsed, abbreviates, parse
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope, Stream
from hub.domain.risk.words import Word, names, split

MAIN_BRANCHES = frozenset({"main", "master", "trunk", "production", "prod", "release"})
# `-c key=value` settings that only change how git shows or names things. Any other (`push.default=matching`,
# `remote.origin.url=…`, `core.sshCommand=…`) changes what a command does in ways the command does not show.
SAFE_SETTINGS = re.compile(
    r"^(user\.(name|email)|color\.[\w.]+|core\.(quotepath|abbrev)|init\.defaultbranch|advice\.\w+"
    r"|(commit|tag)\.gpgsign=(false|no|off|0)|log\.(date|decorate|abbrevcommit|follow)"
    r"|diff\.(renames|noprefix|mnemonicprefix|algorithm|colormoved|relative|statgraphwidth)|i18n\.\w+"
    r"|format\.pretty|status\.(short|branch|showuntrackedfiles|relativepaths)|column\.ui"
    r"|pager\.\w+=(false|no|off|0))$", re.IGNORECASE)
# Settings a repository's own config may hold without changing what runs or where pushes go (`git config …`: medium).
BENIGN_SETTINGS = re.compile(
    r"^(pull\.(rebase|ff)|merge\.(ff|conflictstyle)|rebase\.(autostash|autosquash|updaterefs)|fetch\.(prune|prunetags)"
    r"|push\.autosetupremote|core\.(autocrlf|safecrlf|filemode|ignorecase|longpaths|eol|precomposeunicode)|gc\.auto"
    r"|(commit|tag)\.gpgsign|user\.signingkey|branch\.autosetup(merge|rebase)|status\.\w+|log\.\w+"
    r"|core\.(quotepath|abbrev))$", re.IGNORECASE)
# Settings whose value is a command git runs (judged as that command).
COMMAND_SETTINGS = re.compile(
    r"^(core\.(sshcommand|pager|editor|fsmonitor|askpass|gitproxy)|sequence\.editor|pager\.[\w-]+"
    r"|diff\.[^.]+\.(command|textconv)|diff\.external|filter\.[^.]+\.(clean|smudge|process)|merge\.[^.]+\.driver"
    r"|credential\.(.+\.)?helper|gpg\.(.+\.)?program|interactive\.difffilter|sendemail\.\w*cmd"
    r"|uploadpack\.packobjectshook|remote\.[^.]+\.(uploadpack|receivepack)|(merge|diff)tool\.[^.]+\.cmd"
    r"|browser\.[^.]+\.cmd|man\.[^.]+\.cmd|instaweb\.httpd|ssh\.command)$", re.IGNORECASE)
# git's own options before the subcommand.
_GLOBAL_FLAGS = frozenset({"--bare", "--no-pager", "-P", "-p", "--paginate", "--no-replace-objects",
                           "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                           "--no-optional-locks", "--no-lazy-fetch", "--no-advice", "--version", "--help", "-h",
                           "--html-path", "--man-path", "--info-path", "--exec-path"})
# Options of subcommands that run a program: (the verbs they mean that for, or None for any; how it is judged).
# "script": the value is shell text git runs; "cannot": a program or file the hub cannot read.
_RUNS: dict[str, tuple[frozenset[str] | None, str]] = {
    "--upload-pack": (None, "script"), "--receive-pack": (None, "script"), "--exec": (None, "script"),
    "-u": (frozenset({"fetch", "pull", "clone", "ls-remote"}), "script"),
    "-x": (frozenset({"rebase", "difftool"}), "script"), "--extcmd": (None, "script"),
    "-t": (frozenset({"difftool", "mergetool"}), "cannot"), "--tool": (None, "cannot"),
    "-O": (frozenset({"grep"}), "cannot"), "--open-files-in-pager": (None, "cannot"),
    "--template": (frozenset({"clone", "init"}), "cannot"), "--separate-git-dir": (None, "cannot"),
    "--config-env": (None, "cannot"), "--gpg-program": (None, "cannot"), "--sequence-editor": (None, "cannot"),
    "--to-cmd": (None, "script"), "--cc-cmd": (None, "script"), "--sendmail-cmd": (None, "script"),
    "--smtp-server": (None, "cannot"), "--httpd": (None, "cannot"), "--browser": (None, "cannot"),
}
_RUNS_LONG = tuple(name for name in _RUNS if name.startswith("--"))
_STRATEGIES = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})
# Subcommands that run the repository's hooks, and the files hook managers read what to run from (without extension).
_HOOKED = frozenset({"commit", "merge", "rebase", "cherry-pick", "am", "push", "checkout", "switch", "pull"})
_HOOK_SETTINGS = (".pre-commit-config", ".husky", ".githooks", "lefthook", ".lefthook", ".lintstagedrc",
                  "lint-staged.config", "package", ".overcommit")
READS = names("""
status diff log show ls-files ls-tree rev-parse rev-list describe blame annotate shortlog grep cat-file whatchanged
merge-base name-rev for-each-ref count-objects help version show-ref check-ignore check-attr var cherry range-diff
diff-tree diff-files diff-index show-branch verify-commit verify-tag fsck ls-remote instaweb check-ref-format
hash-object get-tar-commit-id column difftool bugreport diagnose request-pull rerere --version --help -h --exec-path
--html-path --man-path --info-path
""")
CHANGES = frozenset({"add", "commit", "mv", "rm", "init", "merge", "rebase", "cherry-pick", "revert", "am", "apply",
                     "tag", "notes", "stash", "switch", "checkout", "branch", "restore", "reset", "worktree",
                     "sparse-checkout", "bisect", "gc", "prune", "repack", "pack-refs", "maintenance", "format-patch",
                     "archive", "bundle", "submodule", "lfs", "update-index", "commit-tree", "mktag", "mktree",
                     "read-tree", "write-tree", "update-ref", "symbolic-ref", "replace", "citool", "mergetool",
                     "reflog", "clean", "remote", "config", "fetch", "pull", "clone", "push", "filter-branch",
                     "filter-repo", "fast-import", "switch-branch", "range-diff", "unpack-objects", "pack-objects",
                     "index-pack", "multi-pack-index", "commit-graph", "checkout-index"})
_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path",
                            "--super-prefix", "--list-cmds"})


def git(call: Call, scope: Scope) -> None:
    words = call.words
    index = 0
    here = scope.folders
    while index < len(words):
        value = words[index].value
        if value is None:
            scope.cannot_tell(call.part)
            return
        if not value.startswith("-") or value in ("--version", "--help", "-h"):
            break
        name, equals, attached = value.partition("=")
        argument = Word.literal(attached) if equals else (words[index + 1] if index + 1 < len(words) else None)
        if name in _GLOBAL_VALUES and not equals:
            index += 1
        index += 1
        if name == "-c":
            _setting(argument, call, scope)
        elif name in ("--config-env", "--exec-path") and (name == "--config-env" or equals):
            scope.cannot_tell(call.part)
        elif name in ("-C", "--git-dir", "--work-tree") and argument is not None:
            if argument.value is None:
                scope.cannot_tell(call.part)
                return
            if name == "-C":
                here = here.moved(scope.through_folder(here.resolve(argument.value)))
            else:
                place = here.place(argument.value)
                if place is None or not place.inside:  # another repository's settings run its programs
                    scope.cannot_tell(f"git {name}={argument.text}")
                    here = here.moved(None)
        elif name not in _GLOBAL_FLAGS and name not in _GLOBAL_VALUES:
            scope.cannot_tell(f"git {value}")
    if index >= len(words):
        return
    verb = words[index].value or ""
    rest = words[index + 1:]
    inside = here.here is not None and here.inside(here.here)
    _runs(verb, rest, call, scope)
    if verb in READS:
        _read(verb, rest, call, scope)
        return
    if verb not in CHANGES:
        scope.cannot_tell(f"git {verb}")  # an alias from the repository's or the person's git config, or git-<verb>
        return
    if not inside and verb not in ("clone", "init", "ls-remote") and here.known:
        scope.raise_to("high", "git_outside", here.shown(here.here) if here.here is not None else "chosen at run time")
    inner = replace(scope, folders=here)
    if verb in _HOOKED and here.here is not None:  # its hooks read their settings from the working tree
        inner.ran(f"git {verb} (its hooks)", frozenset(str(here.here / name) for name in _HOOK_SETTINGS))
    _changes(verb, rest, call, inner)


def _runs(verb: str, rest: list[Word], call: Call, scope: Scope) -> None:
    """Options that make any subcommand run a program (`ls-remote --upload-pack=…`, `archive --exec=…`, a merge
    strategy that is a program `git-merge-<name>`), in full or abbreviated; the text they run is judged."""
    for index, word in enumerate(rest):
        value = word.value
        if value is None or value == "--":
            if value == "--":
                return
            continue
        if not value.startswith("-") or value == "-":
            continue
        name, equals, attached = value.partition("=")
        option = abbreviates(name, *_RUNS_LONG) or (name if name in _RUNS else None)
        if option is None and not name.startswith("--") and len(name) > 2 and name[:2] in _RUNS:
            option, attached, equals = name[:2], value[2:], "="  # `-xCMD`, `-uCMD`
        if option in ("-s", "--strategy") or (option is None and abbreviates(name, "--strategy") and verb in (
                "merge", "rebase", "cherry-pick", "revert", "pull")):
            option = "--strategy"
        if option is None:
            if name in ("-s",) and verb in ("merge", "rebase", "cherry-pick", "revert", "pull"):
                option = "--strategy"
            else:
                continue
        if option == "--strategy":
            strategy = attached if equals else (rest[index + 1].value if index + 1 < len(rest) else "")
            if strategy not in _STRATEGIES:
                scope.cannot_tell(f"git {verb} --strategy={strategy}")  # git-merge-<strategy>, found on PATH
            continue
        verbs, how = _RUNS[option]
        if verbs is not None and verb not in verbs:
            continue
        text = Word.literal(attached) if equals else (rest[index + 1] if index + 1 < len(rest) else Word.literal(""))
        scope.raise_to("high", "runs_program", f"git {verb} {option}")
        if how == "script" and text.value is not None:
            scope.script(text.value)
        else:
            scope.cannot_tell(f"git {verb} {option}")


def _setting(argument: Word | None, call: Call, scope: Scope) -> None:
    """`git -c key=value`: settings that run programs (alias.x=!…, core.sshCommand, core.pager, …) are judged as
    the program they run, and whatever git then runs through them cannot be read from the command."""
    if argument is None or argument.value is None:
        scope.cannot_tell(call.part)
        return
    key, _, value = argument.value.partition("=")
    if SAFE_SETTINGS.match(f"{key}={value}") or SAFE_SETTINGS.match(key):
        return
    if COMMAND_SETTINGS.match(key) or key.lower().startswith(("alias.", "core.hookspath", "include")):
        scope.raise_to("high", "git_runs_program", f"-c {key}")
    scope.cannot_tell(f"git -c {key}=…")
    _program(key, value, scope)


def _program(key: str, value: str, scope: Scope) -> None:
    """What a setting makes git run: an alias's command (`!…` a shell command, else a git command), a program
    (core.pager, core.sshCommand, core.fsmonitor, filter.x.clean …); other settings run nothing themselves."""
    lowered = key.lower()
    if lowered.startswith("alias."):
        if value.startswith("!"):
            scope.script(value[1:])
        elif (words := split(value)) is not None:
            scope.run([Word.literal("git"), *words])
        else:
            scope.cannot_tell(f"git alias {key}")
    elif COMMAND_SETTINGS.match(lowered) and value.strip():
        scope.script(value)


def _read(verb: str, rest: list[Word], call: Call, scope: Scope) -> None:
    parsed = parse(rest, frozenset({"--output", "-o", "--ext-diff", "-O", "--open-files-in-pager"}))
    for target in parsed.values("--output"):
        scope.write(target)
    if verb in ("diff", "log", "show") and parsed.has("--ext-diff", "--textconv"):
        scope.raise_to("medium", "runs_project", call.part)
    if verb == "ls-remote":
        scope.raise_to("medium", "git_remote", call.part)
    if verb == "instaweb":
        scope.raise_to("medium", "serves", call.part)


def _after(rest: list[Word], word: str) -> list[Word] | None:
    """The words after the first `word` among `rest` (`git bisect run CMD…`: CMD's own options are its own)."""
    for index, each in enumerate(rest):
        if each.value == word:
            return rest[index + 1:]
        if each.value is None or not each.value.startswith("-"):
            return None
    return None


def _changes(verb: str, rest: list[Word], call: Call, scope: Scope) -> None:
    parsed = parse(rest, frozenset({"-m", "--message", "-F", "--file", "-b", "-B", "-c", "-C", "--author", "--date",
                                    "-t", "--template", "-x", "--exec", "-s", "--strategy", "-X", "--onto", "--depth",
                                    "-o", "--origin", "-u", "--upload-pack", "--reference", "--separate-git-dir",
                                    "--branch", "--format", "--prefix", "--output", "--upstream", "--set-upstream-to",
                                    "-e", "--filter", "--jobs", "-j", "--config"}))
    if verb == "clone":  # `git clone -c core.fsmonitor=… url`: the new repository's settings run at checkout
        for setting in parsed.values("-c", "--config"):
            _setting(setting, call, scope)
    if verb == "clean":
        if not parsed.has("-n", "--dry-run") and any(n in ("-f", "--force") for n, _ in parsed.options):
            scope.raise_to("high", "discards_work", "git clean")
        return
    if verb == "reset":
        if parsed.has("--hard", "--merge", "--keep"):
            scope.raise_to("high", "discards_work", "git reset " + " ".join(w.text for w in rest))
        else:
            scope.raise_to("medium", "git_changes", call.part)
        return
    if verb in ("checkout", "restore", "switch"):
        _checkout(verb, parsed.operands, parsed, call, scope)
        return
    if verb == "branch":
        if parsed.has("-M", "-m", "--move") and len(parsed.operands) == 1:  # the current branch renamed
            scope.state["branch"] = parsed.operands[0].value
        if parsed.has("-D", "-f", "--force", "-M", "-C") or ("-d" in [n for n, _ in parsed.options] and
                                                              parsed.has("--force")):
            scope.raise_to("high", "discards_work", "git branch " + " ".join(w.text for w in rest))
        elif parsed.operands or parsed.has("-d", "--delete", "-m", "--move", "-u", "--set-upstream-to"):
            scope.raise_to("medium", "git_changes", call.part)
        return
    if verb == "stash":
        action = parsed.operands[0].value if parsed.operands else ""
        if action in ("drop", "clear"):
            scope.raise_to("high", "discards_work", f"git stash {action}")
        elif action not in ("list", "show"):
            scope.raise_to("medium", "git_changes", call.part)
        return
    if verb in ("filter-branch", "filter-repo", "replace", "fast-import") or (verb == "reflog" and parsed.operands[:1]
                                                                              and parsed.operands[0].value in
                                                                              ("expire", "delete")):
        scope.raise_to("high", "rewrites_history", f"git {verb}")
        return
    if verb == "gc" and any((v or "").startswith("--prune") for v in (w.value for w in rest)):
        scope.raise_to("high", "rewrites_history", call.part)
        return
    if verb == "update-ref" and parsed.has("-d"):
        scope.raise_to("high", "discards_work", call.part)
        return
    if verb == "bisect" and (command := _after(rest, "run")) is not None:
        scope.raise_to("high", "runs_program", "git bisect run")
        if command:
            scope.run(command)
    if verb == "submodule" and (command := _after(rest, "foreach")) is not None:
        joined = " ".join(w.value or "\0" for w in command if w.value != "--recursive")
        if "\0" in joined:
            scope.cannot_tell(call.part)
        else:
            scope.script(joined)
    if verb == "archive":
        for target in parsed.values("-o", "--output"):
            scope.write(target)
    if verb in ("apply", "am") and not parsed.has("--check", "--stat", "--numstat", "--summary", "--cached"):
        scope.wrote(Word.literal("."))  # the working tree gets what the patch holds
    if verb == "format-patch":
        for target in parsed.values("-o", "--output-directory"):
            scope.write(target)
    if verb == "bundle" and parsed.operands[:1] and parsed.operands[0].value == "create" and len(parsed.operands) > 1:
        scope.write(parsed.operands[1])
    if verb == "config":
        _config(parsed, call, scope)
        return
    if verb == "remote" and (not parsed.operands or parsed.operands[0].value in ("-v", "show", "get-url")):
        return
    if verb == "remote" and parsed.operands[0].value in ("add", "set-url"):
        names = [w for w in parsed.operands[1:] if w.value not in ("--push", "--add", "--delete")]
        if len(names) >= 2:
            _points(names[0].value or "", names[-1], scope)
    if verb == "worktree" and parsed.operands[:1] and parsed.operands[0].value == "add" and len(parsed.operands) > 1:
        scope.write(parsed.operands[1])
    if verb == "tag" and not parsed.operands and not parsed.has("-d", "--delete"):
        return
    if verb == "worktree" and parsed.operands[:1] and parsed.operands[0].value == "list":
        return
    if verb in ("fetch", "pull", "clone"):
        _remote(verb, parsed, call, scope)
        return
    if verb == "push":
        push(parse(rest, frozenset({"--repo", "-o", "--push-option", "--receive-pack", "--exec"})), call, scope)
        return
    scope.raise_to("medium", "git_changes", call.part)


def _checkout(verb: str, operands: list[Word], parsed: Parsed, call: Call, scope: Scope) -> None:
    """checkout/switch of a branch is medium; checking out or restoring files over uncommitted changes is high."""
    words = [w.value for w in call.words]
    staged_only = verb == "restore" and ("--staged" in words or "-S" in words) and not (
        "--worktree" in words or "-W" in words)
    force = any(v in ("-f", "--force", "--discard-changes") for v in words)
    files = "--" in words or any(v is not None and (v == "." or re.search(r"\.\w{1,6}$", v) or v.endswith("/")
                                                    or v.startswith(("./", ":/")))
                                 for v in (w.value for w in operands))
    if force or (not staged_only and (verb == "restore" or files)):
        scope.raise_to("high", "discards_work", call.part)
    else:
        scope.raise_to("medium", "git_changes", call.part)
    if verb in ("checkout", "switch") and not files:  # the branch a later `git push` pushes
        new = parsed.value("-b", "-B", "-c", "-C")
        branch = new if new is not None else (operands[0] if operands else None)
        scope.state["branch"] = branch.value if branch is not None and branch.value != "-" else None


def _config(parsed: Parsed, call: Call, scope: Scope) -> None:
    words = [w.value for w in call.words]
    if any(v in ("--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "get", "list")
           for v in words):
        return
    operands = [v for v in words[1:] if v is not None and not v.startswith("-")]
    if len(operands) < 2 and not any(v in ("--unset", "--unset-all", "--add", "--edit", "-e", "--rename-section",
                                          "--remove-section", "set", "unset") for v in words):
        return
    key = (operands[1] if operands and operands[0] in ("set", "unset") and len(operands) > 1 else
           operands[0] if operands else "")
    value = operands[-1] if len(operands) >= 2 else ""
    global_ = any(v in ("--global", "--system", "--file", "-f") for v in words)
    if re.fullmatch(r"remote\.[^=]+\.(push)?url|url\..+\.(push)?insteadof", key, re.IGNORECASE) and len(operands) >= 2:
        remote = key.split(".")[1] if key.lower().startswith("remote.") else key
        _points(remote, Word.literal(value if key.lower().startswith("remote.") else key[4:].rpartition(".")[0]),
                scope)
        return
    if SAFE_SETTINGS.match(f"{key}={value}") or SAFE_SETTINGS.match(key) or BENIGN_SETTINGS.match(key):
        scope.raise_to("medium" if not global_ else "high", "git_changes" if not global_ else "write_gitconfig",
                       call.part if not global_ else "~/.gitconfig")
    elif not (COMMAND_SETTINGS.match(key) or key.lower().startswith(("alias.", "core.hookspath", "include"))):
        scope.cannot_tell(f"git config {key} …")  # it changes what later git commands do (push.default=matching)
        if global_:
            scope.raise_to("high", "write_gitconfig", "~/.gitconfig")
    else:
        scope.raise_to("high", "git_runs_program" if not global_ else "write_gitconfig", key if not global_
                       else "~/.gitconfig")
        if len(operands) >= 2:
            _program(key, value, scope)


def _remote(verb: str, parsed: Parsed, call: Call, scope: Scope) -> None:
    operands = parsed.operands
    url = next((w.value for w in operands if w.value and (re.match(r"^[\w+.-]+://", w.value) or re.match(
        r"^[\w.-]+@[\w.-]+:", w.value))), None)
    host = (host_of(url) or url.split("@")[-1].split(":")[0]) if url else None
    if verb == "clone":
        targets = [w for w in operands if w.value != url]
        target = targets[-1] if targets else Word.literal(
            (url or "").rstrip("/").rpartition("/")[2].removesuffix(".git") or ".")
        scope.write(target)
        if host is not None and not loopback(host):  # what runs from it later is code from that host
            scope.remember(target, Stream(True, None, host, "git clone"))
        if parsed.has("--recurse-submodules", "--recursive"):
            scope.raise_to("medium", "git_remote", call.part)
    scope.raise_to("medium", "git_remote", host or call.part)
    if verb == "pull":
        scope.raise_to("medium", "git_changes", call.part)
        if url is not None:  # not the project's remote: its files are code from that host
            scope.wrote(Word.literal("."), None if host is None or loopback(host) else host)


def _points(remote: str, url: Word, scope: Scope) -> None:
    """A remote's URL set (`git remote set-url origin https://evil.example/r`): every later push, fetch and pull
    goes there, in this command and after it."""
    value = url.value
    if value is None:
        scope.cannot_tell(f"git remote {remote} …")
        return
    host = host_of(value) if "://" in value else (value.split("@")[-1].split(":")[0] if re.match(
        r"^[\w.-]+@[\w.-]+:", value) else None)
    if host is not None and not loopback(host):
        scope.raise_to("high", "remote_url", f"{host} ({remote})")
    else:
        scope.raise_to("medium", "git_changes", f"git remote {remote} {url.text}")


def push(parsed: Parsed, call: Call, scope: Scope) -> None:
    """A branch pushed is medium; force, `+refspec`, --mirror, --delete, `:branch` and main are high."""
    names = {name for name, _ in parsed.options}
    operands = [w.value for w in parsed.operands]
    if None in operands:
        scope.cannot_tell(call.part)
        return
    current = scope.state.get("branch")  # the branch this command checked out, when it did
    refspecs = [current if current is not None and v in ("HEAD", "@") else v for v in operands[1:] if v is not None]
    force = bool(names & {"-f", "--force", "--force-with-lease", "--force-if-includes"})
    if "--mirror" in names:
        scope.raise_to("high", "force_push", "every branch of the remote (--mirror)")
    if "--all" in names or "--branches" in names:
        scope.raise_to("high", "push_main", "every branch")
    if "--delete" in names or "-d" in names:
        for refspec in refspecs:
            scope.raise_to("high", "push_delete", refspec)
    if parsed.has("--receive-pack", "--exec"):
        scope.cannot_tell(call.part)
    remote = operands[0] or "origin" if operands else "origin"
    url = re.match(r"^[\w+.-]+://|^[\w.-]+@([\w.-]+):", remote)
    destination = (host_of(remote) if "://" in remote else url.group(1)) if url is not None else None
    if destination is not None and not loopback(destination):  # a URL, not a remote the repository has
        scope.raise_to("high", "sends_files", destination)
    for word in parsed.operands[1:]:
        refspec = word.value or ""
        if word.globby or re.search(r"[*?\[{]", refspec):  # a pattern or braces: the branches are chosen by git
            scope.cannot_tell(f"git push {clip(word.text, 40)}")
        if refspec.lstrip("+") == ":":
            scope.raise_to("high", "push_main", f"every branch {remote} has too (:)")
    for refspec in refspecs:
        if refspec.lstrip("+") == ":":
            continue
        plus = refspec.startswith("+")
        source, colon, destination = refspec.lstrip("+").partition(":")
        branch = re.sub(r"^refs/heads/", "", destination if colon else source)
        if colon and not source:
            scope.raise_to("high", "push_delete", branch)
        elif force or plus:
            scope.raise_to("high", "force_push", branch if branch != "HEAD" else f"the branch on {remote}")
        elif branch in MAIN_BRANCHES:
            scope.raise_to("high", "push_main", f"{remote} {branch}")
        else:
            scope.raise_to("medium", "push_branch", branch)
    if not refspecs:
        if force:
            scope.raise_to("high", "force_push", current or f"the current branch on {remote}")
        elif current in MAIN_BRANCHES:
            scope.raise_to("high", "push_main", f"{remote} {current}")
        else:
            scope.raise_to("medium", "push_branch", current or "the current branch")

