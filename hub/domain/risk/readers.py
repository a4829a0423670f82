"""Programs that only read, list, search, count, compare or print: low, except the few options with which they write
a file (`sort -o`), run a program (`rg --pre`), or change the machine (`date -s`); keys they read are high."""

from __future__ import annotations

from hub.domain.risk.options import parse
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import names

# Each reads the files it is given (judged: keys and credentials read are not harmless) and prints.
FILE_READERS = names("""
cat head tail less more most bat batcat wc sort uniq cut tr diff diff3 sdiff cmp comm join paste nl tac rev fold fmt
column expand unexpand od hexdump xxd strings file stat du df ls dir vdir tree exa eza lsd grep egrep fgrep rg ag ack
zgrep zcat bzcat xzcat zless jq yq gron xmllint md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum shasum
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
    if call.name == "rg" and parsed.has("--pre"):
        scope.cannot_tell(call.part)
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
    for operand in parsed.operands:
        scope.read(operand)
    for name in ("--rawfile", "--slurpfile", "-f", "--file", "--from-file"):
        for target in parsed.values(name):
            scope.read(target)


def printer(call: Call, scope: Scope) -> None:
    """Prints; `date -s` and `hostname NAME` change the machine."""
    values = [v or "" for v in call.values]
    sets_date = call.name == "date" and any(v in ("-s", "--set") or v.startswith("--set=") for v in values)
    if sets_date or (call.name == "hostname" and any(v and not v.startswith("-") for v in values)):
        scope.raise_to("high", "changes_system", call.part)


def lookup(call: Call, scope: Scope) -> None:
    scope.raise_to("low")


PROGRAMS = {**{name: reader for name in FILE_READERS}, **{name: printer for name in PRINTERS},
            **{name: lookup for name in LOOKUPS}}
