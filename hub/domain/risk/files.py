"""Programs that delete, move, copy, create, link or change files, and archives: each judged by where its targets
are (hub/domain/risk/paths.py), whatever the program; `find` and `fd` by what they run on what they find."""

from __future__ import annotations

import re

from hub.domain.risk.options import Parsed, abbreviates, parse
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import Word


def remove(call: Call, scope: Scope) -> None:
    for operand in parse(call.words).operands:
        scope.delete(operand)


def _target(parsed: Parsed) -> tuple[list[Word], Word | None]:
    """(sources, destination) of cp/mv/install/ln: `-t DIR` or the last operand."""
    directory = parsed.value("-t", "--target-directory")
    if directory is not None:
        return parsed.operands, directory
    if len(parsed.operands) >= 2:
        return parsed.operands[:-1], parsed.operands[-1]
    return parsed.operands, None


_COPY_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix", "--backup", "-m", "--mode", "-o", "--owner",
                          "-g", "--group", "--sparse", "--reflink", "--preserve", "--no-preserve", "-Z", "--context",
                          "--strip-program"})


def move(call: Call, scope: Scope) -> None:
    """mv: what is moved is gone from where it was (`mv ~ ~/../gone`), and written where it goes."""
    sources, destination = _target(parse(call.words, _COPY_VALUES))
    for source in sources:
        place = scope.place(source)
        if place is None or place.kind not in ("project", "temp", "cache"):
            scope.delete(source)
    if destination is not None:
        scope.write(destination)
        _carry_links(sources, destination, scope)
    elif sources:
        scope.cannot_tell(call.part)


def _carry_links(sources: list[Word], destination: Word, scope: Scope) -> None:
    """A link moved (or copied as a link) is the same link where it lands: `ln -s ~ a && mv a b && rm -rf b/`."""
    if len(sources) != 1 or not scope.links:
        return
    source = scope.folders.resolve(sources[0].value) if sources[0].value is not None else None
    target = scope.folders.resolve(destination.value) if destination.value is not None else None
    if source is not None and target is not None and str(source) in scope.links:
        scope.links[str(target)] = scope.links[str(source)]


def copy(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _COPY_VALUES)
    sources, destination = _target(parsed)
    for source in sources:
        scope.read(source)
    if destination is not None:
        scope.write(destination)
        if parsed.has("-a", "--archive", "-d", "-P", "--no-dereference") or any(
                (v or "").startswith("--preserve=") and "links" in (v or "") for v in call.values):
            _carry_links(sources, destination, scope)
        if parsed.has("-s", "--symbolic-link", "-l", "--link") and len(sources) == 1:  # cp makes links, not copies
            scope.link(destination, sources[0])


def install(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _COPY_VALUES)
    for program in parsed.values("--strip-program"):
        scope.raise_to("high", "runs_program", call.part)
        if program.value is None:
            scope.cannot_tell(call.part)
        else:
            scope.script(program.value)
    if parsed.has("-d", "--directory"):
        for operand in parsed.operands:
            scope.write(operand, "empty")
        return
    copy(call, scope)


def link(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _COPY_VALUES)
    sources, destination = _target(parsed)
    if destination is None and sources and sources[0].value is not None:  # `ln -s target`: a link named after it
        destination = Word.literal(sources[0].value.rstrip("/").rpartition("/")[2] or ".")
    if destination is not None:
        # even a link to a file of the project changes what a name leads to (`ln -s src/x.py json.py`)
        scope.write(destination)
        if len(sources) == 1:
            scope.link(destination, sources[0])


def create(call: Call, scope: Scope) -> None:
    """mkdir, touch, truncate, tee, split…: every operand is a file written."""
    values = {"mkdir": {"-m", "--mode", "-Z", "--context"}, "touch": {"-d", "-t", "-r", "--date", "--reference"},
              "truncate": {"-s", "--size", "-r", "--reference", "-o"}, "tee": {"--output-error", "-p"},
              "split": {"-l", "-b", "-C", "-n", "-a", "-d", "--additional-suffix", "-t", "--filter"},
              "csplit": {"-f", "-b", "-n"}, "mkfifo": {"-m"}, "fallocate": {"-l", "-o"}}.get(call.name, set())
    parsed = parse(call.words, frozenset(values))
    if call.name == "split":
        if parsed.has("--filter"):
            scope.cannot_tell(call.part)
        scope.write(parsed.operands[1] if len(parsed.operands) > 1 else Word.literal("x"))
        return
    for operand in parsed.operands:
        if call.name != "tee" or operand.value != "-":
            scope.write(operand, "empty" if call.name in ("mkdir", "touch", "mkfifo") else "content")
            if call.name == "tee":
                scope.remember(operand, call.stdin, append=parsed.has("-a", "--append"))


def permissions(call: Call, scope: Scope) -> None:
    """chmod, chown, chgrp, chattr, setfacl: the first operand is the mode or owner, the rest are changed."""
    parsed = parse(call.words, frozenset({"--reference", "--from", "-m", "-x", "-M", "-X", "--set", "--set-file"}))
    operands = parsed.operands
    if call.name not in ("setfacl",) and not parsed.has("--reference"):
        operands = operands[1:]
    if call.name in ("chmod",) and parsed.operands and (parsed.operands[0].value or "").lstrip("-").startswith(
            ("+", "=", "-")):
        operands = parsed.operands[1:]
    for operand in operands:
        scope.chmod(operand)


def dd(call: Call, scope: Scope) -> None:
    for word in call.words:
        value = word.value or ""
        if value.startswith("of="):
            scope.write(Word.literal(value[3:]))
        elif value.startswith("if="):
            scope.read(Word.literal(value[3:]))
        elif word.value is None:
            scope.cannot_tell(call.part)


def patch(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-o", "--output", "-d", "--directory", "-i", "--input", "-p", "-F", "-B",
                                          "-r", "--reject-file", "-z", "--suffix", "-D"}))
    for target in parsed.values("-o", "--output", "-r", "--reject-file"):
        scope.write(target)
    directory = parsed.value("-d", "--directory")
    scope.write(Word.literal((directory.value or ".") + "/…") if directory else Word.literal("./…"))


_FIND_VALUES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                          "-type", "-xtype", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-size",
                          "-user", "-group", "-uid", "-gid", "-perm", "-printf", "-maxdepth", "-mindepth", "-links",
                          "-inum", "-samefile", "-fstype", "-regextype", "-used", "-lname", "-ilname", "-context",
                          "-newermt", "-newerct", "-newerat", "-anewer", "-cnewer", "-files0-from", "-D", "-O"})


# find's tests, options and actions that take no value; any other word in the expression cannot be told.
_FIND_FLAGS = frozenset({"-empty", "-executable", "-readable", "-writable", "-nouser", "-nogroup", "-true", "-false",
                         "-follow", "-mount", "-xdev", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race",
                         "-daystart", "-warn", "-nowarn", "-depth", "-d", "-print", "-print0", "-ls", "-prune",
                         "-quit", "-o", "-a", "-or", "-and", "-not", "!", "(", ")", ",", "-help", "--help",
                         "-version", "--version", "-H", "-L", "-P"})
_FIND_ACTIONS = frozenset({"-print", "-print0", "-ls", "-prune", "-quit", "-o", "-a", "-or", "-and", "-not", "!",
                           "(", ")", ",", "-true", "-false"})


def find(call: Call, scope: Scope) -> None:
    """find: what -exec and -ok run on each file found (`{}`, a file under the roots), what -delete deletes, what
    -fprintf and -fls write."""
    words = call.words
    index = 0
    roots: list[Word] = []
    follows = False
    while index < len(words) and words[index].value in ("-H", "-L", "-P"):
        follows = words[index].value != "-P"
        index += 1
    while index < len(words) and words[index].value is not None and not (words[index].value or "").startswith(
            ("-", "(", "!")):
        roots.append(words[index])
        index += 1
    roots = roots or [Word.literal(".")]
    tested = False
    while index < len(words):
        value = words[index].value
        index += 1
        if value is None:
            scope.cannot_tell(call.part)
            continue
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            command: list[Word] = []
            while index < len(words) and words[index].value not in (";", "+"):
                word = words[index]
                if word.value is not None and "{}" in word.value:
                    word = Word(word.text, word.value.replace("{}", f"{roots[0].value or '.'}/…"), False, False)
                command.append(word)
                index += 1
            index += 1
            scope.run(command, text=" ".join(w.text for w in command))
            tested = True
        elif value == "-delete":
            for given in roots:  # find -L follows a link it is given (`ln -s ~ x; find -L x -delete`)
                root = (scope.through(given) if follows else None) or given
                scope.delete(Word.literal(f"{root.value}/…") if tested and root.value is not None else root)
        elif value in ("-fprintf", "-fprint", "-fprint0", "-fls"):
            if index < len(words):
                scope.write(words[index])
            index += 2 if value == "-fprintf" else 1
        elif value in _FIND_VALUES or re.fullmatch(r"-newer[aBcmt][aBcmt]", value):
            index += 1
            tested = True
        elif value in _FIND_FLAGS:
            tested = tested or value not in _FIND_ACTIONS
        elif value not in _FIND_ACTIONS:
            scope.cannot_tell(f"find {clip(value, 40)}")  # a test or action the hub does not know


def fd(call: Call, scope: Scope) -> None:
    words = call.words
    for index, word in enumerate(words):
        if word.value in ("-x", "--exec", "-X", "--exec-batch"):
            command = [w if w.value is None or "{" not in w.value else Word(w.text, "./…", False, False)
                       for w in words[index + 1:] if w.value != ";"]
            scope.run(command)
            return


_TAR_VALUES = frozenset({"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-I",
                         "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--to-command",
                         "--checkpoint-action", "--rsh-command", "--rmt-command", "-b", "-L", "-N", "-g", "-K", "-V",
                         "-H", "--format", "--exclude", "--transform", "--xform", "--owner", "--group", "--mode",
                         "--strip-components", "--newer", "--checkpoint", "--index-file", "--volno-file", "--suffix",
                         "--blocking-factor", "--label", "--listed-incremental", "--mtime"})
_TAR_LETTER_VALUES = "fCTXbLNgKVFIH"
_TAR_PROGRAMS = ("-I", "--use-compress-program", "-F", "--info-script", "--new-volume-script", "--to-command",
                 "--rsh-command", "--rmt-command")


def tar(call: Call, scope: Scope) -> None:
    words = list(call.words)
    if words and words[0].value is not None and not words[0].value.startswith("-") and words[0].value.isalpha():
        words[0] = Word.literal("-" + words[0].value)  # `tar xzf a.tgz`: the old bundled form
    parsed = parse(words, _TAR_VALUES)
    longs = tuple(n for n in (*_TAR_PROGRAMS, "--checkpoint-action") if n.startswith("--"))
    for index, (name, given) in enumerate(parsed.options):  # GNU tar takes long options cut short:
        full = abbreviates(name, *longs) if name.startswith("--") else None  # `--to-com=…` is `--to-command`
        if full is not None and full != name:
            parsed.options[index] = (full, given)
            if given is None:
                scope.cannot_tell(f"{call.name} {name}")
    for name in _TAR_PROGRAMS:
        for program in parsed.values(name):
            scope.raise_to("high", "runs_program", call.part)
            if program.value is None:
                scope.cannot_tell(call.part)
            else:
                scope.script(program.value)
    if not parsed.has("--force-local"):
        for archive_word in parsed.values("-f", "--file"):
            remote = re.match(r"^(?:[^/@:]+@)?([^/:]+):", archive_word.value or "")
            if remote is not None:  # `-f host:file`: tar runs rsh/ssh to reach it
                scope.raise_to("high", "copies_remote", remote.group(1))
    for action in parsed.values("--checkpoint-action"):
        value = action.value
        if value is None or value.startswith("exec="):
            scope.raise_to("high", "runs_program", call.part)
            if value is None:
                scope.cannot_tell(call.part)
            else:
                scope.script(value[5:])
    archives = [a for a in parsed.values("-f", "--file") if a.value != "-"]
    if parsed.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--delete"):
        for archive in archives:
            scope.write(archive)
        for operand in parsed.operands:
            scope.read(operand)
    elif parsed.has("-x", "--extract", "--get"):
        if parsed.has("-P", "--absolute-names"):
            scope.raise_to("high", "write_outside", "paths the archive chooses (tar -P)")
        directory = parsed.value("-C", "--directory")
        scope.write(directory if directory is not None else Word.literal("."))


def archive(call: Call, scope: Scope) -> None:
    """zip, unzip, gzip and the other compressors: what they write is judged by where it goes."""
    parsed = parse(call.words, frozenset({"-d", "-x", "-i", "-P", "-O", "-I", "-n", "-b", "-TT", "--unzip-command",
                                          "-S", "--suffix", "-o"}))
    values = [w.value for w in call.words]
    if call.name == "zip":
        for index, value in enumerate(values[:-1]):
            if value in ("-TT", "--unzip-command"):
                scope.raise_to("high", "runs_program", call.part)
                command = call.words[index + 1]
                if command.value is None:
                    scope.cannot_tell(call.part)
                else:
                    scope.script(command.value)
        parsed = parse([w for i, w in enumerate(call.words) if values[i] not in ("-TT", "--unzip-command") and (
            i == 0 or values[i - 1] not in ("-TT", "--unzip-command"))], frozenset({"-b", "-P", "-i", "-x", "-n"}))
    if call.name == "unzip":
        if parsed.has("-l", "-t", "-p", "-v", "-Z", "-z"):
            return
        directory = parsed.value("-d")
        scope.write(directory if directory is not None else Word.literal("."))
        return
    if call.name in ("zip", "7z", "7za", "rar", "unrar"):
        target = next((w for w in parsed.operands if w.value not in ("a", "x", "e", "l", "t", "u", "d")), None)
        if target is not None:
            scope.write(target)
        return
    if any(v in ("-c", "--stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version") for v in values):
        return
    for operand in parsed.operands:
        scope.write(operand)


PROGRAMS = {
    "rm": remove, "rmdir": remove, "unlink": remove, "shred": remove, "srm": remove, "wipe": remove, "trash": remove,
    "trash-put": remove, "mv": move, "cp": copy, "install": install, "ln": link, "mkdir": create, "touch": create,
    "truncate": create, "tee": create, "split": create, "csplit": create, "mkfifo": create, "fallocate": create,
    "chmod": permissions, "chown": permissions, "chgrp": permissions, "chattr": permissions, "setfacl": permissions,
    "dd": dd, "patch": patch, "find": find, "fd": fd, "fdfind": fd, "tar": tar, "gtar": tar, "bsdtar": tar,
    "zip": archive, "unzip": archive, "gzip": archive, "gunzip": archive, "bzip2": archive, "bunzip2": archive,
    "xz": archive, "unxz": archive, "zstd": archive, "unzstd": archive, "lz4": archive, "7z": archive, "7za": archive,
    "rar": archive, "unrar": archive, "brotli": archive, "compress": archive, "uncompress": archive,
}
