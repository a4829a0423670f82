"""Package managers beyond JavaScript's: pip, uv, poetry, pipenv, conda, pipx, twine, cargo, rustup, go, gem,
bundle, composer, and the system's (brew, apt, dnf, pacman …). Installing the project's dependencies is medium; an
index other than the public one (`--index-url http://evil.example/simple`), a URL or repository as a package,
installing programs onto the machine, publishing and changed settings are high."""

from __future__ import annotations

import re

from hub.domain.risk.network import host_of
from hub.domain.risk.options import abbreviates, parse, subcommand
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import Word

_PUBLIC_INDEXES = frozenset({"pypi.org", "files.pythonhosted.org", "test.pypi.org", "download.pytorch.org"})
_PIP_VALUES = frozenset({"-i", "--index-url", "--extra-index-url", "--trusted-host", "-f", "--find-links",
                         "--proxy", "--cert", "--client-cert", "-c", "--constraint", "-r", "--requirement", "-e",
                         "--editable", "-t", "--target", "--prefix", "--root", "--src", "--upgrade-strategy",
                         "--platform", "--python-version", "--implementation", "--abi", "--no-binary",
                         "--only-binary", "--progress-bar", "--log", "--cache-dir", "-C", "--config-settings",
                         "--global-option", "--install-option", "--report", "-d", "--dest", "-w", "--wheel-dir",
                         "--python", "--timeout", "--retries", "--exists-action", "-p", "--index", "--default-index",
                         "--with", "--from", "--group", "--extra", "--directory", "--project", "--package",
                         "--env-file", "--python-preference", "--torch-backend", "-P", "--upgrade-package",
                         "--resolution", "--prerelease", "--exclude-newer", "--refresh-package", "--reinstall-package",
                         "--link-mode", "--compile", "--color", "--config-file", "--keyring-provider",
                         "--index-strategy"})


def _indexes(parsed_values: list[Word], scope: Scope) -> None:
    for index in parsed_values:
        host = host_of(index.value or "")
        if index.value is None or (host is not None and host not in _PUBLIC_INDEXES) or (
                host is None and not (index.value or "").startswith((".", "/"))):
            scope.raise_to("high", "installs_from", host or index.text)


def _requirements(words: list[Word], scope: Scope, call: Call) -> None:
    """Packages named for an install: from a URL or a host, judged by where they come from; a local folder or file
    is built by running its own code (setup.py, a build backend)."""
    for word in words:
        value = word.value
        if value is None:
            scope.cannot_tell(call.part)
            continue
        url = re.sub(r"^(git|hg|svn|bzr)\+", "", value.split("@", 1)[-1].strip() if " @ " in value else value)
        if re.match(r"^[a-z][\w+.-]*://", url):
            host = host_of(url)
            if host not in _PUBLIC_INDEXES:
                scope.raise_to("high", "installs_from", host or value)
        elif value.startswith((".", "/", "~")) or value.endswith((".whl", ".tar.gz", ".zip")):
            place = scope.place(word)
            if place is None or not (place.inside or place.kind == "temp"):
                scope.raise_to("high", "installs_from", value)
            else:
                scope.ran(call.part)  # its setup.py or build backend runs: a file this command wrote may be it


# pip's options that hand text to a build's own commands or read settings that choose where packages come from.
_PIP_CANNOT = ("--global-option", "--install-option", "--config-settings", "--build-option")


def pip(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _PIP_VALUES)
    verb = parsed.operands[0].value if parsed.operands else ""
    rest = parsed.operands[1:]
    for name, _ in parsed.options:
        if name == "-C" or abbreviates(name, *_PIP_CANNOT):
            scope.cannot_tell(f"{call.name} {name}")
    for interpreter in parsed.values("--python"):  # pip runs itself with that interpreter
        scope.run([interpreter])
    for target in parsed.values("--log", "--log-file", "--report", "--src"):
        if target.value != "-":
            scope.write(target)
    for requirement_file in parsed.values("-r", "--requirement", "-c", "--constraint"):
        scope.read(requirement_file)
        scope.ran(call.part)  # the project's requirements: a file this command wrote may be one
    _indexes(parsed.values("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index",
                           "--default-index"), scope)
    for host in parsed.values("--trusted-host"):
        scope.raise_to("high", "installs_from", host.text)
    for target in parsed.values("-t", "--target", "--prefix", "--root", "-d", "--dest", "-w", "--wheel-dir"):
        scope.write(target)
    if verb in ("install", "download", "wheel", "sync", "compile"):
        _requirements(rest + parsed.values("-e", "--editable"), scope, call)
        if verb == "compile":
            scope.raise_to("medium", "write_project", "requirements")
        else:  # what runs of the project's own is noted where it is named (a local folder, -r, -e)
            scope.raise_to("medium", "installs", call.part, reads=False)
            here = scope.folders.here
            if here is not None:  # pip reads its settings (an index to install from) from a venv's pip.conf
                scope.ran(call.part, frozenset(str(here / name) for name in ("pip", ".venv/pip", "venv/pip")))
    elif verb in ("uninstall", "remove"):
        scope.raise_to("medium", "installs", call.part)
    elif verb == "config" and rest and rest[0].value not in ("list", "get", "debug"):
        scope.raise_to("high", "package_settings", call.part)
    elif verb == "cache" and rest and rest[0].value in ("purge", "remove"):
        scope.raise_to("medium", "delete_cache", "the pip cache")
    elif verb is None:
        scope.cannot_tell(call.part)


def twine(call: Call, scope: Scope) -> None:
    verb, _ = subcommand(call.words)
    if verb != "check":
        scope.raise_to("high", "publishes", call.part)


# Python tools `uvx`/`pipx run` may run as the project's own (judged as themselves).
PYTHON_TOOLS = frozenset({"ruff", "black", "mypy", "pytest", "isort", "flake8", "pyright", "pre-commit", "tox",
                          "nox", "hatch", "poetry", "pylint", "coverage", "ty", "basedpyright", "pip-audit",
                          "bandit", "codespell", "yamllint", "sqlfluff", "pdm", "maturin", "build", "twine",
                          "pyupgrade", "autoflake", "docformatter", "interrogate", "vulture", "pip-compile"})


def uv(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _PIP_VALUES, first_operand_stops=True)
    verb = parsed.operands[0].value if parsed.operands else ""
    rest = parsed.operands[1:]
    _indexes(parsed.values("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index",
                           "--default-index"), scope)
    if call.name == "uvx":
        _tool_run(call, scope, parsed.operands, parsed.values("--from", "--with"))
        return
    inner = parse(rest, _PIP_VALUES, first_operand_stops=verb == "run")
    _indexes(inner.values("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index",
                          "--default-index"), scope)
    if verb == "pip":
        pip(Call("pip", rest, call.text, call.input), scope)
    elif verb == "run":
        if inner.values("--with"):
            _requirements(inner.values("--with"), scope, call)
            scope.raise_to("medium", "installs", call.part)
        operands = inner.operands
        if operands and operands[0].value is not None and operands[0].value.endswith(".py"):
            operands = [Word.literal("python"), *operands]
        if operands:
            scope.run(operands, call.stdin)
    elif verb == "tool":
        action = rest[0].value if rest else ""
        if action == "run":
            _tool_run(call, scope, parse(rest[1:], _PIP_VALUES, first_operand_stops=True).operands,
                      parse(rest[1:], _PIP_VALUES, first_operand_stops=True).values("--from", "--with"))
        elif action in ("install", "upgrade"):
            scope.raise_to("high", "installs_program", call.part)
        elif action not in ("list", "dir", "uninstall", "update-shell"):
            scope.cannot_tell(call.part)
    elif verb == "publish":
        scope.raise_to("high", "publishes", call.part)
    elif verb in ("add", "remove", "sync", "lock", "venv", "init", "build", "export", "python", "tree", "version",
                  "self", "generate-shell-completion", "--version", "-V", "--help", "help", "cache", "format"):
        _requirements([w for w in inner.operands] if verb == "add" else [], scope, call)
        if verb in ("tree", "--version", "-V", "--help", "help", "generate-shell-completion"):
            return
        if verb == "cache" and rest and rest[0].value in ("clean", "prune"):
            scope.raise_to("medium", "delete_cache", "the uv cache")
        elif verb == "self":
            scope.raise_to("high", "installs_program", call.part)
        elif verb == "format":
            scope.raise_to("medium", "runs_project", call.part)
        else:
            scope.raise_to("medium", "installs", call.part)
    else:
        scope.cannot_tell(call.part)


def _tool_run(call: Call, scope: Scope, operands: list[Word], sources: list[Word]) -> None:
    """uvx / pipx run / uv tool run: a known tool runs as itself; another package is downloaded and run."""
    if not operands or operands[0].value is None:
        scope.cannot_tell(call.part)
        return
    name = re.split(r"[@=<>]", operands[0].value)[0]
    if sources or name not in PYTHON_TOOLS or re.search(r"[@=]", operands[0].value):
        scope.raise_to("high", "runs_package", operands[0].text)
        return
    scope.run([Word.literal(name), *operands[1:]], call.stdin)


def pipx(call: Call, scope: Scope) -> None:
    verb, rest = subcommand(call.words, frozenset({"--python", "--spec", "--index-url", "--pip-args"}))
    if verb == "run":
        _tool_run(call, scope, parse(rest, _PIP_VALUES, first_operand_stops=True).operands,
                  parse(rest, _PIP_VALUES).values("--spec"))
    elif verb in ("install", "inject", "upgrade", "upgrade-all", "reinstall", "reinstall-all", "install-all"):
        scope.raise_to("high", "installs_program", call.part)
    elif verb in ("uninstall", "uninstall-all", "ensurepath", "runpip"):
        scope.raise_to("medium", "installs", call.part)
    elif verb not in ("list", "environment", "--version", "completions", ""):
        scope.cannot_tell(call.part)


def project_manager(call: Call, scope: Scope) -> None:
    """poetry, pipenv, pdm, hatch, rye, conda, mamba: `run` runs a command; `publish` publishes; settings are high;
    the rest installs or builds the project (medium)."""
    parsed = parse(call.words, frozenset({"-C", "--directory", "-P", "--project", "-n", "--name", "-p", "--prefix",
                                          "-c", "--channel", "-e", "--env", "--python", "--source"}),
                   first_operand_stops=True)
    verb = parsed.operands[0].value if parsed.operands else ""
    rest = parsed.operands[1:]
    if verb in ("run",):
        inner = parse(rest, frozenset({"-n", "--name", "-p", "--prefix", "-e", "--env"}), first_operand_stops=True)
        if inner.operands:
            scope.run(inner.operands, call.stdin)
    elif verb in ("publish", "upload", "release"):
        scope.raise_to("high", "publishes", call.part)
    elif verb == "config" and rest and not any(w.value in ("--list", "--show", "list", "show", "get") for w in rest):
        scope.raise_to("high", "package_settings", call.part)
    elif verb == "source" and rest and rest[0].value == "add":
        scope.raise_to("high", "installs_from", call.part)
    elif verb in ("self", "global") or (call.name in ("conda", "mamba") and "--name" in call.values and "base" in
                                        call.values):
        scope.raise_to("high", "installs_program", call.part)
    elif verb in ("show", "list", "info", "--version", "-V", "check", "env", "search", "graph", "tree", "which",
                  "--help", "help", "version", "status", ""):
        if verb in ("env",) and rest and rest[0].value in ("remove", "create", "use", "update"):
            scope.raise_to("medium", "installs", call.part)
    elif verb is None:
        scope.cannot_tell(call.part)
    else:
        _requirements([w for w in rest if w.value is None or not w.value.startswith("-")]
                      if verb in ("add", "install") and call.name in ("poetry", "pdm", "rye", "pipenv") else [],
                      scope, call)
        scope.raise_to("medium", "installs", call.part)


def cargo(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"--config", "-Z", "-C", "--manifest-path", "-p", "--package", "--bin",
                                          "--example", "--test", "--bench", "--features", "-F", "--target",
                                          "-j", "--jobs", "--profile", "--target-dir", "--color"}),
                   first_operand_stops=True)
    verb = parsed.operands[0].value if parsed.operands else ""
    if parsed.has("--config", "-Z"):
        scope.cannot_tell(call.part)
    for folder in parse(call.words, frozenset({"--manifest-path", "-C", "--config", "-Z", "-p", "--package", "--bin",
                                                "--example", "--test", "--bench", "--features", "-F", "--target",
                                                "-j", "--jobs", "--profile", "--target-dir", "--color"})
                       ).values("--manifest-path", "-C"):
        place = scope.place(folder)
        if place is None or not place.inside:
            scope.raise_to("high", "runs_outside", f"{folder.text} (cargo)")
    if verb in ("install",):
        scope.raise_to("high", "installs_program", call.part)
    elif verb in ("publish", "yank", "owner", "login", "logout"):
        scope.raise_to("high", "publishes", call.part)
    elif verb in ("search", "info", "--version", "-V", "--list", "help", "metadata", "tree", "locate-project",
                  "pkgid", "read-manifest", "verify-project", ""):
        return
    elif verb in ("add", "remove", "rm", "update", "fetch", "vendor", "generate-lockfile", "uninstall"):
        scope.raise_to("medium", "installs", call.part)
    elif verb is None:
        scope.cannot_tell(call.part)
    else:
        scope.raise_to("medium", "runs_project", call.part)  # build, test, run, check, clippy, fmt, doc, bench…


def rustup(call: Call, scope: Scope) -> None:
    verb, rest = subcommand(call.words)
    if verb in ("show", "--version", "-V", "which", "doc", "help", "completions", ""):
        return
    if verb == "self":
        scope.raise_to("high", "installs_program", call.part)
    else:
        scope.raise_to("medium", "installs", call.part)


def go(call: Call, scope: Scope) -> None:
    verb, rest = subcommand(call.words, frozenset({"-C"}))
    for index, word in enumerate(call.words):  # go's own flags that run another program or read another folder
        name, equals, attached = (word.value or "").lstrip("-").partition("=")
        if (word.value or "").startswith("-") and name in ("toolexec", "exec", "overlay", "modfile", "C", "pgo"):
            text = attached if equals else (call.words[index + 1].value if index + 1 < len(call.words) else None)
            if name == "C" and text is not None:
                place = scope.folders.place(text)
                if place is None or not place.inside:
                    scope.raise_to("high", "runs_outside", f"{text} (go -C)")
            elif name in ("toolexec", "exec") and text is not None:
                scope.raise_to("high", "runs_program", f"go -{name}")
                scope.script(text)
            elif name not in ("pgo",) or text not in (None, "auto", "off", "default.pgo"):
                scope.cannot_tell(f"go -{name}")
    operands = [w for w in rest if w.value is None or not w.value.startswith("-")]
    remote = [w for w in operands if w.value is None or "@" in (w.value or "") or re.match(
        r"^[\w-]+\.[\w.-]+/", w.value or "")]
    if verb in ("version", "list", "doc", "help", "") or (verb == "env" and "-w" not in call.values):
        return
    if verb == "env":
        scope.raise_to("high", "package_settings", call.part)
    elif verb == "run" and remote:
        scope.raise_to("high", "runs_package", remote[0].text)
    elif verb == "install":
        scope.raise_to("high", "installs_program", call.part)
    elif verb in ("get", "mod", "work"):
        scope.raise_to("medium", "installs", call.part)
    elif verb is None:
        scope.cannot_tell(call.part)
    else:
        scope.raise_to("medium", "runs_project", call.part)  # build, test, vet, fmt, generate, run ./cmd…


def gem(call: Call, scope: Scope) -> None:
    verb, _ = subcommand(call.words)
    if verb in ("install", "update", "cleanup"):
        scope.raise_to("high", "installs_program", call.part)
    elif verb in ("push", "yank", "owner", "signin", "signout"):
        scope.raise_to("high", "publishes", call.part)
    elif verb in ("uninstall", "build"):
        scope.raise_to("medium", "installs", call.part)
    elif verb not in ("list", "info", "search", "env", "which", "contents", "dependency", "--version", "-v", "help",
                      "query", "specification", "outdated", ""):
        scope.cannot_tell(call.part)


def bundle(call: Call, scope: Scope) -> None:
    verb, rest = subcommand(call.words, frozenset({"--gemfile"}))
    if verb == "exec":
        if rest:
            scope.run(rest, call.stdin)
    elif verb in ("install", "update", "add", "remove", "lock", "package", "cache", "clean", "binstubs", "", "i") or (
            verb == "config" and rest and rest[0].value not in ("list", "get")):
        scope.raise_to("medium", "installs", call.part)
    elif verb not in ("list", "show", "info", "outdated", "check", "doctor", "--version", "version", "help",
                      "platform", "config"):
        scope.cannot_tell(call.part)


def composer(call: Call, scope: Scope) -> None:
    verb, rest = subcommand(call.words, frozenset({"-d", "--working-dir"}))
    if verb in ("global", "self-update", "selfupdate"):
        scope.raise_to("high", "installs_program", call.part)
    elif verb == "create-project":
        scope.raise_to("high", "runs_package", rest[0].text if rest else call.part)
    elif verb == "config" and rest and not any(w.value in ("--list", "-l") for w in rest):
        scope.raise_to("high", "package_settings", call.part)
    elif verb in ("show", "info", "validate", "outdated", "audit", "diagnose", "licenses", "depends", "why",
                  "prohibits", "why-not", "search", "--version", "-V", "help", "list", "check-platform-reqs", "fund",
                  "suggests", ""):
        return
    elif verb in ("run-script", "run", "exec", "test", "dump-autoload", "dumpautoload"):
        scope.raise_to("medium", "runs_project", call.part)
    elif verb is None:
        scope.cannot_tell(call.part)
    else:
        scope.raise_to("medium", "installs", call.part)


_SYSTEM_READS = re.compile(r"^(list|search|show|info|policy|query|-Q\w*|-Ss?|-Si|-Qi|-Ql|--version|-v|doctor|config"
                           r"|outdated|deps|leaves|--prefix|shellenv|desc|home|uses|which|provides|madison|depends"
                           r"|rdepends|showpkg|stats|-l|--list|-L|--listfiles|-s|--status|-S|--search|-q|-qa|-qi|-ql"
                           r"|repolist|history|check-update|help|info)$")


def system_packages(call: Call, scope: Scope) -> None:
    """brew, apt, dnf, pacman, dpkg, rpm …: installing or removing software on the machine is high."""
    verb, _ = subcommand([w for w in call.words if w.value not in ("-y", "--yes", "-q", "-qq", "--quiet",
                                                                  "--noconfirm", "--assume-yes")])
    if call.name in ("apt-cache", "dpkg-query") or verb is None and call.name == "":
        return
    first = next((w.value for w in call.words if w.value is not None), "")
    if verb is None:
        scope.cannot_tell(call.part)
    elif _SYSTEM_READS.match(verb or first or ""):
        return
    elif verb in ("update", "cleanup", "autoclean", "clean", "makecache", "refresh", "-Sy"):
        scope.raise_to("medium", "changes_system", call.part)
    else:
        scope.raise_to("high", "installs_program", call.part)


def version_manager(call: Call, scope: Scope) -> None:
    """nvm, pyenv, rbenv, asdf, fnm, volta, mise, sdk: installing a runtime is medium; choosing one low."""
    verb, rest = subcommand(call.words)
    if verb in ("install", "uninstall", "update", "upgrade", "plugin", "self-update", "reinstall", "rehash"):
        scope.raise_to("medium", "installs", call.part)
    elif verb in ("exec", "run", "x") and rest:
        scope.run(rest[1:] if call.name in ("nvm", "fnm", "mise") and rest and re.match(r"^[\d.v]+$", rest[0].value
                                                                                        or "") else rest, call.stdin)
    elif verb is None:
        scope.cannot_tell(call.part)
    elif verb == "enable" and call.name == "corepack":
        scope.raise_to("high", "installs_program", call.part)


PROGRAMS = {
    "pip": pip, "pip3": pip, "pip2": pip, "twine": twine, "uv": uv, "uvx": uv, "pipx": pipx, "poetry": project_manager,
    "pipenv": project_manager, "pdm": project_manager, "hatch": project_manager, "rye": project_manager,
    "conda": project_manager, "mamba": project_manager, "micromamba": project_manager, "cargo": cargo,
    "rustup": rustup, "go": go, "gem": gem, "bundle": bundle, "bundler": bundle, "composer": composer,
    **{name: system_packages for name in ("brew", "apt", "apt-get", "apt-cache", "aptitude", "dnf", "yum", "zypper",
                                          "pacman", "yay", "paru", "apk", "snap", "flatpak", "port", "emerge",
                                          "nix-env", "winget", "choco", "scoop", "dpkg", "rpm", "pkg", "mas",
                                          "softwareupdate", "dpkg-query")},
    **{name: version_manager for name in ("nvm", "fnm", "volta", "pyenv", "rbenv", "asdf", "mise", "rtx", "sdk",
                                          "jenv", "goenv", "nodenv", "corepack", "n")},
}
