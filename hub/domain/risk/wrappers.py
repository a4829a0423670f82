"""Programs that run another command: the command they run is judged (`nice -n5 timeout 10 rm -rf ~` deletes the home
folder), with what they add: `sudo` runs it as root, `xargs` gives it words read at run time, `env -S` splits a
string into it, `flock -c`, `script -c`, `watch` and `tmux new` run a string as a shell command."""

from __future__ import annotations

import re

from hub.domain.risk.options import parse
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.variables import assignment
from hub.domain.risk.words import Word, split

# Options that take a value, for the wrappers that take options only before the command.
_VALUES: dict[str, frozenset[str]] = {
    "nice": frozenset({"-n", "--adjustment"}), "ionice": frozenset({"-c", "-n", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}), "stdbuf": frozenset({"-i", "-o", "-e"}),
    "taskset": frozenset({"-c", "--cpu-list"}), "chrt": frozenset({"-T", "-P", "-D"}),
    "caffeinate": frozenset({"-t", "-w"}), "nohup": frozenset(), "setsid": frozenset(), "unbuffer": frozenset(),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-P", "-I", "-X", "-O", "-S"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n", "-l", "-L", "-x"}),
    "valgrind": frozenset(), "catchsegv": frozenset(), "systemd-run": frozenset({"-u", "--unit", "-p", "--property",
                                                                                 "-E", "--setenv"}),
    "dotenv": frozenset({"-f", "-e", "-c", "-v"}), "firejail": frozenset(),
    "proxychains": frozenset({"-f"}), "proxychains4": frozenset({"-f"}), "torsocks": frozenset(),
    "nsenter": frozenset({"-t", "-m", "-u", "-i", "-n", "-p", "-U", "-S", "-G"}), "unshare": frozenset(),
    "prlimit": frozenset(), "cpulimit": frozenset({"-l", "-p"}), "numactl": frozenset(), "gtimeout": frozenset(
        {"-s", "-k"}), "with-contenv": frozenset(), "direnv": frozenset(), "entr": frozenset(),
}
_AS_ROOT = {"sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group",
                               "--close-from", "--chdir", "--host", "--prompt", "--role", "--type",
                               "--command-timeout", "--other-user"}),
            "doas": frozenset({"-u", "-C"}), "pkexec": frozenset({"--user"}), "runuser": frozenset({"-u", "-g", "-G"}),
            "run0": frozenset({"-u", "--user", "-D", "--chdir"})}


def wrapper(call: Call, scope: Scope) -> None:
    values = _VALUES.get(call.name, frozenset())
    parsed = parse(call.words, values, first_operand_stops=True)
    operands = parsed.operands
    if call.name in ("timeout", "gtimeout") and operands:
        operands = operands[1:]  # the duration
    if call.name == "direnv":
        if operands[:1] and operands[0].value == "exec":
            operands = operands[2:]
        elif operands[:1] and operands[0].value in ("allow", "permit", "grant"):
            scope.cannot_tell(call.part)  # the .envrc then runs in every shell that enters the folder
            return
        else:
            return
    if call.name == "taskset" and not parsed.has("-c", "--cpu-list") and operands:
        operands = operands[1:]  # the mask
    if call.name == "chrt" and operands:
        operands = operands[1:]  # the priority
    for target in parsed.values("-o") if call.name in ("strace", "ltrace") else []:
        scope.write(target)
    if call.name in ("firejail", "proxychains", "proxychains4", "torsocks", "nsenter", "unshare", "systemd-run"):
        scope.raise_to("medium")
    if call.name == "systemd-run":
        scope.raise_to("high", "changes_system", call.part)
    if operands:
        scope.run(operands, call.stdin)


def as_root(call: Call, scope: Scope) -> None:
    """sudo, doas, pkexec, runuser: high themselves, and what they run is judged as well."""
    parsed = parse(call.words, _AS_ROOT.get(call.name, frozenset()), first_operand_stops=True)
    scope.raise_to("high", "as_root", call.part)
    if parsed.has("-e", "--edit"):
        for operand in parsed.operands:
            scope.write(operand)
        return
    if parsed.operands:
        scope.run(parsed.operands, call.stdin)


def su(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-c", "--command", "-s", "--shell", "-g", "-G", "-w"}))
    scope.raise_to("high", "as_root", call.part)
    for text in parsed.values("-c", "--command"):
        if text.value is None:
            scope.cannot_tell(call.part)
        else:
            scope.script(text.value)
    if parsed.has("-s", "--shell"):
        scope.cannot_tell(call.part)


def chroot(call: Call, scope: Scope) -> None:
    scope.raise_to("high", "as_root", call.part)
    scope.cannot_tell(call.part)  # inside another root, a name means another file


def env(call: Call, scope: Scope) -> None:
    """env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… [COMMAND…]"""
    scope = scope.nested()  # its -C and NAME=VALUE are the command's, not the shell's
    words = list(call.words)
    index = 0
    while index < len(words):
        word = words[index]
        value = word.value
        if value is None:
            break
        split_text: str | None = None
        if value in ("-S", "--split-string") and index + 1 < len(words):
            split_text = words[index + 1].value
            if split_text is None:
                scope.cannot_tell(call.part)
                return
            del words[index:index + 2]
        elif match := re.fullmatch(r"-[i0v]*S(.+)|--split-string=(.*)", value, re.DOTALL):
            split_text = match.group(1) if match.group(1) is not None else match.group(2)
            del words[index]
        if split_text is not None:
            parts = split(split_text)
            if parts is None:
                scope.cannot_tell(call.part)
                return
            words[index:index] = parts
            continue
        if value in ("-u", "--unset") and index + 1 < len(words):
            index += 2
        elif value in ("-C", "--chdir") and index + 1 < len(words):
            here = scope.folders.resolve(words[index + 1].value or "") if words[index + 1].value else None
            scope.folders = scope.folders.moved(scope.through_folder(here))
            index += 2
        elif value.startswith("-") and value != "-":
            index += 1
        elif "=" in value and re.match(r"[A-Za-z_]\w*=", value):
            name, _, assigned = value.partition("=")
            assignment(name, Word(word.text, assigned, False, False), scope)
            index += 1
        else:
            break
    if index < len(words):
        scope.run(words[index:], call.stdin)


def flock(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"}),
                   first_operand_stops=True)
    for text in parsed.values("-c", "--command"):
        _text(text, call, scope)
    if len(parsed.operands) > 1:
        rest = parsed.operands[1:]
        if rest[0].value in ("-c", "--command") and len(rest) > 1:
            _text(rest[1], call, scope)
        else:
            scope.run(rest, call.stdin)


def script(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-c", "--command", "-T", "--log-timing", "-I", "--log-in", "-O",
                                          "--log-out", "-B", "--log-io", "-E", "--echo", "-m", "--logging-format",
                                          "-o", "--output-limit"}))
    commands = parsed.values("-c", "--command")
    for text in commands:
        _text(text, call, scope)
    for target in parsed.operands[:1] or ([Word.literal("typescript")] if commands else []):
        scope.write(target)
    if not commands:
        scope.cannot_tell(call.part)  # an interactive shell on whatever reaches it


def watch(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-n", "--interval", "-d", "-q", "--equexit"}), first_operand_stops=True)
    if parsed.has("-x", "--exec"):
        scope.run(parsed.operands)
    elif parsed.operands:
        _text(Word.literal(" ".join(w.value or "\0" for w in parsed.operands)) if all(
            w.value is not None for w in parsed.operands) else parsed.operands[0], call, scope)


_TMUX_RUNS = frozenset({"new", "new-session", "neww", "new-window", "splitw", "split-window", "respawnp",
                        "respawn-pane", "respawnw", "respawn-window", "run", "run-shell", "if", "if-shell", "popup",
                        "display-popup", "send", "send-keys"})
_TMUX_SAFE = frozenset({"ls", "list-sessions", "lsw", "list-windows", "lsp", "list-panes", "has", "has-session",
                        "kill-session", "kill-window", "kill-pane", "kill-server", "attach", "attach-session", "a",
                        "detach", "detach-client", "capture-pane", "capturep", "display", "display-message",
                        "select-pane", "selectp", "select-window", "selectw", "resize-pane", "resizep", "rename-window",
                        "renamew", "rename-session", "wait-for", "wait", "show", "show-options", "list-keys", "lsk"})
_TMUX_VALUES = frozenset({"-s", "-n", "-t", "-c", "-x", "-y", "-e", "-F", "-l", "-p", "-L", "-S", "-f", "-w", "-h",
                          "-T", "-N", "-b", "-d"}) - {"-d", "-h", "-b"}
_KEY_NAMES = re.compile(r"^(Enter|C-\w|M-\w|Escape|Space|Tab|BSpace|Up|Down|Left|Right|Home|End|PageUp|PageDown"
                        r"|PPage|NPage|F\d+|KP\w+)$")


def tmux(call: Call, scope: Scope) -> None:
    words = call.words
    index = 0
    while index < len(words) and (words[index].value or "").startswith("-"):
        if words[index].value == "-c" and index + 1 < len(words):
            _text(words[index + 1], call, scope)
            return
        if words[index].value == "-f":
            scope.cannot_tell(call.part)
        index += 2 if words[index].value in ("-L", "-S", "-f") else 1
    if index >= len(words):
        return
    verb = words[index].value
    if verb in _TMUX_SAFE:
        return
    if verb not in _TMUX_RUNS:
        scope.cannot_tell(call.part)
        return
    parsed = parse(words[index + 1:], _TMUX_VALUES)
    operands = parsed.operands
    if verb in ("send", "send-keys"):
        operands = [w for w in operands if w.value is None or not _KEY_NAMES.match(w.value)]
        if parsed.has("-X", "-H"):
            scope.cannot_tell(call.part)
    if not operands:
        return
    if any(w.value is None for w in operands):
        scope.cannot_tell(call.part)
        return
    _text(Word.literal(" ".join(w.value or "" for w in operands)), call, scope)


def _text(text: Word, call: Call, scope: Scope) -> None:
    if text.value is None:
        scope.cannot_tell(call.part)
    else:
        scope.script(text.value)


def busybox(call: Call, scope: Scope) -> None:
    if call.words and not (call.words[0].value or "").startswith("-"):
        scope.run(call.words, call.stdin)


def xargs(call: Call, scope: Scope) -> None:
    """The command xargs runs gets words read from its input at run time: `ls | xargs rm` deletes whatever ls
    printed."""
    parsed = parse(call.words, frozenset({"-I", "-L", "-l", "-n", "-P", "-d", "-a", "-E", "-e", "-s",
                                          "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace",
                                          "--max-lines", "--eof", "--max-chars", "--process-slot-var"}),
                   first_operand_stops=True)
    command = parsed.operands or [Word.literal("echo")]
    replace = parsed.value("-I", "--replace")
    marker = replace.value if replace is not None else ("{}" if parsed.has("-i") else None)
    unknown = Word("(words read at run time)", None, False, False)
    if marker:
        command = [unknown if w.value is not None and marker in w.value else w for w in command]
    else:
        command = [*command, unknown]
    scope.run(command)


def hyperfine(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M", "--max-runs",
                                          "-p", "--prepare", "-c", "--cleanup", "-s", "--setup", "-S", "--shell",
                                          "-n", "--command-name", "-L", "--parameter-list", "--export-json",
                                          "--export-markdown", "--export-csv", "-u", "--time-unit"}))
    if parsed.has("-S", "--shell", "-L", "--parameter-list"):
        scope.cannot_tell(call.part)
    for text in parsed.operands + parsed.values("-p", "--prepare", "-c", "--cleanup", "-s", "--setup"):
        _text(text, call, scope)
    for target in parsed.values("--export-json", "--export-markdown", "--export-csv"):
        scope.write(target)


def parallel(call: Call, scope: Scope) -> None:
    scope.cannot_tell(call.part)


PROGRAMS = {
    **{name: wrapper for name in _VALUES}, **{name: as_root for name in _AS_ROOT}, "su": su, "chroot": chroot,
    "env": env, "flock": flock, "script": script, "watch": watch, "tmux": tmux, "busybox": busybox, "xargs": xargs,
    "hyperfine": hyperfine, "parallel": parallel, "screen": parallel, "gdb": parallel, "lldb": parallel,
    "expect": parallel, "sudoedit": as_root,
}
