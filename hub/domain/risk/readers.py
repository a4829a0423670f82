"""Programs that only read, list, search, count, compare or print: low, except the few options with which they write
a file (`sort -o`), run a program (`rg --pre`), or change the machine (`date -s`); keys they read are high."""

from __future__ import annotations

import re

from hub.domain.risk.options import abbreviates, parse
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import names

# Each reads the files it is given (judged: keys and credentials read are not harmless) and prints.
FILE_READERS = names("""
cat head tail less more most bat batcat wc sort uniq cut tr diff diff3 sdiff cmp comm join paste nl tac rev fold fmt
column expand unexpand od hexdump xxd strings file stat du df ls dir vdir tree exa eza lsd grep egrep fgrep rg ag ack
zgrep zcat bzcat xzcat jq yq gron xmllint md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum shasum
cksum sum md5 base64 base32 basenc readlink realpath basename dirname pathchk wdiff colordiff delta difft icdiff look
tsort numfmt pr csplit shuf cloc tokei scc lsattr getfacl namei iconv dos2unix unix2dos fx hexyl glow mdcat
""")
# Each prints something about the machine, the session or its arguments.
PRINTERS = names("""
echo printf true false : pwd date cal whoami id groups who w users uname hostname hostnamectl uptime nproc lscpu free
vm_stat sw_vers arch getconf locale tty printenv seq yes sleep expr bc dc factor which whereis whence type
ps pgrep pstree top htop btop iostat vmstat lsof ss netstat ifconfig ip route lsblk lsusb lspci sensors lsb_release
env_print clear reset tput stty history jobs dirs help man info apropos whatis tldr wait times caller test [ [[ read
getopts shift exit return break continue local unset unalias export readonly declare typeset logout suspend disown fg
bg ulimit umask mktemp tempfile cowsay figlet toilet lolcat neofetch
fastfetch screenfetch
""")
# Name lookups and reachability checks: they reach the network but send nothing of the machine's.
LOOKUPS = names("ping ping6 dig host nslookup traceroute tracepath mtr whois drill")

_WRITES_OPTION = {"sort": ("-o", "--output"), "tree": ("-o",), "yq": ("--output-file",),
                  "diff": ("--output",), "jq": ()}


def reader(call: Call, scope: Scope) -> None:
    values = {"sort": frozenset({"-o", "--output", "-k", "-t", "-S", "-T", "--key", "--field-separator",
                                 "--buffer-size", "--temporary-directory"}),
              "tree": frozenset({"-o", "-L", "-P", "-I", "--charset", "--filelimit", "--sort"}),
              "grep": frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count", "--include",
                                 "--exclude", "--exclude-dir", "--color", "--label"}),
              "rg": frozenset({"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-M", "--glob", "--type",
                               "--type-not", "--regexp", "--file", "--max-count", "--pre", "--pre-glob", "-r",
                               "--replace", "--max-columns", "--max-depth", "--color", "--colors", "-j", "--threads",
                               "--iglob", "--type-add", "-E", "--encoding", "--sort", "--sortr"}),
              "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
              "tail": frozenset({"-n", "-c", "--lines", "--bytes", "--pid", "-s", "--sleep-interval"}),
              "cut": frozenset({"-d", "-f", "-c", "-b", "--delimiter", "--fields", "--characters", "--bytes",
                                "--output-delimiter"}),
              "jq": frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile", "--indent", "-L", "--args",
                               "--jsonargs", "-f", "--from-file"}),
              "yq": frozenset({"-o", "--output-format", "-p", "--input-format", "-I", "--indent", "--output-file",
                               "--expression", "-e"}),
              }.get(call.name, frozenset())
    parsed = parse(call.words, values)
    if call.name in _RUNS_OPTIONS:
        _option_runs(call, scope, _RUNS_OPTIONS[call.name])
    if call.name == "yq" and any(re.search(r"\bload(_str|_xml|_props|_base64)?\s*\(", v or "") or v is None
                                 for v in [w.value for w in parsed.operands[:1] + parsed.values("-e", "--expression")]):
        scope.cannot_tell(call.part)  # yq's load("file") reads any file
    if call.name == "yq" and parsed.has("-i", "--inplace"):
        for operand in parsed.operands[1:]:
            scope.write(operand)
    if call.name == "uniq" and len(parsed.operands) >= 2:
        scope.write(parsed.operands[1])
    if call.name in ("dos2unix", "unix2dos") and not parsed.has("-n", "--newfile"):
        for operand in parsed.operands:
            scope.write(operand)
    for name in _WRITES_OPTION.get(call.name, ()):
        for target in parsed.values(name):
            scope.write(target)
    if call.name == "xxd" and "-r" in call.values and len(parsed.operands) >= 2:
        scope.write(parsed.operands[1])
    filtered = call.name in ("jq", "yq", "gron") and not parsed.values("-f", "--from-file", "-e", "--expression")
    for operand in parsed.operands[1 if filtered else 0:]:  # jq's and yq's first operand is their filter
        scope.read(operand)
    for name in ("--rawfile", "--slurpfile", "-f", "--file", "--from-file"):
        for target in parsed.values(name):
            scope.read(target)


# Readers' options that run a program (judged as the command text they are given) or load what runs one.
_RUNS_OPTIONS = {"sort": ("--compress-program",), "bat": ("--pager",), "batcat": ("--pager",), "delta": ("--pager",),
                 "sdiff": ("--diff-program",), "diff3": ("--diff-program",), "rg": ("--pre",)}
_PAGERS = frozenset({"less", "more", "most", "zless", "zmore"})
# A pager's `+command` that only moves or searches (`+G`, `+42`, `+/TODO`); any other (`+!cmd`, `+|cmd`, `+s file`,
# `+v`) runs a program or writes a file.
_PAGER_MOVES = re.compile(r"\+(\d+|[GgFP%]|\d*[GgjkdupP]|/[^!|]*|\?[^!|]*)")


def _option_runs(call: Call, scope: Scope, longs: tuple[str, ...]) -> None:
    for index, word in enumerate(call.words):
        value = word.value or ""
        name, equals, attached = value.partition("=")
        option = abbreviates(name, *longs)
        if option is None:
            continue
        text = attached if equals else (call.words[index + 1].value if index + 1 < len(call.words) else None)
        scope.raise_to("high", "runs_program", f"{call.name} {option}")
        if text is None:
            scope.cannot_tell(call.part)
        elif text.strip():
            scope.script(text)


def pager(call: Call, scope: Scope) -> None:
    """less/more/most: `+cmd` runs a pager command at start (`+!cmd` a shell command), `-k`/`--lesskey-*` load key
    bindings that can, `-o`/`--log-file` writes its input to a file."""
    parsed = parse(call.words, frozenset({"-o", "-O", "--log-file", "--LOG-FILE", "-k", "--lesskey-file",
                                          "--lesskey-src", "--lesskey-content", "-p", "--pattern", "-P", "--prompt",
                                          "-t", "--tag", "-T", "--tag-file", "-x", "--tabs", "-y", "-z", "-b", "-h",
                                          "-j", "-#", "--shift"}))
    for word in call.words:
        value = word.value
        if value is None or value.startswith("+") and not _PAGER_MOVES.fullmatch(value):
            scope.cannot_tell(f"{call.name} {clip(word.text, 40)}")
    if parsed.has("-k", "--lesskey-file", "--lesskey-src", "--lesskey-content", "-T", "--tag-file"):
        scope.cannot_tell(call.part)
    for target in parsed.values("-o", "-O", "--log-file", "--LOG-FILE"):
        scope.write(target)
    for operand in parsed.operands:
        if operand.value is not None and not operand.value.startswith("+"):
            scope.read(operand)


_MAN_FLAGS = frozenset({"-a", "--all", "-d", "--debug", "-D", "--default", "-f", "--whatis", "-k", "--apropos", "-K",
                        "--global-apropos", "-w", "--where", "--path", "--location", "-W", "--where-cat",
                        "--location-cat", "-u", "--update", "-c", "--catman", "-7", "--ascii", "-i",
                        "--ignore-case", "-I", "--match-case", "--regex", "--wildcard", "--names-only", "-Z",
                        "--ditroff", "--no-hyphenation", "--nh", "--no-justification", "--nj", "--no-subpages", "-t",
                        "--troff", "-h", "--help", "-V", "--version", "--usage", "-?", "-l", "--local-file", "-z"})
_MAN_VALUES = frozenset({"-s", "-S", "--sections", "-L", "--locale", "-m", "--systems", "-M", "--manpath", "-e",
                         "--extension", "-E", "--encoding", "-r", "--prompt", "-R", "--recode", "-p",
                         "--preprocessor", "-T", "--troff-device"})
_MAN_RUNS = ("-P", "--pager", "-H", "--html", "-C", "--config-file", "-X", "--gxditview")


def man(call: Call, scope: Scope) -> None:
    """man: `-P`/`--pager` and `-H`/`--html` run the program they name on the page; any option the hub does not
    know cannot be told."""
    words = call.words
    index = 0
    longs = tuple(n for n in (*_MAN_FLAGS, *_MAN_VALUES, *_MAN_RUNS) if n.startswith("--"))
    while index < len(words):
        word = words[index]
        value = word.value
        index += 1
        if value is None:
            scope.cannot_tell(call.part)
            continue
        if not value.startswith("-") or value == "-":
            continue
        name, equals, attached = value.partition("=")
        option = abbreviates(name, *longs) if name.startswith("--") else name[:2]
        inline = attached if equals else (value[2:] if not name.startswith("--") and len(value) > 2 else None)
        if option in _MAN_RUNS:
            text = inline if inline is not None else (words[index].value if index < len(words) and option not in (
                "-H", "--html", "-X", "--gxditview") else "")
            if inline is None and option not in ("-H", "--html", "-X", "--gxditview"):
                index += 1
            scope.raise_to("high", "runs_program", f"{call.name} {option}")
            if option in ("-C", "--config-file") or text is None:
                scope.cannot_tell(call.part)
            elif text.strip():
                scope.script(text)
            elif option in ("-H", "--html"):
                scope.cannot_tell(f"{call.name} {option} ($BROWSER)")
        elif option in _MAN_VALUES:
            if inline is None:
                index += 1
        elif option not in _MAN_FLAGS and not re.fullmatch(r"-[adDfkKwWuc7iIZthV?lz]+", value):
            scope.cannot_tell(f"{call.name} {clip(value, 40)}")


def printer(call: Call, scope: Scope) -> None:
    """Prints; `date -s` and `hostname NAME` change the machine."""
    values = [v or "" for v in call.values]
    sets_date = call.name == "date" and any(v in ("-s", "--set") or v.startswith("--set=") for v in values)
    if sets_date or (call.name == "hostname" and any(v and not v.startswith("-") for v in values)):
        scope.raise_to("high", "changes_system", call.part)


def lookup(call: Call, scope: Scope) -> None:
    scope.raise_to("low")


PROGRAMS = {**{name: reader for name in FILE_READERS}, **{name: printer for name in PRINTERS},
            **{name: lookup for name in LOOKUPS}, **{name: pager for name in _PAGERS}, "man": man}
