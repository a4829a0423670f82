"""Shells and interpreters: the code they run is what is judged, wherever it comes from: `-c`/`-e` text in any
spelling (`-c CODE`, `-cCODE`, `"-cCODE"`, `-Bc`, `--eval=CODE`), a file (the project's own script is medium),
standard input (a heredoc, a here-string, a pipe), a process substitution, a module (`python3 -m pytest`)."""

from __future__ import annotations

import sys

from hub.domain.risk.code import judge_code
from hub.domain.risk.network import loopback
from hub.domain.risk.options import parse
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Judge, Scope
from hub.domain.risk.scripts import fed, script_file
from hub.domain.risk.words import Word, names

# Shells whose language the hub reads as bash's; the others' code is judged as bash's too, and is "cannot tell".
BASH_LIKE = frozenset({"sh", "bash", "dash", "ash", "ksh", "mksh", "zsh", "yash", "posh", "rbash", "lksh", "oksh"})
OTHER_SHELLS = frozenset({"fish", "csh", "tcsh", "xonsh", "nu", "elvish", "rc", "es"})


def shell(call: Call, scope: Scope) -> None:
    """sh/bash [options] [-c TEXT [name args…] | -s | FILE args…]"""
    words = call.words
    command_text = False
    operands: list[Word] = []
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            operands = words[index:]
            break
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            option = words[index + 1].value if index + 1 < len(words) else None
            if value in ("-O", "--rcfile", "--init-file") and option != "extglob":
                scope.cannot_tell(call.part)
            index += 2
            continue
        if value.startswith("--"):
            if value in ("--version", "--help"):
                return
            index += 1
            continue
        if value.startswith(("-", "+")) and value not in ("-", "+"):
            command_text = command_text or "c" in value[1:]
            if "n" in value[1:] and value.startswith("-") and "c" not in value[1:]:
                return  # bash -n: read, not run
            index += 1
            continue
        operands = words[index:]
        break
    part = f"{call.name}"
    if call.name in OTHER_SHELLS:
        scope.cannot_tell(call.part)

    def judge(text: str) -> None:
        scope.script(text)

    if command_text:
        if not operands:
            return
        text = operands[0]
        if text.value is None:
            origin = scope.origin(text)
            if origin is not None:
                scope.raise_to("high", "runs_download", origin)
            scope.cannot_tell(f"{part} -c {clip(text.text, 40)}")
        else:
            judge(text.value)
        return
    if operands:
        script_file(operands[0], call, scope, judge)
    else:
        fed(call.stdin, scope, judge, call.name)


def _inline_flag(value: str, flags: str) -> tuple[bool, str | None]:
    """Whether `value` is a bundle of short options ending in one of `flags` (`-Bc`, `-pe`), and the code when it
    is attached (`-cimport os`)."""
    if not value.startswith("-") or value.startswith("--") or len(value) < 2:
        return False, None
    for position, letter in enumerate(value[1:], start=1):
        if letter in flags:
            rest = value[position + 1:]
            return True, rest if rest else None
        if not letter.isalnum():
            return False, None
    return False, None


def python(call: Call, scope: Scope) -> None:
    """python [-BEIOPqsSuvx…] [-W arg] [-X opt] (-c CODE | -m MODULE | FILE | -) [args]"""
    words = call.words
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            scope.cannot_tell(call.part)
            return
        if value in ("--version", "-V", "-VV", "--help", "-h", "--help-all"):
            return
        if value in ("-W", "-X", "--check-hash-based-pycs") or value.startswith(("-W", "-X")):
            option = value[2:] if len(value) > 2 else (_next(words, index) or "")
            fields = option.split(":")
            if value.startswith("-W") and len(fields) >= 3 and "." in fields[2]:
                scope.cannot_tell(f"{call.name} -W {option}")  # a warning category is imported from its module
            index += 1 if len(value) > 2 else 2
            continue
        if value == "--command" or value.startswith("--command="):
            code = value.partition("=")[2] if "=" in value else _next(words, index)
            _code("python", code, call, scope)
            return
        is_code, attached = _inline_flag(value, "cm")
        if is_code:
            letter = next(c for c in value[1:] if c in "cm")
            text = attached if attached is not None else _next(words, index)
            if letter == "c":
                _code("python", text, call, scope)
            else:
                rest = words[index + (1 if attached is not None else 2):]
                _module(text, rest, call, scope)
            return
        if value.startswith("-") and value != "-":
            index += 1
            continue
        script_file(words[index], call, scope, lambda text: judge_code("python", text, scope, call.name))
        return
    fed(call.stdin, scope, lambda text: judge_code("python", text, scope, call.name), call.name)


def _next(words: list[Word], index: int) -> str | None:
    return words[index + 1].value if index + 1 < len(words) else ""


def _code(language: str, code: str | None, call: Call, scope: Scope, *, printed: bool = False) -> None:
    if code is None:
        scope.cannot_tell(call.part)
    else:
        judge_code(language, code, scope, call.name, printed=printed)


# `python -m X`: modules that run the project's tests, checks and builds; those that serve, install or publish.
_PROJECT_MODULES = names("""
pytest unittest doctest mypy ruff black isort flake8 pylint pyright coverage tox nox build compileall py_compile
pre_commit sphinx mkdocs django flask uvicorn gunicorn hypercorn celery alembic pyinstaller nuitka cython
setuptools wheel hatch hatchling pdm poetry pipenv ipykernel jupyter notebook nbconvert pydoc_data bandit vulture
radon pyflakes pycodestyle pydocstyle autopep8 yapf mypyc stubgen pip_audit safety cProfile profile trace timeit pdb
""")
_READ_MODULES = frozenset({"uuid", "json.tool", "site", "platform", "sysconfig", "tabnanny", "this", "calendar",
                           "tokenize", "ast", "dis", "pip.__main__", "sqlite3.dump"})


def _module(name: str | None, rest: list[Word], call: Call, scope: Scope) -> None:
    from hub.domain.risk.packages import pip, twine

    if name is None:
        scope.cannot_tell(call.part)
    elif name == "pip":
        pip(Call("pip", rest, call.text, call.input), scope)
    elif name == "twine":
        twine(Call("twine", rest, call.text, call.input), scope)
    elif name in ("venv", "virtualenv"):
        targets = [w for w in rest if w.value is None or not w.value.startswith("-")]
        for target in targets[:1]:
            scope.write(target, "output")  # Python's own files, nothing of the command's
    elif name in ("http.server", "SimpleHTTPServer", "smtpd", "pydoc") and not (name == "pydoc" and rest and
                                                                              rest[0].value != "-p"):
        scope.raise_to("medium", "serves", f"python -m {name}")
        folder = parse(rest, frozenset({"-d", "--directory", "-b", "--bind"})).value("-d", "--directory")
        place = scope.place(folder) if folder is not None else None
        if folder is not None and (place is None or place.kind not in ("project", "project_all")):
            scope.raise_to("high", "sends_files", f"the network ({folder.text})")
    elif name in _READ_MODULES:
        operands = [w for w in rest if w.value is None or not w.value.startswith("-")]
        if name == "json.tool" and len(operands) > 1:
            scope.write(operands[1])  # json.tool INFILE OUTFILE
        for operand in operands[:1]:
            scope.read(operand)
    elif name in ("timeit",):
        for word in rest:
            if word.value is not None and not word.value.startswith("-"):
                _code("python", word.value, call, scope)
    elif name in _AS_PROGRAM:  # the tool itself, its operands judged as it judges them (`pytest /tmp/x.py`)
        scope.run([Word.literal(_AS_PROGRAM[name]), *rest], call.stdin, call.text)
    elif name in ("tarfile", "zipfile"):
        parsed = parse(rest, frozenset({"-e", "--extract", "-c", "--create"}))
        for option, value in parsed.options:
            if option in ("-e", "--extract"):
                destination = parsed.operands[0] if parsed.operands else Word.literal(".")
                scope.write(destination)
                if name == "tarfile" and not parsed.has("--filter"):
                    scope.raise_to("high", "write_outside", f"paths the archive chooses ({call.name} -m tarfile)")
            elif option in ("-c", "--create") and value is not None:
                scope.write(value)
    elif name in ("cProfile", "profile", "trace", "pdb", "runpy"):
        runner = parse(rest, frozenset({"-o", "--outfile", "-s", "--sort", "-c", "--file", "-C", "--coverdir",
                                        "--ignore-module", "--ignore-dir"}), first_operand_stops=True)
        for target in runner.values("-o", "--outfile", "--file"):
            scope.write(target)
        if runner.has("-m") and runner.operands:
            _module(runner.operands[0].value, runner.operands[1:], call, scope)
        elif runner.operands:
            script_file(runner.operands[0], call, scope, lambda text: judge_code("python", text, scope, call.name))
        else:
            fed(call.stdin, scope, lambda text: judge_code("python", text, scope, call.name), call.name)
    elif name in ("code", "asyncio", "idlelib", "rlcompleter"):  # a console: standard input is its code
        fed(call.stdin, scope, lambda text: judge_code("python", text, scope, call.name), call.name)
        if not call.stdin.present:
            scope.cannot_tell(f"{call.name} -m {name}")
    elif name.split(".")[0] in _STANDARD and name not in _PROJECT_MODULES:
        scope.cannot_tell(f"{call.name} -m {name}")  # a module of Python's own that the hub has not read
    else:
        scope.raise_to("medium", "runs_project", f"{call.name} -m {name}")


# `python -m X` of a tool judged as that tool (its operands outside the project, its options that run programs).
_AS_PROGRAM = {"pytest": "pytest", "coverage": "coverage", "tox": "tox", "nox": "nox", "pre_commit": "pre-commit",
               "mypy": "mypy", "ruff": "ruff", "black": "black", "isort": "isort", "flake8": "flake8",
               "pylint": "pylint", "build": "build", "uv": "uv", "poetry": "poetry", "pipx": "pipx"}
_STANDARD = frozenset(sys.stdlib_module_names)


def node(call: Call, scope: Scope) -> None:
    """node [options] (-e CODE | -p CODE | --eval=CODE | FILE | -) [args]"""
    words = call.words
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            scope.cannot_tell(call.part)
            return
        if value in ("--version", "-v", "--help", "-h", "--check", "-c"):
            return
        name, equals, attached = value.partition("=")
        if name in ("-e", "--eval", "-p", "--print") or (name.startswith("-") and not name.startswith("--") and
                                                        name[-1] in "ep" and set(name[1:]) <= set("ep")):
            code = attached if equals else _next(words, index)
            printed = name == "--print" or (not name.startswith("--") and "p" in name)
            _code("js", code, call, scope, printed=printed)
            return
        if name in ("-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file"):
            module = Word.literal(attached) if equals else (words[index + 1] if index + 1 < len(words) else None)
            if module is None or module.value is None:
                scope.cannot_tell(call.part)
            elif module.value.startswith((".", "/", "~")):
                script_file(module, call, scope, lambda text: _code("js", text, call, scope))
            else:
                scope.raise_to("medium", "runs_project", call.part)
            index += 1 if equals else 2
            continue
        if name in ("--test", "--run"):
            scope.raise_to("medium", "runs_project", call.part)
            return
        if name in ("--openssl-config", "--snapshot-blob", "--build-snapshot", "--experimental-sea-config",
                    "--experimental-policy", "--experimental-loader", "--icu-data-dir"):
            scope.cannot_tell(f"{call.name} {name}")  # a file node loads code or an engine from
        if name.startswith(("--inspect", "--debug")) and equals and (host := attached.rpartition(":")[0]) and (
                not loopback(host.strip("[]")) or host.strip("[]") in ("0.0.0.0", "::")):  # every interface
            scope.raise_to("high", "serves", f"a debugger on {host}, which runs any code sent to it")
        if value.startswith("-") and value != "-":
            index += 1
            continue
        script_file(words[index], call, scope, lambda text: _code("js", text, call, scope))
        return
    fed(call.stdin, scope, lambda text: _code("js", text, call, scope), call.name)


def perl(call: Call, scope: Scope) -> None:
    """perl [-lnpai…] [-M module] [-i[ext]] (-e CODE… | FILE) [files]"""
    parsed = parse(call.words, frozenset({"-e", "-E", "-M", "-m", "-I", "-F", "-x", "-C", "-0", "-l", "-V", "-d",
                                          "-D"}))
    codes = parsed.values("-e", "-E")
    modules = [m.value or "" for m in parsed.values("-M", "-m")]
    if parsed.has("-v", "-V", "-c") and not codes:
        return
    allowed = {"strict", "warnings", "utf8", "feature", "List::Util", "Data::Dumper", "JSON::PP", "open=:std,:utf8"}
    for folder in parsed.values("-I"):  # modules (even `strict`) are looked up there first
        place = scope.place(folder)
        if place is None or not place.inside:
            scope.cannot_tell(f"{call.name} -I {folder.text}")
    if parsed.has("-d", "-D"):
        scope.cannot_tell(call.part)  # -d:Module loads Devel::Module
    if any(module.split("=")[0] not in allowed and module not in allowed for module in modules):
        scope.cannot_tell(call.part)
    files = parsed.operands
    if codes:
        for code in codes:
            _code("perl", code.value, call, scope)
    elif files:
        script_file(files[0], call, scope, lambda text: _code("perl", text, call, scope))
        files = []
    else:
        fed(call.stdin, scope, lambda text: _code("perl", text, call, scope), call.name)
    in_place = any(name == "-i" for name, _ in parsed.options)
    for file in files:
        scope.write(file) if in_place else scope.read(file)


def simple(language: str, flags: tuple[str, ...]) -> Judge:
    """ruby/php/lua/osascript/pwsh…: `flag CODE` is code, the first operand a file of code, else standard input."""

    def judge(call: Call, scope: Scope) -> None:
        words = call.words
        for index, word in enumerate(words):
            value = word.value
            if value is None:
                scope.cannot_tell(call.part)
                return
            if language in ("ruby", "php") and (value in ("-l", "-c") or (index == 0 and value in (
                    "--version", "-v", "-V", "--help", "-h"))):
                return
            if value in flags or value.lower() in flags:
                _code(language, _next(words, index), call, scope)
                return
            if value in ("-S",) and language == "php":
                scope.raise_to("medium", "serves", call.part)
                return
            if language == "pwsh" and value.lower() in ("-encodedcommand", "-enc", "-e", "-ec"):
                scope.cannot_tell(call.part)
                return
            if not value.startswith("-"):
                script_file(word, call, scope, lambda text: _code(language, text, call, scope))
                return
        fed(call.stdin, scope, lambda text: _code(language, text, call, scope), call.name)

    return judge


def deno(call: Call, scope: Scope) -> None:
    verb = call.words[0].value if call.words else ""
    rest = call.words[1:]
    if verb == "eval":
        operands = [w for w in rest if w.value is None or not w.value.startswith("-")]
        _code("js", operands[0].value if operands else "", call, scope, printed="-p" in [w.value for w in rest])
    elif verb == "run" or (verb and verb.endswith((".ts", ".js", ".mjs", ".tsx"))):
        operands = [w for w in (rest if verb == "run" else call.words) if w.value is None or
                    not w.value.startswith("-")]
        target = operands[0] if operands else None
        if target is not None and target.value is not None and target.value.startswith(("http://", "https://",
                                                                                       "npm:", "jsr:")):
            from hub.domain.risk.network import host_of

            scope.raise_to("high", "runs_download", host_of(target.value) or target.value.split(":")[0])
        elif target is not None:
            script_file(target, call, scope, lambda text: _code("js", text, call, scope))
    elif verb in ("--version", "-V", "--help", "-h", "info", "doc", "types", "completions"):
        return
    elif verb in ("install", "upgrade", "uninstall", "compile"):
        scope.raise_to("high", "installs_program", call.part)
    else:
        scope.raise_to("medium", "runs_project", call.part)


def java(call: Call, scope: Scope) -> None:
    """java [options] (-jar FILE.jar | CLASS | FILE.java) [args]: the project's classes are its own code."""
    words = call.words
    index = 0
    while index < len(words):
        value = words[index].value
        if value is None:
            scope.cannot_tell(call.part)
            return
        if value in ("-version", "--version", "-showversion", "--help", "-help", "-h", "-?"):
            return
        if value.startswith(("-javaagent:", "-agentpath:", "-agentlib:", "-XX:OnError", "-XX:OnOutOfMemoryError")):
            agent = value.split(":", 1)[1].split("=")[0]
            place = scope.folders.place(agent)
            if place is None or place.kind not in ("project", "project_all") or value.startswith("-XX:"):
                scope.cannot_tell(f"{call.name} {value}")
            index += 1
            continue
        if value in ("-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-opens", "--add-exports"):
            index += 2
            continue
        if value == "-jar" and index + 1 < len(words):
            script_file(words[index + 1], call, scope, lambda text: scope.cannot_tell(call.part))
            return
        if value.startswith("-"):
            index += 1
            continue
        if value.endswith(".java"):
            script_file(words[index], call, scope, lambda text: scope.cannot_tell(call.part))
        else:
            scope.raise_to("medium", "runs_project", call.part)
        return


PROGRAMS = {
    "java": java, **{name: shell for name in BASH_LIKE | OTHER_SHELLS}, "python": python, "python3": python,
    "python2": python,
    "pypy": python, "pypy3": python, "node": node, "nodejs": node, "ts-node": node, "tsx": node, "esno": node,
    "vite-node": node, "perl": perl, "ruby": simple("ruby", ("-e",)), "php": simple("php", ("-r",)),
    "lua": simple("lua", ("-e",)), "luajit": simple("lua", ("-e",)), "Rscript": simple("r", ("-e",)),
    "osascript": simple("applescript", ("-e",)), "pwsh": simple("pwsh", ("-c", "-command")),
    "powershell": simple("pwsh", ("-c", "-command")), "tclsh": simple("tcl", ()), "deno": deno,
}
