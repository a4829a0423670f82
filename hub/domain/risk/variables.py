"""Variables a command sets that change what runs: `LD_PRELOAD=./x.so npm test` loads other code into npm,
`GIT_SSH_COMMAND=…` is a command git runs, `x='a[$(rm -rf ~)]'` is code an arithmetic expansion will run."""

from __future__ import annotations

import re

from hub.domain.risk.network import host_of
from hub.domain.risk.scope import Scope
from hub.domain.risk.words import Word

# Variables that load code into the programs started with them, or change how the shell reads what follows.
LOADS_CODE = re.compile(
    r"^(LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|PS[0-4]|SHELLOPTS|BASHOPTS|IFS|CDPATH|GLOBIGNORE|BASH_LOADABLES_PATH"
    r"|HOME|ZDOTDIR|XDG_CONFIG_HOME|XDG_CONFIG_DIRS|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PYTHONEXECUTABLE"
    r"|PYTHONUSERBASE|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|GCONV_PATH|LOCPATH|NLSPATH|HOSTALIASES"
    r"|LESSOPEN|LESSCLOSE|GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_PROXY_COMMAND|GIT_DIR|GIT_WORK_TREE"
    r"|GIT_INDEX_FILE|npm_config_\w+|NPM_CONFIG_\w+|YARN_\w*PATH|BUNDLE_GEMFILE|RUBYOPT|MAVEN_OPTS|GRADLE_OPTS"
    r"|OPENSSL_CONF|OPENSSL_ENGINES|MALLOC_\w+|TERMINFO|SSH_ASKPASS_REQUIRE|BROWSER|DOCKER_HOST|KUBECONFIG_\w+)$")
# Variables whose value is a command some program runs: judged as that command.
RUNS_COMMAND = frozenset({"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
                          "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "EDITOR", "VISUAL",
                          "PAGER", "MANPAGER", "SYSTEMD_PAGER", "CC", "CXX", "LD", "AR", "RUSTC_WRAPPER", "RUSTC",
                          "CARGO_BUILD_RUSTC_WRAPPER", "PYTHON", "NODE", "SHELL", "CONFIG_SHELL", "MAKE"})
# Variables that add folders code is loaded from: fine inside the project.
SEARCH_PATHS = frozenset({"PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "CLASSPATH", "GEM_PATH",
                          "LUA_PATH", "LUA_CPATH"})
PACKAGE_INDEXES = frozenset({"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
                             "UV_DEFAULT_INDEX", "UV_INDEX", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS", "YARN_REGISTRY",
                             "CARGO_REGISTRIES_CRATES_IO_INDEX", "GOPROXY", "GOFLAGS", "GONOSUMDB", "GONOSUMCHECK",
                             "GOINSECURE", "BUN_CONFIG_REGISTRY"})
_CODE_IN_TEXT = re.compile(r"\$\(|`")
# Variables whose value, set to something the card does not show, changes what runs: the lists above, options
# interpreters read from the environment, and git's.
_OPTIONS = frozenset({"PATH", "NODE_OPTIONS", "PERL5OPT", "RUSTFLAGS", "RUBYOPT", "PYTHONWARNINGS", "PYTHONPATH",
                      "PYTHONSTARTUP", "NODE_PATH", "LESSOPEN", "MANPAGER", "BROWSER", "SHELL"})
# An assignment inside arithmetic (`(( BASH_ENV = 1 ))`, `let PATH=0`, `x++`): the names it sets.
_ARITHMETIC_SETS = re.compile(r"(?<![\w$\\])([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&^|]|<<|>>)?=(?!=)"
                              r"|(?:\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?:\+\+|--)")


def loads_code(name: str) -> bool:
    """Whether `name`, set to a value the hub cannot read, may make a program load or run other code."""
    return bool(LOADS_CODE.match(name)) or name in RUNS_COMMAND or name in SEARCH_PATHS or name in PACKAGE_INDEXES \
        or name in _OPTIONS or name.startswith(("GIT_", "npm_config_", "NPM_CONFIG_", "PIP_", "UV_", "CARGO_"))


def sets(names: list[str | None], how: str, scope: Scope) -> None:
    """Builtins that set variables other than by `name=value` (`read`, `printf -v`, `mapfile`, `getopts`, `for`,
    `${x:=…}`, arithmetic): a variable that loads code, set to what the card does not show, is high; a name chosen
    at run time cannot be told."""
    for name in names:
        if name is None:
            scope.cannot_tell(f"{how} sets a variable chosen at run time")
        elif loads_code(name):
            scope.raise_to("high", "loads_code", f"{name} ({how})")


def arithmetic_sets(text: str) -> list[str | None]:
    """The variables an arithmetic expression assigns (`BASH_ENV = 1`, `PATH += 2`, `i++`)."""
    return [next(g for g in match.groups() if g) for match in _ARITHMETIC_SETS.finditer(text)]


def code_in_text(value: str | None) -> bool:
    """Text that holds a command substitution as characters: an arithmetic expansion, `[[ -v ]]`, `let` or a
    prompt variable evaluates it later (`x='a[$(rm -rf ~)]'; echo $((x))`)."""
    return value is not None and _CODE_IN_TEXT.search(value) is not None


def assignment(name: str, value: Word, scope: Scope) -> None:
    """Judge `name=value` set for a command or the shell."""
    shown = f"{name}={value.text}"
    if LOADS_CODE.match(name):
        scope.cannot_tell(shown)
    elif name in RUNS_COMMAND:
        if value.value is None:
            scope.cannot_tell(shown)
        elif value.value.strip():
            scope.script(value.value)
    elif name in SEARCH_PATHS:
        _search_path(shown, value, scope)
    elif name == "KUBECONFIG" and not all(e.startswith("~/.kube/") or (
            (place := scope.folders.place(e)) is not None and place.inside) for e in (value.value or "\0").split(":")):
        scope.cannot_tell(shown)  # a kubeconfig names programs kubectl runs for credentials
    elif name == "PATH":
        _path(shown, value, scope)
    elif name in PACKAGE_INDEXES:
        host = host_of(value.value or "") if value.value is not None else None
        if host is None or host not in ("pypi.org", "files.pythonhosted.org", "registry.npmjs.org",
                                        "proxy.golang.org", "sum.golang.org"):
            scope.raise_to("high", "installs_from", host or shown)
    elif name in ("NODE_OPTIONS", "PERL5OPT", "RUSTFLAGS") and (value.value is None or re.search(
            r"(^|\s)(-r|--require|--import|--loader|--experimental-loader|-M|-m|-C\s*link|--inspect)", value.value)):
        scope.cannot_tell(shown)
    if code_in_text(value.value):
        scope.cannot_tell(shown)


def _search_path(shown: str, value: Word, scope: Scope) -> None:
    if value.value is None:
        scope.cannot_tell(shown)
        return
    for entry in value.value.split(":"):
        place = scope.folders.place(entry) if entry else None
        if entry and (place is None or not place.inside):  # a temporary folder holds what anyone put there
            scope.cannot_tell(shown)
            return


def _path(shown: str, value: Word, scope: Scope) -> None:
    """PATH: programs are looked up in it. `$PATH`, system folders and the project's own folders are known."""
    text = value.text.strip("\"'")
    for written in text.split(":"):
        if written in ("$PATH", "${PATH}", ""):
            continue
        entry = written.replace("${HOME}", "~").replace("$HOME", "~")
        if re.search(r"[$`]", entry):
            scope.cannot_tell(shown)
            return
        place = scope.folders.place(entry)
        if place is None:
            scope.cannot_tell(shown)
            return
        if place.kind in ("project", "project_all"):
            scope.raise_to("medium", "runs_script", entry)
        elif not (place.kind == "sensitive" and place.category == "path_bin") and place.kind != "system":
            scope.cannot_tell(shown)
            return
