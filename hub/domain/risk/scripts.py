"""Code a shell or an interpreter runs from a file or from its standard input: the project's own script is medium;
standard input, `/dev/stdin` and process substitutions are judged by what the card holds of them, else high."""

from __future__ import annotations

from collections.abc import Callable

from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope, Stream
from hub.domain.risk.words import Word

STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# The person's own environment scripts that agents source before a build (`. "$HOME/.cargo/env"`).
ENVIRONMENT_SCRIPTS = frozenset({"~/.bashrc", "~/.bash_profile", "~/.profile", "~/.zshrc", "~/.zprofile",
                                 "~/.cargo/env", "~/.nvm/nvm.sh", "~/.sdkman/bin/sdkman-init.sh",
                                 "~/.rvm/scripts/rvm", "~/.asdf/asdf.sh", "~/.ghcup/env", "~/.deno/env"})


def fed(stream: Stream, scope: Scope, judge_text: Callable[[str], None], receiver: str) -> None:
    """What a program runs from its input: judged when the card holds the text, else high."""
    if not stream.present:
        return
    if stream.text is not None:
        judge_text(stream.text)
    elif stream.origin is not None:
        scope.raise_to("high", "runs_download", stream.origin)
    else:
        scope.cannot_tell(f"{receiver} runs what {stream.source} gives it")


def script_file(word: Word, call: Call, scope: Scope, judge_text: Callable[[str], None]) -> None:
    """A file of code `call` runs (`bash x.sh`, `source f`, `python3 f.py`)."""
    stream = scope.substituted(word)
    if stream is not None:  # `bash <(…)`: what the process substitution prints, unseen on the card
        scope.cannot_tell(f"{call.name} {clip(word.text, 40)}")
        fed(stream, scope, judge_text, call.name)
        return
    value = word.value
    if value is None:
        origin = scope.origin(word)
        if origin is not None:
            scope.raise_to("high", "runs_download", origin)
        scope.cannot_tell(f"{call.name} {clip(word.text, 40)}")
        return
    if value in STDIN_FILES:
        scope.cannot_tell(f"{call.name} {value}")
        fed(call.stdin, scope, judge_text, call.name)
        return
    place = scope.place(word)
    path = scope.folders.resolve(value)
    if place is None or path is None:
        scope.cannot_tell(f"{call.name} {clip(word.text, 40)}")
    elif (known := scope.known(value)) is not None:
        written(known, scope, judge_text, place.shown)
    elif scope.folders.shown(path) in ENVIRONMENT_SCRIPTS or place.inside:
        scope.raise_to("medium", "runs_script", place.shown)
    else:
        scope.raise_to("high", "runs_outside", place.shown)


def written(known: Stream, scope: Scope, judge_text: Callable[[str], None], shown: str) -> None:
    """A file the same command wrote before it runs it: what was written is what runs (`cat > x.sh <<EOF … EOF;
    bash x.sh`, `curl -o x.sh …; sh x.sh`)."""
    if known.origin is not None:
        scope.raise_to("high", "runs_download", known.origin)
    elif known.text is not None:
        scope.raise_to("medium", "runs_script", shown, reads=False)  # what it runs is the text judged here
        judge_text(known.text)


def run_written(known: Stream, scope: Scope, shown: str) -> None:
    """A written file run as a program: its `#!` line says in what language its text is judged."""
    from hub.domain.risk.code import judge_code

    first = (known.text or "").split("\n", 1)[0]
    if "python" in first:
        written(known, scope, lambda text: judge_code("python", text, scope, shown), shown)
    elif first.startswith("#!") and not any(shell in first for shell in ("sh", "bash", "dash", "zsh", "ksh")):
        written(known, scope, lambda text: scope.cannot_tell(f"{shown}: {first}"), shown)
    else:
        written(known, scope, scope.script, shown)
