"""What a program's judge is given: the call (its name, words and standard input) and the scope it runs in (the
assessment it raises, the folders paths are judged against, how deep it is nested, how to judge a command inside).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hub.domain.risk.paths import Folders, Place
from hub.domain.risk.reasons import Assessment, clip
from hub.domain.risk.words import Word, expand_braces
from hub.protocol.vocabulary import RiskLevel


@dataclass(frozen=True)
class Stream:
    """What a program reads on its standard input: nothing, known text, or a stream whose content the card does not
    hold (`origin`: the host it was downloaded from; `source`: what produces it)."""

    present: bool = False
    text: str | None = None
    origin: str | None = None
    source: str = ""


NOTHING = Stream()


@dataclass
class Call:
    """One command as bash runs it: its name (a literal), its words, its text and its standard input (read from the
    tree only when its judge asks: most never do)."""

    name: str
    words: list[Word]
    text: str
    input: Stream | Callable[[], Stream] = NOTHING

    @property
    def stdin(self) -> Stream:
        if not isinstance(self.input, Stream):
            self.input = self.input()
        return self.input

    @property
    def values(self) -> list[str | None]:
        return [word.value for word in self.words]

    @property
    def part(self) -> str:
        return clip(self.text, 60)


# A program's judge: reads the call's words and raises the scope's assessment.
Judge = Callable[[Call, "Scope"], None]


class Runner(Protocol):
    """How a judge has a command inside it judged (hub/domain/risk/shell.py)."""

    def script(self, text: str, scope: Scope, stdin: Stream = NOTHING) -> None: ...

    def run(self, words: list[Word], scope: Scope, stdin: Stream = NOTHING, text: str | None = None) -> None: ...

    def output(self, node: Any) -> Stream: ...


# Where a write goes → (level, code); the sensitive categories by their own code.
_WRITE = {"project": ("medium", "write_project"), "project_all": ("medium", "write_project"),
          "git": ("medium", "write_project"), "cache": ("medium", None), "temp": ("low", None),
          "system": ("high", "write_system"), "everything": ("high", "write_outside"),
          "home": ("high", "write_outside"), "home_all": ("high", "write_outside"),
          "outside": ("high", "write_outside"), "device": ("low", None)}
_DELETE = {"project": ("medium", "delete_project"), "project_all": ("high", "delete_project_all"),
           "git": ("high", "delete_git"), "cache": ("medium", "delete_cache"), "temp": ("medium", "delete_temp"),
           "system": ("high", "delete_system"), "everything": ("high", "delete_everything"),
           "home": ("high", "delete_home"), "home_all": ("high", "delete_home_all"),
           "outside": ("high", "delete_outside"), "device": ("high", "delete_system")}
_DELETE_SENSITIVE = {"keys": "delete_keys", "authorized_keys": "delete_keys", "secrets": "delete_keys",
                     "startup": "delete_startup", "agent": "delete_settings", "hooks": "delete_settings",
                     "gitconfig": "delete_settings", "schedule": "delete_system", "path_bin": "delete_system"}


@dataclass
class Scope:
    """The assessment being raised and where the command runs."""

    found: Assessment
    folders: Folders
    runner: Runner
    depth: int = 0
    functions: set[str] = field(default_factory=set)
    # Files this command wrote before, by absolute path: their text when the card holds it (`cat > x.sh <<EOF`), or
    # the host they were downloaded from (`curl -o x.sh …`); running one runs that (scripts.py).
    files: dict[str, Stream] = field(default_factory=dict)
    links: dict[str, Word] = field(default_factory=dict)  # symbolic links it made: a write to one writes its target

    def remember(self, word: Word, stream: Stream, append: bool = False) -> None:
        """`word` now holds what `stream` carries (after what it held, when appended)."""
        path = self.folders.resolve(word.value) if word.value is not None and not word.globby else None
        if path is None or not (stream.text is not None or stream.origin is not None):
            return
        before = self.files.get(str(path)) if append else None
        if before is not None:
            text = before.text + stream.text if before.text is not None and stream.text is not None else None
            stream = Stream(True, text, before.origin or stream.origin, stream.source)
        self.files[str(path)] = stream

    def known(self, value: str) -> Stream | None:
        """What this command put in `value` before: its text, or the host it (or a folder it is in) came from."""
        path = self.folders.resolve(value)
        if path is None:
            return None
        if (exact := self.files.get(str(path))) is not None:
            return exact
        for folder in list(path.parents)[:32]:
            found = self.files.get(str(folder))
            if found is not None and found.origin is not None:  # a file of a repository cloned from that host
                return Stream(True, None, found.origin, found.source)
        return None

    def link(self, link: Word, target: Word) -> None:
        """`ln -s target link`: a later write to `link` writes `target`."""
        path = self.folders.resolve(link.value) if link.value is not None else None
        if path is not None and target.value is not None:
            self.links[str(path)] = target

    def _through(self, word: Word) -> Word | None:
        path = self.folders.resolve(word.value) if word.value is not None else None
        return None if path is None else self.links.get(str(path))

    def raise_to(self, level: RiskLevel, code: str | None = None, part: str | None = None) -> None:
        self.found.raise_to(level, code, None if part is None else clip(part, 60))

    def cannot_tell(self, part: str, code: str = "cannot_tell") -> None:
        self.raise_to("high", code, part)

    def nested(self) -> Scope:
        """The scope of a command run by another (`sh -c`, a wrapper): one level deeper, same folders."""
        return replace(self, depth=self.depth + 1)

    def place(self, word: Word) -> Place | None:
        return self.folders.place(word.value, word.globby)

    def _each(self, word: Word) -> list[Word]:
        """`~/{.ssh,.aws}` is two paths, each judged."""
        if not word.globby or word.value is None or "{" not in word.value:
            return [word]
        return [Word(word.text, value, False, True, word.node) for value in expand_braces(word.value)]

    def write(self, word: Word) -> None:
        """`word` is a file written (created, overwritten, appended to, moved or copied onto)."""
        for each in self._each(word):
            self._write(each)

    def _write(self, word: Word, through: bool = True) -> None:
        if through and (target := self._through(word)) is not None:
            self._write(target, through=False)  # one link deep: a loop of links writes nothing more
        path = self.folders.resolve(word.value) if word.value is not None else None
        if path is not None:
            self.files.pop(str(path), None)  # what it holds now is what this write puts there, if anything
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"writes to {word.text}")
        elif place.kind == "sensitive":
            self.raise_to("high", f"write_{place.category}", place.shown)
        else:
            level, code = _WRITE[place.kind]
            self.raise_to(level, code, place.shown if code else None)  # type: ignore[arg-type]

    def delete(self, word: Word) -> None:
        """`word` is a file or folder deleted (or moved away)."""
        for each in self._each(word):
            self._delete(each)

    def _delete(self, word: Word) -> None:
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"deletes {word.text}")
        elif place.kind == "sensitive":
            self.raise_to("high", _DELETE_SENSITIVE[place.category or "keys"], place.shown)
        else:
            level, code = _DELETE[place.kind]
            self.raise_to(level, code, place.shown)  # type: ignore[arg-type]

    def chmod(self, word: Word) -> None:
        """`word`'s permissions or owner are changed."""
        for each in self._each(word):
            self._chmod(each)

    def _chmod(self, word: Word) -> None:
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"changes the permissions of {word.text}")
        elif place.kind in ("project", "project_all", "git"):
            self.raise_to("medium", "chmod_project", place.shown)
        elif place.kind not in ("temp", "device"):
            self.raise_to("high", "chmod_outside", place.shown)

    def read(self, word: Word) -> None:
        """`word` is a file read: low, but keys and credentials read by an agent are theirs to send anywhere."""
        for each in self._each(word):
            self._read(each)

    def _read(self, word: Word) -> None:
        place = self.place(word)
        if place is None or place.kind != "sensitive" or (word.value or "").endswith(".pub"):
            return
        if place.category in ("keys", "authorized_keys"):
            self.raise_to("high", "read_keys", place.shown)
        elif place.category == "secrets":
            self.raise_to("medium", "read_secrets", place.shown)

    def script(self, text: str, stdin: Stream = NOTHING) -> None:
        """Judge `text` as a shell script run by this command (`sh -c`, `eval`, a trap, an alias)."""
        self.runner.script(text, self.nested(), stdin)

    def run(self, words: list[Word], stdin: Stream = NOTHING, text: str | None = None) -> None:
        """Judge `words` as a command this one runs (a wrapper's command, find -exec, xargs, a Python list)."""
        self.runner.run(words, self.nested(), stdin, text)

    def origin(self, word: Word) -> str | None:
        """The host a `$(curl …)` inside `word` downloads from: `eval "$(curl -s https://x)"` runs it."""
        stack = [word.node] if word.node is not None else []
        for _ in range(64):
            if not stack:
                return None
            node = stack.pop()
            if node.type in ("command_substitution", "process_substitution"):
                return self.runner.output(node).origin
            stack.extend(node.named_children)
        return None

    def substituted(self, word: Word) -> Stream | None:
        """What a process substitution `<(…)` given as a file holds; None when `word` is not one."""
        node = word.substitution
        return None if node is None else self.runner.output(node)
