"""A program's words split into options and operands the way GNU getopt reads them."""

from __future__ import annotations

from dataclasses import dataclass, field

from hub.domain.risk.words import Word


@dataclass
class Parsed:
    """Options as (name, value) in order (`-o file`, `--out=file`, bundled `-xzf a.tgz`) and the operands."""

    options: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    unknown: list[Word] = field(default_factory=list)  # words chosen at run time: an option or an operand?

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def value(self, *names: str) -> Word | None:
        found = None
        for name, value in self.options:
            if name in names:
                found = value
        return found

    def values(self, *names: str) -> list[Word]:
        return [value for name, value in self.options if name in names and value is not None]


def parse(words: list[Word], takes_value: frozenset[str] | set[str] = frozenset(), *,
          first_operand_stops: bool = False, long_only_dash: bool = False) -> Parsed:
    """Split `words`: options in `takes_value` take the next word (or the rest of their bundle, or `=value`);
    `--` ends the options; `first_operand_stops` for programs that take options only before their operands
    (wrappers: `sudo -u x cmd -rf` keeps `-rf` for `cmd`). `long_only_dash`: `-name value` is one option (find)."""
    parsed = Parsed()
    index = 0
    while index < len(words):
        word = words[index]
        value = word.value
        index += 1
        if value is None:
            parsed.unknown.append(word)
            parsed.operands.append(word)
            if first_operand_stops:
                parsed.operands += words[index:]
                break
            continue
        if value == "--":
            parsed.operands += words[index:]
            break
        if not value.startswith("-") or value == "-":
            parsed.operands.append(word)
            if first_operand_stops:
                parsed.operands += words[index:]
                break
            continue
        if value.startswith("--") or long_only_dash:
            name, equals, inline = value.partition("=")
            if equals:
                parsed.options.append((name, Word.literal(inline)))
            elif name in takes_value and index < len(words):
                parsed.options.append((name, words[index]))
                index += 1
            else:
                parsed.options.append((name, None))
            continue
        letters = value[1:]
        for position, letter in enumerate(letters):
            name = "-" + letter
            if name in takes_value:
                rest = letters[position + 1:]
                if rest:
                    parsed.options.append((name, Word.literal(rest.removeprefix("="))))
                elif index < len(words):
                    parsed.options.append((name, words[index]))
                    index += 1
                else:
                    parsed.options.append((name, None))
                break
            parsed.options.append((name, None))
    return parsed


def subcommand(words: list[Word], takes_value: frozenset[str] | set[str] = frozenset()
               ) -> tuple[str | None, list[Word]]:
    """The first operand (a tool's subcommand: `npm run`, `docker ps`) and the words after it: "" when there is
    none, None when it is chosen at run time."""
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            return None, words[index + 1:]
        if value.startswith("-"):
            index += 2 if value in takes_value else 1
            continue
        return value, words[index + 1:]
    return "", []


def abbreviates(name: str, *longs: str, shortest: int = 3) -> str | None:
    """The long option of `longs` that `name` spells, in full or cut short as GNU getopt, git and argp accept it
    (`--upload-p` is `--upload-pack`); None if none. Checked against the options that run programs, a prefix of one
    is that one, even where another option shares the prefix (the program would refuse it as ambiguous)."""
    if not name.startswith("--") or len(name) < 2 + shortest:
        return name if name in longs else None
    for full in longs:
        if full == name or (full.startswith("--") and full.startswith(name)):
            return full
    return None
