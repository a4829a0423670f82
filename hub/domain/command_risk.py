"""How risky a shell command or a file change is, judged from the parsed command: the highest risk of any part.

A keyword list over the text labelled `npm run lint && true … ; python3 -c '…urlopen(…)…'` "medium"
(docs/security.md#what-an-approval-shows). Here the command is parsed with tree-sitter's Bash grammar
and every command in it is judged on its own: each part of `;`, `&&`, `||` and pipes, `$(…)`, backticks and
process substitutions, the string given to `sh -c` / `bash -c` / `eval` (parsed again), the code given to
`python -c`, `node -e`, `perl -e` … or fed to them by a heredoc or a here-string, whatever is piped into a shell
or an interpreter, and SQL given to a database client (its arguments, a heredoc, a here-string, what the pipe's
earlier parts hold). The level is never lower than what any part alone would get; each reason names the part.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from hub.protocol.vocabulary import RISK_LEVELS, RiskLevel

MAX_DEPTH = 6          # sh -c "sh -c '…'" nesting followed this deep; deeper is itself a reason for "high"
MAX_NODES = 200_000    # a 64 KiB command parses to far fewer; past this the rest is judged as unparsed text
MAX_COMMANDS = 2_000   # distinct commands judged one by one (~50 µs each); more is itself a reason for "high"

DELETE = {"rm", "rmdir", "shred", "unlink", "srm", "wipe", "wipefs", "dd", "truncate", "fdisk", "sfdisk", "parted",
          "mkswap"}
NETWORK = {"curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "ftp", "tftp", "telnet",
           "aria2c", "http", "https", "xh", "lynx", "links", "w3m", "nmap", "ping", "dig", "nslookup"}
PRIVILEGE = {"sudo", "su", "doas", "pkexec", "runuser", "chmod", "chown", "chgrp", "chattr", "setfacl", "setcap",
             "passwd", "useradd", "userdel", "usermod", "visudo"}
SYSTEM = {"kill", "killall", "pkill", "shutdown", "reboot", "halt", "poweroff", "systemctl", "service", "launchctl",
          "crontab", "iptables", "nft", "ufw", "mount", "umount", "insmod", "rmmod", "modprobe", "sysctl", "at"}
CONTAINER_VERBS = {"rm", "rmi", "kill", "stop", "delete", "prune", "system", "volume", "exec", "run", "push"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox", "csh", "tcsh"}
INTERPRETERS = {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby",
                "php", "lua", "osascript", "pwsh", "powershell", "Rscript", "tclsh", "awk", "gawk"}
INLINE_FLAGS = {"-c", "-e", "-E", "-r", "--eval", "-Command", "-command", "--command", "--print", "-p"}
# Words that run the word after them as the command (their own options skipped).
WRAPPERS = {"env", "nohup", "time", "nice", "ionice", "timeout", "stdbuf", "command", "builtin", "exec", "xargs",
            "watch", "strace", "ltrace", "chroot", "unbuffer", "caffeinate", "flock", "setsid", "taskset", "npx",
            "bunx", "pnpx"}
# Words that run the word after them as another user: high themselves, and what they run is judged too (options
# that take a value are skipped with it: `sudo -u deploy -E bash`).
AS_USER_VALUE_OPTIONS = {
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group", "--close-from",
             "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user"},
    "doas": {"-u", "-C"},
}
# Database clients: SQL given to them that drops or empties tables (or changes every row) is high risk.
DATABASE_CLIENTS = {"psql", "pgcli", "mysql", "mariadb", "mycli", "mysqlsh", "sqlite3", "sqlite", "litecli", "sqlcmd",
                    "duckdb", "clickhouse-client", "clickhouse", "cockroach", "cqlsh", "snowsql", "bq"}
DESTRUCTIVE_SQL = re.compile(r"\b(?:DROP\s+(?:(?:TEMP|TEMPORARY|MATERIALIZED|FOREIGN)\s+)?"
                             r"(?:TABLE|DATABASE|SCHEMA|VIEW|INDEX|USER|ROLE|COLUMN|OWNED|KEYSPACE|FUNCTION|PROCEDURE"
                             r"|SEQUENCE|EXTENSION|TRIGGER|TYPE|DOMAIN|POLICY)"
                             r"|TRUNCATE)\b", re.IGNORECASE)
# Removed before looking for WHERE (`DELETE FROM t -- WHERE …` has none); not before the rest: `--command=…`.
SQL_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
PRINTERS = {"echo", "printf"}  # what they print into a pipe is plain to read: judged as what the next program runs
WHOLE_TABLE_SQL = re.compile(r"\bDELETE\s+FROM\b|\bUPDATE\s+\S+\s+SET\b", re.IGNORECASE)
WRAPPER_VALUE_OPTIONS = {"-n", "-s", "-k", "-u", "-g", "-c", "-p", "-I", "-L", "-P", "-d", "-E", "-a", "-o", "-i"}
TEMPORARY = ("/tmp/", "/var/tmp/")  # noqa: S108 - compared against a command's redirect, never used as a file
# Paths whose change is high risk wherever the agent works: its own permissions, shells' start-up files, keys.
SENSITIVE_PATHS = re.compile(
    r"(^|/)(\.claude/settings(\.local)?\.json|\.codex/config\.toml|\.gemini/settings\.json|\.ssh/|\.gnupg/|\.aws/"
    r"|\.bashrc|\.bash_profile|\.profile|\.zshrc|\.zprofile|\.config/fish/|\.git/hooks/|\.git/config|\.npmrc|\.pypirc"
    r"|\.netrc|\.docker/config\.json|\.kube/config|\.env$)")
# Inline code that reaches the network, runs other programs, deletes, or hides what it does.
# Each sign's code names its reasons: code_<sign> ("runs python3 code that …") and text_<sign> (REASONS).
CODE_SIGNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("network", re.compile(
        r"urlopen|urllib|requests\.|http\.client|httpx|aiohttp|socket|fetch\s*\(|XMLHttpRequest|require\(\s*['\"]"
        r"(?:node:)?(?:https?|net|dgram|tls)['\"]|from\s+['\"](?:node:)?(?:https?|net)['\"]|LWP::|Net::|open-uri"
        r"|Net::HTTP|curl|wget|websocket", re.IGNORECASE)),
    ("programs", re.compile(
        r"\bexec\s*\(|\beval\s*\(|__import__|subprocess|os\.system|os\.popen|os\.exec|os\.spawn|\bpty\b"
        r"|child_process|execSync|spawnSync|\bspawn\s*\(|\bsystem\s*\(|Popen|`[^`]+`|\bqx[{(/]|Runtime\.getRuntime"
        r"|Start-Process|Invoke-Expression|\biex\b")),
    ("deletes", re.compile(
        r"rmtree|os\.remove|os\.unlink|\bunlink|os\.rmdir|\brmdir|fs\.rm|rimraf|rmSync|Remove-Item|File\.delete"
        r"|FileUtils\.rm|\.unlink\(|truncate")),
    ("hidden", re.compile(r"base64|b64decode|atob\s*\(|fromCharCode|codecs\.decode|\\x[0-9a-f]{2}.*"
                                       r"\\x[0-9a-f]{2}.*\\x[0-9a-f]{2}|marshal\.loads|zlib\.decompress",
                                       re.IGNORECASE)),
)


# Every reason as a code and its English text; {part} is the part of the command or the file it comes from. The
# stored approval carries both (`riskReasonCodes` and `riskReasons`, docs/protocol.md): the app shows each code in the
# person's language with its string `risk.reason.<code>` (ui/lib/strings-en.js, strings-zh.js), and the English
# text goes to chat relays and to apps that do not know a code.
REASONS: dict[str, str] = {
    "nested_too_deep": "nests shells too deep to follow",
    "unparsed": "parts of it could not be parsed",
    "too_long": "too long to parse fully",
    "too_many_commands": "has more than {part} commands, too many to judge one by one",
    "runtime_command": "runs a command chosen at run time ({part})",
    "runtime_text": "{part} runs text chosen at run time",
    "script": "runs the script {part}",
    "deletes": "deletes or overwrites data ({part})",
    "network": "uses the network ({part})",
    "privilege": "changes permissions or runs as another user ({part})",
    "system": "stops processes or changes the system ({part})",
    "privilege_or_system": "changes permissions or the system ({part})",
    "containers": "changes containers ({part})",
    "database": "changes or deletes database data ({part})",
    "runtime_code": "{part} runs code chosen at run time",
    "inline_code": "runs inline {part} code",
    "code_network": "runs {part} code that uses the network",
    "code_programs": "runs {part} code that runs other programs",
    "code_deletes": "runs {part} code that deletes files",
    "code_hidden": "runs {part} code that decodes hidden code",
    "text_network": "contains code that uses the network",
    "text_programs": "contains code that runs other programs",
    "text_deletes": "contains code that deletes files",
    "text_hidden": "contains code that decodes hidden code",
    "piped_code": "runs what is piped into {part}",
    "runtime_file": "writes to a file chosen at run time",
    "writes_sensitive": "writes to {part}",
    "writes_outside": "writes outside the project ({part})",
    "git_push": "changes a remote repository ({part})",
    "discards_work": "discards work ({part})",
    "deletes_files": "deletes files ({part})",
    "registry": "publishes or changes a registry ({part})",
    "packages": "installs or changes packages ({part})",
    "changes_sensitive": "changes {part}",
    "changes_outside": "changes a file outside the working folder ({part})",
    "hidden_characters": "contains invisible or direction-changing characters ({part})",
    "runs_hooks": "runs the repository’s hooks ({part}), programs an agent could have written",
    "tool_sql": "{part} is given SQL that drops, empties or changes every row",
}


@dataclass
class Assessment:
    """A risk level and the reasons for it, each naming the part of the command it comes from: `reasons` in English,
    `codes` the same reasons as {"code", "part"?} for the app to show in the person's language (REASONS)."""

    level: RiskLevel = "low"
    reasons: list[str] = field(default_factory=list)
    codes: list[dict[str, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set, repr=False)  # the commands judged so far (each once)

    def raise_to(self, level: RiskLevel, code: str | None = None, part: str | None = None) -> None:
        if RISK_LEVELS.index(level) > RISK_LEVELS.index(self.level):
            self.level = level
        if code is None:
            return
        reason = REASONS[code].replace("{part}", part or "")
        if reason not in self.reasons and len(self.reasons) < 12:
            self.reasons.append(reason)
            self.codes.append({"code": code, "part": part} if part is not None else {"code": code})


    def merge(self, other: Assessment) -> None:
        """Take on `other`'s level and reasons (an approval of several items: the highest of them)."""
        if RISK_LEVELS.index(other.level) > RISK_LEVELS.index(self.level):
            self.level = other.level
        for reason, code in zip(other.reasons, other.codes, strict=True):
            if reason not in self.reasons and len(self.reasons) < 12:
                self.reasons.append(reason)
                self.codes.append(code)


def higher(a: RiskLevel, b: RiskLevel) -> RiskLevel:
    return a if RISK_LEVELS.index(a) >= RISK_LEVELS.index(b) else b


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def assess_command(command: str, cwd: str | None = None) -> Assessment:
    """The risk of running `command` in a shell: at least medium (it is a command), high if any part is."""
    found = Assessment(level="medium")
    _assess(command, found, depth=0)
    return found


def _clip(text: str, size: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"


def _assess(command: str, found: Assessment, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.raise_to("high", "nested_too_deep")
        return
    source = command.encode("utf-8", "surrogatepass")
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        found.raise_to("medium", "unparsed")
        _scan_words(command, found)
    budget = [MAX_NODES]
    _walk(tree.root_node, source, found, depth, budget)


def _text(node: Any, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _literal(node: Any, source: bytes) -> str | None:
    """A word's value as the shell would see it, or None when it depends on an expansion at run time."""
    text = _text(node, source)
    if node.type in ("word", "command_name") and not _QUOTING.search(text):
        return text  # the common case, without shlex
    if _has_expansion(node):
        return None
    try:
        parts = shlex.split(text, posix=True)
    except ValueError:
        return text
    return " ".join(parts) if parts else ""


_QUOTING = re.compile(r"[\\'\"$`]")


def _has_expansion(node: Any) -> bool:
    if node.type in ("simple_expansion", "expansion", "command_substitution", "process_substitution",
                     "arithmetic_expansion"):
        return True
    return any(_has_expansion(child) for child in node.children)


def _walk(node: Any, source: bytes, found: Assessment, depth: int, budget: list[int]) -> None:
    # A tree cursor, not `node.children`: a long `a && b && …` is a list nested thousands deep, and building every
    # node's children list made a 64 KiB command take seconds; the cursor walks it in milliseconds.
    cursor = node.walk()
    while True:
        budget[0] -= 1
        if budget[0] < 0:
            found.raise_to("medium", "too_long")
            _scan_words(_text(node, source), found)
            return
        current = cursor.node
        kind = current.type
        if kind == "command":
            _command(current, source, found, depth)
        elif kind == "pipeline":
            _pipeline(current, source, found, depth)
        elif kind == "file_redirect":
            _redirect(current, source, found)
        elif kind == "redirected_statement":
            _heredoc(current, source, found, depth)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _words(command: Any, source: bytes) -> tuple[str | None, list[str | None]]:
    """(the command's name, its arguments), each a literal value or None when chosen at run time."""
    name_node = command.child_by_field_name("name")
    name = _literal(name_node, source) if name_node is not None else ""
    arguments = [_literal(child, source) for child in command.children_by_field_name("argument")]
    return name, arguments


def _base(name: str) -> str:
    return name.rpartition("/")[2]


def _command(node: Any, source: bytes, found: Assessment, depth: int) -> None:
    text = _text(node, source)
    if text in found.seen:  # `&& true` seven hundred times is judged once
        return
    found.seen.add(text)
    if len(found.seen) > MAX_COMMANDS:
        found.raise_to("high", "too_many_commands", str(MAX_COMMANDS))
        return
    name, arguments = _words(node, source)
    _judge(name, arguments, found, depth, node, source)
    _herestrings(node, source, found, depth)


def _judge(name: str | None, arguments: list[str | None], found: Assessment, depth: int, node: Any,
           source: bytes) -> None:
    if name is None:
        found.raise_to("high", "runtime_command", _clip(_text(node, source), 40))
        return
    base = _base(name)
    if not base:
        return
    if base in WRAPPERS or base in AS_USER_VALUE_OPTIONS:
        if base in AS_USER_VALUE_OPTIONS:
            found.raise_to("high", "privilege", base)
        rest = _skip_wrapper_options(base, arguments)
        if rest:
            _judge(rest[0], rest[1:], found, depth, node, source)
        return
    if base in ("eval", "source", "."):
        code = " ".join(a for a in arguments if a is not None)
        if any(a is None for a in arguments):
            found.raise_to("high", "runtime_text", base)
        if base == "eval":
            _assess(code, found, depth + 1)
        else:
            found.raise_to("medium", "script", _clip(code, 40))
        return
    if base in DELETE:
        found.raise_to("high", "deletes", base)
    elif base in NETWORK:
        found.raise_to("high", "network", base)
    elif base in PRIVILEGE:
        found.raise_to("high", "privilege", base)
    elif base in SYSTEM:
        found.raise_to("high", "system", base)
    elif base == "git":
        _git(arguments, found)
    elif base == "find":
        _find(arguments, found, depth, node, source)
    elif base in ("npm", "pnpm", "yarn", "pip", "pip3", "uv", "cargo", "gem", "go", "brew", "apt", "apt-get", "dnf",
                  "yum", "pacman", "poetry"):
        _package_manager(base, arguments, found)
    elif base in SHELLS or _interpreter(base):
        _interpreter_call(base, arguments, found, depth)
    elif base in ("docker", "podman", "kubectl") and arguments and arguments[0] in CONTAINER_VERBS:
        found.raise_to("high", "containers", f"{base} {arguments[0]}")
    elif base in DATABASE_CLIENTS:
        # The command's own text, quotes and expansions included: `psql -c "DROP TABLE $T"` drops whatever $T is.
        _sql(base, _text(node, source), found)


def _sql(base: str, text: str, found: Assessment) -> None:
    """SQL for a database client: high when a statement drops or truncates, or deletes or updates without WHERE."""
    for statement in text.split(";"):
        if DESTRUCTIVE_SQL.search(statement) or (WHOLE_TABLE_SQL.search(statement) and not re.search(
                r"\bWHERE\b", SQL_COMMENT.sub(" ", statement), re.IGNORECASE)):
            found.raise_to("high", "database", base)
            return


def _skip_wrapper_options(wrapper: str, arguments: list[str | None]) -> list[str | None]:
    """The wrapped command and its arguments: the wrapper's options (and their values) and env's NAME=value skipped."""
    rest = list(arguments)
    value_options = AS_USER_VALUE_OPTIONS.get(wrapper, WRAPPER_VALUE_OPTIONS)
    while rest:
        word = rest[0]
        if word is None:
            return rest
        if wrapper == "env" and "=" in word and not word.startswith("-"):
            rest.pop(0)
            continue
        if word.startswith("-"):
            rest.pop(0)
            if word in value_options and rest:
                rest.pop(0)
            continue
        if wrapper == "timeout" and re.fullmatch(r"[0-9.]+[smhd]?", word):
            rest.pop(0)
            continue
        break
    return rest


_VERSIONED_INTERPRETER = re.compile(r"python[0-9.]*|pypy[0-9.]*|node[0-9]*|ruby[0-9.]*|perl[0-9.]*")


def _interpreter(base: str) -> bool:
    return base in INTERPRETERS or _VERSIONED_INTERPRETER.fullmatch(base) is not None


def _interpreter_call(base: str, arguments: list[str | None], found: Assessment, depth: int) -> None:
    inline = None
    for index, word in enumerate(arguments):
        if word in INLINE_FLAGS and index + 1 < len(arguments):
            inline = arguments[index + 1]
            if inline is None:
                found.raise_to("high", "runtime_code", base)
                return
            break
        # Short options run together end with the inline flag: bash -lc "…", python3 -Bc "…", perl -pe "…".
        if word is not None and re.fullmatch(r"-[a-zA-Z]*[cer]", word) and index + 1 < len(arguments):
            inline = arguments[index + 1]
            if inline is None:
                found.raise_to("high", "runtime_code", base)
                return
            break
    if inline is None:
        if base in ("awk", "gawk") and arguments and arguments[0] is not None:
            _code(base, arguments[0], found)
        return
    if base in SHELLS:
        _assess(inline, found, depth + 1)
    else:
        _code(base, inline, found)


def _code(base: str, code: str, found: Assessment) -> None:
    """Inline code for an interpreter: medium, or high with a reason for each sign of danger in it."""
    found.raise_to("medium", "inline_code", base)
    for sign_code, sign in CODE_SIGNS:
        if sign.search(code):
            found.raise_to("high", f"code_{sign_code}", base)


def _unwrap(base: str, arguments: list[str | None]) -> tuple[str, list[str | None]]:
    """The program a command really runs, through wrappers and `sudo`: sudo -E env X=1 bash -> bash."""
    for _ in range(MAX_DEPTH):
        if base not in WRAPPERS and base not in AS_USER_VALUE_OPTIONS:
            break
        rest = _skip_wrapper_options(base, arguments)
        if not rest or rest[0] is None:
            break
        base, arguments = _base(rest[0]), rest[1:]
    return base, arguments


def _command_of(node: Any) -> Any:
    """The command of a pipeline's part (`cmd` or `cmd > file`), or None for anything else (a subshell, a loop)."""
    command = node if node.type == "command" else node.child_by_field_name("body")
    return command if command is not None and command.type == "command" else None


def _pipeline(node: Any, source: bytes, found: Assessment, depth: int) -> None:
    """Whatever is piped into a shell or an interpreter is code it runs (curl … | sh); text printed into one, or
    into a database client, is judged as what it runs (echo 'drop table t' | psql)."""
    parts = [child for child in node.children if child.is_named]  # commands, `{ … }`, `( … )`; not the `|`s
    for position, child in enumerate(parts):
        command = _command_of(child)
        if position == 0 or command is None:
            continue
        name, arguments = _words(command, source)
        if name is None:
            continue
        base, arguments = _unwrap(_base(name), arguments)
        code_given = any(a in INLINE_FLAGS for a in arguments) or (base in ("awk", "gawk") and arguments)
        files_given = [a for a in arguments if a is not None and not a.startswith("-")]
        if (base in SHELLS or _interpreter(base)) and not code_given and (not files_given or "-s" in arguments):
            found.raise_to("high", "piped_code", base)
        printed = _printed_text(parts[position - 1], source)
        if printed is not None:
            _fed(base, printed, found, depth)
        if base in DATABASE_CLIENTS:  # every earlier part, `{ echo …; }` and `( … )` included
            _piped_sql(base, [_text(part, source) for part in parts[:position]],
                       any(_has_expansion(part) for part in parts[:position]), found)


def _receiver(command: Any, source: bytes) -> str | None:
    """The program a pipe's later part really runs (through wrappers), when it reads the pipe rather than code of
    its own (`bash`, not `bash -c '…'` or `python3 script.py`); None otherwise."""
    name, arguments = _words(command, source)
    if name is None:
        return None
    base, arguments = _unwrap(_base(name), arguments)
    code_given = any(a in INLINE_FLAGS for a in arguments)
    files_given = [a for a in arguments if a is not None and not a.startswith("-")]
    if (base in SHELLS or _interpreter(base)) and (code_given or (files_given and "-s" not in arguments)):
        return None
    return base


def _piped_sql(base: str, upstream: list[str], chosen_at_run_time: bool, found: Assessment) -> None:
    """SQL reaching a database client through a pipe: the text of the pipe's earlier parts is judged as SQL
    (`echo 'drop table t' | cat | psql`, `{ echo …; } | psql`); text built at run time, or by printf's formats and
    echo's escapes, cannot be read from the card, so it is high as eval of run-time text is."""
    text = re.sub(r"\\[nt]", " ", "\n".join(upstream))  # printf's and echo -e's line breaks and tabs
    _sql(base, text, found)
    if chosen_at_run_time or re.search(r"\bprintf\b.*(?:%|\\[^nt])|\becho\s+-\w*e.*\\|\$'", text, re.DOTALL):
        found.raise_to("high", "runtime_text", base)


def _printed_text(node: Any, source: bytes) -> str | None:
    """What `echo`/`printf` with literal arguments write to the pipe; None for any other command."""
    command = _command_of(node)
    if command is None:
        return None
    name, arguments = _words(command, source)
    if name is None or _base(name) not in PRINTERS:
        return None
    return " ".join(a for a in arguments if a is not None and not a.startswith("-"))


def _runs_text(base: str) -> bool:
    """Programs that run what they are given on standard input: shells, interpreters, database clients."""
    return base in SHELLS or _interpreter(base) or base in DATABASE_CLIENTS


def _fed(base: str, text: str, found: Assessment, depth: int) -> None:
    """Text given on standard input (a heredoc, a here-string, a printed pipe) is what the program runs."""
    if base in SHELLS:
        _assess(text, found, depth + 1)
    elif _interpreter(base):
        _code(base, text, found)
    elif base in DATABASE_CLIENTS:
        _sql(base, text, found)


def _herestrings(node: Any, source: bytes, found: Assessment, depth: int) -> None:
    """A here-string fed to a shell, an interpreter or a database client (psql <<< 'drop table t')."""
    redirects = [r for r in node.children_by_field_name("redirect") if r.type == "herestring_redirect"]
    if not redirects:
        return
    name, arguments = _words(node, source)
    if name is None:
        return
    base, _ = _unwrap(_base(name), arguments)
    for redirect in redirects:
        for part in redirect.children:
            if part.type != "<<<":
                text = _literal(part, source)
                if text is not None:
                    _fed(base, text, found, depth)
                elif _runs_text(base):  # `read a b <<< "$LINE"` only reads it
                    found.raise_to("high", "runtime_text", base)


def _redirect(node: Any, source: bytes, found: Assessment) -> None:
    destination = node.child_by_field_name("destination")
    operator = next((c for c in node.children if c.type in (">", ">>", ">|", "&>", "&>>")), None)
    if destination is None or operator is None:
        return
    target = _literal(destination, source)
    if target is None:
        found.raise_to("high", "runtime_file")
        return
    if target.isdigit() or target in ("/dev/null", "/dev/stdout", "/dev/stderr", "-"):
        return
    path = target.replace("~", "/~", 1) if target.startswith("~") else target
    if SENSITIVE_PATHS.search(path):
        found.raise_to("high", "writes_sensitive", _clip(target, 60))
    elif path.startswith("/") and not path.startswith(TEMPORARY):
        found.raise_to("high", "writes_outside", _clip(target, 60))


def _heredoc(node: Any, source: bytes, found: Assessment, depth: int) -> None:
    """A heredoc is what its command runs when that is a shell, an interpreter or a database client, and so is
    it for every program the heredoc's line pipes it into (`cat <<EOF | bash`)."""
    body = node.child_by_field_name("body")
    if body is None or body.type != "command":
        return
    name, arguments = _words(body, source)
    base, _ = _unwrap(_base(name or ""), arguments)
    for redirect in node.children_by_field_name("redirect"):
        if redirect.type != "heredoc_redirect":
            continue
        text = "".join(_text(c, source) for c in redirect.children if c.type == "heredoc_body")
        piped_into: list[str] = []
        for part in redirect.children:
            if part.type == "herestring_redirect":  # `cmd <<EOF <<< '…'`: the last redirection is what it reads
                for word in part.children:
                    literal = _literal(word, source) if word.type != "<<<" else None
                    if literal is not None:
                        _fed(base, literal, found, depth)
            if part.type == "pipeline":
                piped_into += [r for c in part.children if c.type == "command" and (r := _receiver(c, source))]
        _fed(base, text, found, depth)
        for receiver in piped_into:
            if receiver in SHELLS or _interpreter(receiver):
                found.raise_to("high", "piped_code", receiver)
            _fed(receiver, text, found, depth)

def _git(arguments: list[str | None], found: Assessment) -> None:
    words = [a for a in arguments if a is not None]
    verb = next((w for w in words if not w.startswith("-")), "")
    rest = words[words.index(verb) + 1:] if verb in words else []
    if verb == "push":
        found.raise_to("high", "git_push", "git push")
    elif verb == "clean" or (verb == "reset" and "--hard" in rest) or (verb == "branch" and "-D" in rest) \
            or (verb in ("checkout", "restore") and ("--" in rest or "." in rest or "-f" in rest)) \
            or (verb == "stash" and rest[:1] in (["drop"], ["clear"])) or verb in ("filter-branch", "filter-repo"):
        found.raise_to("high", "discards_work", f"git {verb}")
    elif verb in ("fetch", "pull", "clone", "submodule", "ls-remote"):
        found.raise_to("medium", "network", f"git {verb}")


def _find(arguments: list[str | None], found: Assessment, depth: int, node: Any, source: bytes) -> None:
    if "-delete" in arguments:
        found.raise_to("high", "deletes_files", "find -delete")
    for index, word in enumerate(arguments):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            command = []
            for following in arguments[index + 1:]:
                if following in (";", "+", "\\;"):
                    break
                command.append(following)
            if command:
                _judge(command[0], command[1:], found, depth, node, source)


def _package_manager(base: str, arguments: list[str | None], found: Assessment) -> None:
    verb = next((a for a in arguments if a is not None and not a.startswith("-")), "")
    if verb in ("publish", "unpublish", "deprecate", "owner", "upload", "yank", "login", "adduser"):
        found.raise_to("high", "registry", f"{base} {verb}")
    elif verb in ("install", "i", "add", "update", "upgrade", "ci", "exec", "dlx", "x", "run-script", "get",
                  "remove", "uninstall", "rm"):
        found.raise_to("medium", "packages", f"{base} {verb}")


def _scan_words(text: str, found: Assessment) -> None:
    """For text that did not parse: any dangerous command word in it counts (never lower than a keyword list)."""
    for word in re.findall(r"[A-Za-z_][\w.+-]*", text):
        base = _base(word)
        if base in DELETE:
            found.raise_to("high", "deletes", base)
        elif base in NETWORK:
            found.raise_to("high", "network", base)
        elif base in PRIVILEGE or base in SYSTEM:
            found.raise_to("high", "privilege_or_system", base)
    for sign_code, sign in CODE_SIGNS:
        if sign.search(text):
            found.raise_to("high", f"text_{sign_code}")
    client = next((w for w in re.findall(r"[\w.+-]+", text) if _base(w) in DATABASE_CLIENTS), None)
    if client is not None:
        _sql(client, text, found)


def assess_file_change(path: str, cwd: str | None) -> Assessment:
    """The risk of writing or editing `path`: medium inside the working folder, high outside it or for files
    that change an agent's permissions, a shell's start-up, keys or git hooks."""
    found = Assessment(level="medium")
    normalized = path.replace("\\", "/")
    if SENSITIVE_PATHS.search(normalized):
        found.raise_to("high", "changes_sensitive", _clip(path, 60))
        return found
    if cwd:
        root = PurePosixPath(cwd.replace("\\", "/"))
        target = PurePosixPath(normalized) if normalized.startswith("/") else root / normalized
        parts: list[str] = []
        for part in target.parts:  # resolve `..` without touching the disk
            if part == "..":
                if parts:
                    parts.pop()
            elif part != ".":
                parts.append(part)
        resolved = PurePosixPath(*parts) if parts else PurePosixPath("/")
        if not resolved.is_relative_to(root):
            found.raise_to("high", "changes_outside", _clip(path, 60))
    return found


def _strings(value: Any, depth: int = 0) -> list[str]:
    """Every string in a JSON value (keys included), depth-first."""
    if isinstance(value, str):
        return [value]
    if depth > 64:
        return []
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v, depth + 1))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []


def assess_tool_input(tool: str, value: Any) -> Assessment:
    """A tool's input (an MCP tool, a web fetch): medium; high when SQL in it drops, empties or changes every row."""
    found = Assessment(level="medium")
    for text in _strings(value):
        before = found.level
        _sql(tool, text, found)
        if found.level != before:
            found.reasons[-1:] = []
            found.codes[-1:] = []
            found.raise_to("high", "tool_sql", _clip(tool, 60))
    return found
