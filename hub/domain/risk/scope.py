"""What a program's judge is given: the call (its name, words and standard input) and the scope it runs in (the
assessment it raises, the folders paths are judged against, how deep it is nested, how to judge a command inside).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Protocol

from hub.domain.risk.paths import Folders, Place, normalize
from hub.domain.risk.reasons import Assessment, Ran, Written, clip
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
          "git": ("medium", "write_project"), "workdir": ("medium", "write_path"),
          "workdir_all": ("medium", "write_path"), "cache": ("medium", None), "temp": ("low", None),
          "system": ("high", "write_system"), "everything": ("high", "write_outside"),
          "home": ("high", "write_outside"), "home_all": ("high", "write_outside"),
          "outside": ("high", "write_outside"), "device": ("low", None)}
_DELETE = {"project": ("medium", "delete_project"), "project_all": ("high", "delete_project_all"),
           "git": ("high", "delete_git"), "workdir": ("medium", "delete_path"), "workdir_all": ("high", "delete_path"),
           "cache": ("medium", "delete_cache"), "temp": ("medium", "delete_temp"),
           "system": ("high", "delete_system"), "everything": ("high", "delete_everything"),
           "home": ("high", "delete_home"), "home_all": ("high", "delete_home_all"),
           "outside": ("high", "delete_outside"), "device": ("high", "delete_system")}
_DELETE_SENSITIVE = {"keys": "delete_keys", "authorized_keys": "delete_keys", "secrets": "delete_keys",
                     "startup": "delete_startup", "agent": "delete_settings", "hooks": "delete_settings",
                     "gitconfig": "delete_settings", "schedule": "delete_system", "path_bin": "delete_system",
                     "ci": "delete_ci"}
# What a link made in the same command points at, when that is itself high: a later write or deletion through it
# (in this approval or the next) lands there.
_LINK_TARGETS = {"home": "link_home", "home_all": "link_home", "everything": "link_outside", "system": "link_outside",
                 "outside": "link_outside"}
# Reasons that mean the project's own code runs: with a file the same command wrote, that file may be what runs.
_PROJECT_RUNS = frozenset({"runs_project", "runs_script", "installs"})
_LINK_DEPTH = 8  # a link to a link … followed this far
# Reasons that place a path outside the project, and what they say when the item named none.
_UNPLACED = {"delete_outside": "delete_path", "write_outside": "write_path", "runs_outside": "runs_path",
             "chmod_outside": "chmod_path", "link_outside": "link_path", "git_outside": "git_changes"}


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
    # Links it made, by absolute path: what they point at (None: chosen at run time). A path through one (`link/*`,
    # `link/`, a write to `link`) is judged as where it leads.
    links: dict[str, PurePosixPath | None] = field(default_factory=dict)
    # What else the command set up for what follows: the git branch it checked out ("branch").
    state: dict[str, str | None] = field(default_factory=dict)

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

    def aim(self, link: Word, target: Word) -> PurePosixPath | None:
        """Where a link `link` → `target` leads: `target` relative to the link's folder (None: not known)."""
        path = self.folders.resolve(link.value) if link.value is not None else None
        if path is None or target.value is None:
            return None
        value = target.value
        return self.folders.resolve(value) if value.startswith(("/", "~")) else normalize(path.parent / value)

    def link(self, link: Word, target: Word) -> None:
        """`ln -s target link`: a later path through `link` goes to `target` (relative to the link's folder). A link
        to the home folder, the machine, a system folder, keys or anywhere else outside the project is itself high:
        a later approval's `rm -rf link/` or write through it would land there."""
        path = self.folders.resolve(link.value) if link.value is not None else None
        if path is None:
            return
        if target.value is None:
            self.links[str(path)] = None
            self.cannot_tell(f"a link to {clip(target.text, 40)}")
            return
        aim = self.aim(link, target)
        self.links[str(path)] = aim
        if aim is None:
            return
        place = self.folders.place(str(aim))
        shown = self.folders.shown(path)
        if place is None:
            return
        if place.kind == "sensitive" and place.category in ("keys", "authorized_keys", "secrets"):
            self.raise_to("high", "link_keys", shown)
        elif place.kind == "sensitive":
            self.raise_to("high", "link_outside", f"{shown} → {place.shown}")
        elif place.kind in _LINK_TARGETS:
            code = _LINK_TARGETS[place.kind]
            self.raise_to("high", code, shown if code == "link_home" else f"{shown} → {place.shown}")

    def through(self, word: Word, exact: bool = True) -> Word | None:
        """`word` as the path it leads to through links this command made (`link/*` → `~/*`); None when it goes
        through none. `exact`: whether `word` naming a link itself follows it (a write, a read, chmod: yes; `rm link`
        removes the link, `rm link/` what it points at)."""
        value = word.value
        if value is None or not self.links:
            return None
        path = self.folders.resolve(value)
        if path is None:
            return None
        trailing = value.endswith(("/", "/.")) and value not in ("/", "/.")
        followed = False
        for _ in range(_LINK_DEPTH):
            step = None
            for candidate in (path, *path.parents):
                if str(candidate) in self.links and (candidate != path or exact or trailing):
                    step = candidate
                    break
            if step is None:
                break
            aim = self.links[str(step)]
            if aim is None:
                return Word(word.text, None, False, False)
            path = normalize(aim / path.relative_to(step))
            followed = exact = True
        if not followed:
            return None
        return Word(word.text, str(path) + ("/" if trailing else ""), False, word.globby)

    def through_folder(self, path: PurePosixPath | None) -> PurePosixPath | None:
        """A folder as `cd` enters it: through links this command made."""
        if path is None or not self.links:
            return path
        led = self.through(Word.literal(str(path)))
        if led is None:
            return path
        return self.folders.resolve(led.value) if led.value is not None else None

    def raise_to(self, level: RiskLevel, code: str | None = None, part: str | None = None, *,
                 reads: frozenset[str] | None | bool = None) -> None:
        """Raise the assessment; a reason that the project's code runs (`_PROJECT_RUNS`) also notes what it reads
        (`reads`: None any file of the project, a set of paths without extension, False nothing)."""
        shown = None if part is None else clip(part, 60)
        if code in _UNPLACED and not self.folders.known:
            code = _UNPLACED[code]  # the item named no project: nothing is "outside" it
        self.found.raise_to(level, code, shown)
        if code in _PROJECT_RUNS and reads is not False:
            self.ran(shown or code or "", None if reads is None or reads is True else reads)

    def ran(self, part: str, reads: frozenset[str] | None = None) -> None:
        """The project's own code runs, reading `reads`: a file this command wrote may be what runs."""
        for written in self.found.note_run(Ran(part, reads)):
            self._runs_written(written)

    def wrote(self, word: Word, origin: str | None = None) -> None:
        """`word` now holds content the command chose (or, with `origin`, downloaded from that host), judged by the
        program that wrote it: noted for what the project's code later runs."""
        path = self.folders.resolve(word.value) if word.value is not None else None
        place = self.place(word)
        if path is None or place is None or not place.inside:
            return
        if origin is not None:
            self.remember(word, Stream(True, None, origin, "a download"))
        self._wrote(path, place)

    def _wrote(self, path: PurePosixPath, place: Place) -> None:
        if self.found.note_write(Written(str(path), place.shown)) is not None:
            self._runs_written(Written(str(path), place.shown))

    def _runs_written(self, written: Written) -> None:
        known = self.files.get(written.path)
        if known is not None and known.origin is not None:
            self.raise_to("high", "runs_download", known.origin)
        self.raise_to("high", "runs_written", written.shown)

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

    def write(self, word: Word, kind: str = "content") -> None:
        """`word` is a file written (created, overwritten, appended to, moved or copied onto). `kind`: "content"
        when the command chooses what goes in it; "empty" (mkdir, touch) and "output" (what a build makes of the
        project) put nothing of the command's in it."""
        for each in self._each(word):
            self._write(each, kind)

    def _write(self, word: Word, kind: str, through: bool = True) -> None:
        if through and (target := self.through(word)) is not None:
            self._write(target, kind, through=False)
        path = self.folders.resolve(word.value) if word.value is not None else None
        if path is not None:
            self.files.pop(str(path), None)  # what it holds now is what this write puts there, if anything
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"writes to {word.text}")
        elif place.kind == "sensitive":
            self.raise_to("high", f"write_{place.category}", place.shown)
        elif place.kind == "outside" and not self.folders.known and path is not None:
            self.raise_to("high", "write_path", self.folders.shown(path))  # the hub does not know the project
        else:
            level, code = _WRITE[place.kind]
            self.raise_to(level, code, place.shown if code else None)  # type: ignore[arg-type]
        if path is not None and place is not None and place.inside and kind == "content":
            self._wrote(path, place)

    def delete(self, word: Word) -> None:
        """`word` is a file or folder deleted (or moved away)."""
        for each in self._each(word):
            self._delete(each)

    def _delete(self, word: Word) -> None:
        if (target := self.through(word, exact=False)) is not None:
            word = target
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"deletes {word.text}")
        elif place.kind == "sensitive":
            self.raise_to("high", _DELETE_SENSITIVE[place.category or "keys"], place.shown)
        elif place.kind == "outside" and not self.folders.known and (path := self.folders.resolve(
                word.value or "")) is not None:
            self.raise_to("high", "delete_path", self.folders.shown(path))
        else:
            level, code = _DELETE[place.kind]
            self.raise_to(level, code, place.shown)  # type: ignore[arg-type]

    def chmod(self, word: Word) -> None:
        """`word`'s permissions or owner are changed."""
        for each in self._each(word):
            self._chmod(self.through(each) or each)

    def _chmod(self, word: Word) -> None:
        place = self.place(word)
        if place is None:
            self.cannot_tell(f"changes the permissions of {word.text}")
        elif place.inside:
            self.raise_to("medium", "chmod_project", place.shown)
        elif place.kind not in ("temp", "device"):
            self.raise_to("high", "chmod_outside", place.shown)

    def read(self, word: Word) -> None:
        """`word` is a file read: low, but keys and credentials read by an agent are theirs to send anywhere."""
        for each in self._each(word):
            self._read(self.through(each) or each)

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
