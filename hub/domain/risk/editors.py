"""sed and awk programs read for what they do besides printing: sed's `e` command and `s///e` run commands, its
`w` writes files; awk's `system()`, pipes and `print > "file"` run commands and write files."""

from __future__ import annotations

import re

from hub.domain.risk.options import parse
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import Word

Effects = list[tuple[str, str | None]]  # ("exec", command or None), ("write", file), ("read", file)


def _until(text: str, index: int, stops: str) -> int:
    while index < len(text) and text[index] not in stops:
        index += 1
    return index


def _delimited(text: str, index: int, delimiter: str) -> int | None:
    """The index just past the next unescaped `delimiter` from `index`; None if there is none."""
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == delimiter:
            return index + 1
        if char == "\n" and delimiter != "\n":
            return None
        index += 1
    return None


def sed_effects(script: str) -> Effects | None:
    """What a sed script does besides editing text; None when it does not read as sed."""
    effects: Effects = []
    index, size = 0, len(script)
    for _ in range(size + 1):
        while index < size and script[index] in " \t\n;":
            index += 1
        if index >= size:
            return effects
        if script[index] == "#":
            index = _until(script, index, "\n")
            continue
        for position in range(2):  # an address, or two separated by a comma
            if index < size and script[index] in "0123456789$+~":
                index += 1
                while index < size and script[index] in "0123456789~":
                    index += 1
            elif index < size and script[index] in "/\\":
                delimiter = "/"
                if script[index] == "\\":
                    if index + 1 >= size:
                        return None
                    delimiter, index = script[index + 1], index + 2
                else:
                    index += 1
                end = _delimited(script, index, delimiter)
                if end is None:
                    return None
                index = end
                while index < size and script[index] in "IM":
                    index += 1
            if position == 0 and index < size and script[index] == ",":
                index += 1
                continue
            break
        while index < size and script[index] in " \t!":
            index += 1
        if index >= size:
            return None
        command = script[index]
        index += 1
        if command in "{}=dDgGhHlLnNpPxzFqQ":
            while index < size and script[index] in "0123456789 \t":
                index += 1
        elif command in ":btTv":
            index = _until(script, index, ";\n")
        elif command in "aic":
            while index < size and script[index] != "\n":
                index += 2 if script[index] == "\\" else 1
        elif command in "rRwW":
            end = _until(script, index, "\n")
            effects.append(("read" if command in "rR" else "write", script[index:end].strip()))
            index = end
        elif command == "e":
            end = _until(script, index, "\n")
            effects.append(("exec", script[index:end].strip() or None))
            index = end
        elif command in "sy":
            if index >= size:
                return None
            delimiter = script[index]
            middle = _delimited(script, index + 1, delimiter)
            end = _delimited(script, middle, delimiter) if middle is not None else None
            if end is None:
                return None
            index = end
            if command == "s":
                while index < size and script[index] in "gpiImMe0123456789w":
                    flag = script[index]
                    index += 1
                    if flag == "e":
                        effects.append(("exec", None))
                    elif flag == "w":
                        end = _until(script, index, "\n")
                        effects.append(("write", script[index:end].strip()))
                        index = end
        else:
            return None
    return None


def sed(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"}))
    scripts = parsed.values("-e", "--expression")
    operands = list(parsed.operands)
    if parsed.values("-f", "--file"):
        if not parsed.has("--sandbox"):
            scope.cannot_tell(call.part)
        scripts = scripts or [Word.literal("")]
    elif not scripts and operands:
        scripts = [operands.pop(0)]
    in_place = any(name in ("-i", "--in-place") or name.startswith("--in-place") for name, _ in parsed.options)
    in_place = in_place or any(w.value is not None and re.fullmatch(r"-[nEsrzu]*i\S*", w.value) for w in call.words)
    for script in scripts:
        if script.value is None:
            scope.cannot_tell(call.part)
            continue
        _effects(sed_effects(script.value), call, scope)
    for operand in operands:
        if in_place:
            scope.write(operand)
        else:
            scope.read(operand)


def _strip_awk(program: str) -> tuple[str, list[str]] | None:
    """The program with its strings, regular expressions and comments blanked, and the strings it holds."""
    out: list[str] = []
    strings: list[str] = []
    index, size, last = 0, len(program), ""
    while index < size:
        char = program[index]
        if char == '"':
            end = _delimited(program, index + 1, '"')
            if end is None:
                return None
            strings.append(program[index + 1:end - 1])
            out.append(f'"{len(strings) - 1}"')
            index, last = end, '"'
        elif char == "/" and (last == "" or last in "(,{};!~&|\n"):
            end = _delimited(program, index + 1, "/")
            if end is None:
                return None
            out.append("/r/")
            index, last = end, "/"
        elif char == "#":
            index = _until(program, index, "\n")
        else:
            out.append(char)
            if not char.isspace():
                last = char
            index += 1
    return "".join(out), strings


def awk_effects(program: str) -> Effects | None:
    stripped = _strip_awk(program)
    if stripped is None:
        return None
    code, strings = stripped
    effects: Effects = []
    for call in re.finditer(r"\bsystem\s*\(\s*(\"(\d+)\"\s*\))?", code):
        effects.append(("exec", strings[int(call.group(2))] if call.group(2) else None))
    if re.search(r"@load|@include", code) or re.search(r"(?<!\|)\|(?!\|)", code):
        effects.append(("exec", None))
    for statement in re.finditer(r"\bprintf?\b([^;{}\n]*)", code):
        depth = 0
        body = statement.group(1)
        for position, char in enumerate(body):
            depth += char == "("
            depth -= char == ")"
            if char == ">" and depth == 0:
                target = re.match(r'>?\s*"(\d+)"', body[position + 1:])
                effects.append(("write", strings[int(target.group(1))] if target else None))
                break
    return effects


def awk(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-F", "-v", "-f", "-e", "--source", "-E", "-l", "--load", "-i",
                                          "--include", "--field-separator", "--assign", "--file"}))
    if parsed.has("-f", "--file", "-E", "-l", "--load", "-i", "--include"):
        scope.cannot_tell(call.part)
        return
    programs = parsed.values("-e", "--source")
    operands = list(parsed.operands)
    if not programs and operands:
        programs = [operands.pop(0)]
    for program in programs:
        if program.value is None:
            scope.cannot_tell(call.part)
            continue
        _effects(awk_effects(program.value), call, scope)
    for operand in operands:
        if operand.value is not None and "=" not in operand.value:
            scope.read(operand)


def _effects(effects: Effects | None, call: Call, scope: Scope) -> None:
    if effects is None:
        scope.cannot_tell(call.part)
        return
    for kind, value in effects:
        if kind == "exec":
            scope.raise_to("high", "runs_program", call.part)
            if value:
                scope.script(value)
            else:
                scope.cannot_tell(call.part)
        elif kind == "write":
            if value is None:
                scope.cannot_tell(call.part)
            elif value not in ("/dev/stdout", "/dev/stderr"):
                scope.write(Word.literal(value))
        elif value is not None:
            scope.read(Word.literal(value))


PROGRAMS = {"sed": sed, "gsed": sed, "awk": awk, "mawk": awk, "gawk": awk, "nawk": awk, "busybox-awk": awk}
