"""The shell's own commands that run other commands or change how later ones are read: `cd`, `source`, `eval`,
`exec`, `command`, `trap`, `alias`, `shopt`, `enable`, `coproc`, `let`, `mapfile -C`, `compgen -C`, `bind -x`.

Text they run is judged as commands (`trap 'rm -rf ~' EXIT` deletes the home folder). What makes later names mean
something else (an alias, `shopt -s expand_aliases`, `enable -f`, `hash -p`) is "LineUp cannot tell what this runs".
"""

from __future__ import annotations

from hub.domain.risk.options import parse
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.scripts import script_file
from hub.domain.risk.variables import arithmetic_sets, assignment, code_in_text, sets
from hub.domain.risk.words import Word


def cd(call: Call, scope: Scope) -> None:
    """The folder later relative paths are judged from (`cd ~ && rm -rf *` empties the home folder)."""
    operands = [w for w in parse(call.words).operands]
    target = operands[0] if operands else Word.literal("~")
    here = None if target.value in (None, "-") else scope.folders.resolve(target.value or "")
    scope.folders = scope.folders.moved(scope.through_folder(here))


def popd(call: Call, scope: Scope) -> None:
    scope.folders = scope.folders.moved(None)


def source(call: Call, scope: Scope) -> None:
    operands = parse(call.words, frozenset({"-p"})).operands
    if not operands:
        scope.cannot_tell(call.part)
        return
    script_file(operands[0], call, scope, scope.script)


def eval_(call: Call, scope: Scope) -> None:
    if any(word.value is None for word in call.words):
        for word in call.words:
            if (origin := scope.origin(word)) is not None:
                scope.raise_to("high", "runs_download", origin)
        scope.cannot_tell(call.part)
        return
    text = " ".join(word.value or "" for word in call.words)
    if text.strip():
        scope.script(text)


def exec_(call: Call, scope: Scope) -> None:
    """`exec` alone only redirects (judged as redirections); `exec cmd` runs cmd."""
    parsed = parse(call.words, frozenset({"-a"}), first_operand_stops=True)
    if parsed.operands:
        scope.run(parsed.operands, call.stdin)


def command(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, first_operand_stops=True)
    if parsed.has("-v", "-V") or not parsed.operands:
        return
    scope.run(parsed.operands, call.stdin)


def builtin(call: Call, scope: Scope) -> None:
    if call.words:
        scope.run(call.words, call.stdin)


def time(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-f", "--format", "-o", "--output"}), first_operand_stops=True)
    for target in parsed.values("-o", "--output"):
        scope.write(target)
    if parsed.operands:
        scope.run(parsed.operands, call.stdin)


def trap(call: Call, scope: Scope) -> None:
    """`trap ACTION SIGNAL…`: the action runs later, as a command."""
    parsed = parse(call.words, first_operand_stops=True)
    if parsed.has("-l", "-p") or len(parsed.operands) < 2:
        return
    action = parsed.operands[0]
    if action.value is None:
        scope.cannot_tell(call.part)
    elif action.value not in ("", "-"):
        scope.script(action.value)


def alias(call: Call, scope: Scope) -> None:
    """An alias makes a later name run something else: what it runs is judged, and nothing named after it can be
    trusted to be what it says."""
    for word in parse(call.words).operands:
        name, equals, value = (word.value or "").partition("=")
        if word.value is None:
            scope.cannot_tell(call.part)
        elif equals:
            scope.cannot_tell(f"alias {name}=…")
            if value.strip():
                scope.script(value)


def shopt(call: Call, scope: Scope) -> None:
    if "expand_aliases" in call.values or any(v is None for v in call.values):
        scope.cannot_tell(call.part)


def set_(call: Call, scope: Scope) -> None:
    values = call.values
    if None in values or any(v is not None and ("T" in v.lstrip("-+") and v.startswith(("-", "+"))
                                                and not v.startswith("--")) for v in values):
        scope.cannot_tell(call.part)  # `set -T`: DEBUG/RETURN traps run inside every function


def enable(call: Call, scope: Scope) -> None:
    """`enable -f lib.so name` loads a builtin from a library; `enable -n name` lets a file of that name run."""
    parsed = parse(call.words, frozenset({"-f"}))
    if parsed.has("-f", "-n", "-d") or parsed.unknown:
        scope.cannot_tell(call.part)


def coproc(call: Call, scope: Scope) -> None:
    scope.cannot_tell(call.part)
    if call.words:
        scope.run(call.words)


def let(call: Call, scope: Scope) -> None:
    if any(code_in_text(v) or v is None for v in call.values):
        scope.cannot_tell(call.part)
    sets([name for v in call.values if v is not None for name in arithmetic_sets(v)], "let", scope)


def mapfile(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-C", "-c", "-d", "-n", "-O", "-s", "-u"}))
    for callback in parsed.values("-C"):
        if callback.value is None:
            scope.cannot_tell(call.part)
        else:
            scope.script(callback.value + " 0 line")
    sets([w.value for w in parsed.operands[:1]] or ["MAPFILE"], call.name, scope)


def read(call: Call, scope: Scope) -> None:
    """`read [-a NAME] [NAME…]`: each name is set to what is read at run time."""
    parsed = parse(call.words, frozenset({"-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"}))
    sets([w.value for w in parsed.operands + parsed.values("-a")] or ["REPLY"], "read", scope)


def printf(call: Call, scope: Scope) -> None:
    """`printf -v NAME FORMAT ARGS…` sets NAME: a plain format is judged as `NAME=text`."""
    parsed = parse(call.words, frozenset({"-v"}), first_operand_stops=True)
    target = parsed.value("-v")
    if target is None:
        return
    if target.value is None:
        scope.cannot_tell(call.part)
        return
    operands = parsed.operands
    if len(operands) == 1 and operands[0].value is not None and "%" not in operands[0].value and "\\" not in (
            operands[0].value):
        assignment(target.value, operands[0], scope)
    else:
        sets([target.value], "printf -v", scope)


def getopts(call: Call, scope: Scope) -> None:
    operands = parse(call.words).operands
    if len(operands) >= 2:
        sets([operands[1].value], "getopts", scope)


def wait(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-p"}))
    sets([w.value for w in parsed.values("-p")], "wait -p", scope)


def completion(call: Call, scope: Scope) -> None:
    """compgen/complete: `-C command` runs a command, `-F function` a function."""
    parsed = parse(call.words, frozenset({"-C", "-F", "-A", "-G", "-W", "-X", "-P", "-S", "-o", "-E"}))
    for text in parsed.values("-C"):
        if text.value is None:
            scope.cannot_tell(call.part)
        else:
            scope.script(text.value)
    for function in parsed.values("-F"):
        if function.value not in scope.functions:
            scope.cannot_tell(call.part)
    for words in parsed.values("-W"):
        if code_in_text(words.value):
            scope.cannot_tell(call.part)


def bind(call: Call, scope: Scope) -> None:
    if any(v is None or v.startswith("-x") for v in call.values):
        scope.cannot_tell(call.part)


def hash_(call: Call, scope: Scope) -> None:
    if "-p" in call.values:
        scope.cannot_tell(call.part)


def fc(call: Call, scope: Scope) -> None:
    if "-l" not in call.values:
        scope.cannot_tell(call.part)


PROGRAMS = {
    "cd": cd, "pushd": cd, "popd": popd, "source": source, ".": source, "eval": eval_, "exec": exec_,
    "command": command, "builtin": builtin, "time": time, "trap": trap, "alias": alias, "shopt": shopt, "set": set_,
    "enable": enable, "coproc": coproc, "let": let, "mapfile": mapfile, "readarray": mapfile, "compgen": completion,
    "complete": completion, "bind": bind, "hash": hash_, "fc": fc, "read": read, "printf": printf,
    "getopts": getopts, "wait": wait,
}
