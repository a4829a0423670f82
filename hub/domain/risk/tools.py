"""The project's own tools (test runners, builds, linters, compilers): medium, they run the project's code; their
version and help flags are low. Containers, clusters, clouds and GitHub: reading is low, changing them is high."""

from __future__ import annotations

import re

from hub.domain.risk.network import host_of, loopback
from hub.domain.risk.node_packages import PROJECT_TOOLS
from hub.domain.risk.options import abbreviates, parse, subcommand
from hub.domain.risk.packages import PYTHON_TOOLS
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import Word, names

BUILD_TOOLS = names("""
pytest py.test tox nox coverage pre-commit django-admin make gmake cmake ctest cpack ninja meson bazel bazelisk buck
buck2 scons just task mage earthly gradle gradlew mvn mvnw sbt ant lein clojure clj dotnet msbuild xcodebuild swift
swiftc swiftlint swiftformat flutter dart kotlinc kotlin javac rustc gcc g++ cc c++ clang clang++ ld ar strip
golangci-lint gofmt goimports staticcheck gopls rubocop rspec rake rails php-cs-fixer phpunit phpstan psalm pest
artisan shfmt clang-format clang-tidy cppcheck valgrind gcov lcov gcovr mix elixir iex erl rebar3 stack cabal ghc
zig nim crystal dune ocaml opam julia R conan vcpkg pkg-config autoreconf autoconf automake configure libtool bison
flex protoc buf sqlc swag wire mockgen air reflex entr nodemon pm2 watchexec cargo-watch trunk wasm-pack
playwright-cli jupyter ipython sphinx-build mkdocs hugo jekyll zola docusaurus pandoc latexmk pdflatex xelatex
tectonic asciidoctor mdbook plantuml dot terraform-docs tflint checkov helmfile skaffold tilt garden ansible-lint
molecule vagrant packer alembic manage.py flask uvicorn gunicorn celery streamlit gradio marimo dbt sqlfluff
sqlmesh prisma-cli migrate goose atlas flyway liquibase
""") | PROJECT_TOOLS | PYTHON_TOOLS
# Tools that read and report only.
CHECKERS = names("shellcheck hadolint actionlint markdownlint markdownlint-cli2 cspell typos codespell yamllint "
                     "jsonlint editorconfig-checker commitlint lychee vale proselint write-good")
_DATABASE_RESETS = re.compile(r"^(db:drop|db:reset|db:schema:load|db:purge|db:setup|db:migrate:reset|db:truncate_all"
                              r"|flush|reset_db|migrate:fresh|migrate:reset|db:wipe)$")


# Options of the project's tools that make them run something other than the project's own code: "file" a file of
# code or settings, "folder" a folder whose code they run (each high when outside the project), "script" shell text,
# "program" a program, "cannot" what the hub cannot read. Long options count cut short too (`--eva` is `--eval`).
_TOOL_OPTIONS: dict[str, dict[str, str]] = {
    "make": {"-f": "file", "--file": "file", "--makefile": "file", "-C": "folder", "--directory": "folder",
             "-I": "folder", "--include-dir": "folder", "-E": "cannot", "--eval": "cannot"},
    "ninja": {"-C": "folder", "-f": "file"},
    "cmake": {"-P": "file", "-C": "file", "-S": "folder", "--toolchain": "file", "-E": "cannot"},
    "ctest": {"-S": "file", "--script": "file", "-C": "cannot"},
    "meson": {"-C": "folder", "--native-file": "file", "--cross-file": "file"},
    "just": {"-f": "file", "--justfile": "file", "-d": "folder", "--working-directory": "folder",
             "--shell": "program", "-c": "script", "--command": "script", "--chooser": "script",
             "--shell-arg": "cannot"},
    "gradle": {"-I": "file", "--init-script": "file", "-b": "file", "--build-file": "file", "-c": "file",
               "--settings-file": "file", "-p": "folder", "--project-dir": "folder", "--include-build": "folder"},
    "mvn": {"-f": "file", "--file": "file", "-s": "file", "--settings": "file", "-gs": "file",
            "--global-settings": "file", "-t": "file", "--toolchains": "file"},
    "pytest": {"-c": "file", "--config-file": "file", "--rootdir": "folder", "--confcutdir": "folder",
               "--override-ini": "cannot", "-o": "cannot"},
    "tox": {"-c": "file", "--conf": "file", "--workdir": "folder", "--root": "folder"},
    "nox": {"-f": "file", "--noxfile": "file"},
    "pre-commit": {"-c": "file", "--config": "file"},
    "coverage": {"--rcfile": "file"},
    "gcc": {"-B": "folder", "-wrapper": "cannot", "-specs": "cannot", "-fplugin": "cannot"},
    "javac": {"-processorpath": "folder", "--processor-path": "folder", "-J": "cannot"},
    "rustc": {"-C": "cannot", "--extern": "cannot"},
    "flask": {"--app": "cannot", "-A": "cannot"},
}
for _alias, _tool in (("gmake", "make"), ("py.test", "pytest"), ("gradlew", "gradle"), ("mvnw", "mvn"),
                      ("g++", "gcc"), ("cc", "gcc"), ("c++", "gcc"), ("clang", "gcc"), ("clang++", "gcc")):
    _TOOL_OPTIONS[_alias] = _TOOL_OPTIONS[_tool]
# make: its options (any other cannot be told), and the variables on its command line that name a program its
# recipes run (`make CC='rm -rf ~'`).
_MAKE_FLAGS = frozenset({"-b", "-m", "-B", "--always-make", "-d", "-e", "--environment-overrides", "-i",
                         "--ignore-errors", "-k", "--keep-going", "-L", "--check-symlink-times", "-n", "--just-print",
                         "--dry-run", "--recon", "-p", "--print-data-base", "-q", "--question", "-r",
                         "--no-builtin-rules", "-R", "--no-builtin-variables", "-s", "--silent", "--quiet",
                         "--no-silent", "-S", "--no-keep-going", "--stop", "-t", "--touch", "--trace", "-v",
                         "--version", "-w", "--print-directory", "--no-print-directory", "--warn-undefined-variables",
                         "--help", "-h", "-j", "--jobs", "-l", "--load-average", "--max-load", "-O",
                         "--output-sync", "--debug", "--shuffle"})
_MAKE_VALUES = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-o",
                          "--old-file", "--assume-old", "-W", "--what-if", "--new-file", "--assume-new", "-E",
                          "--eval"})
MAKE_PROGRAMS = re.compile(r"^(CC|CXX|CPP|AS|LD|AR|RM|SHELL|MAKE|INSTALL|PYTHON3?|PERL|NODE|NPM|GO|CARGO|M4|YACC|BISON"
                           r"|LEX|FLEX|AWK|SED|TAR|GZIP|STRIP|RANLIB|OBJCOPY|PKG_CONFIG|MAKEINFO|FC|F77|JAVA|JAVAC"
                           r"|DOCKER|KUBECTL|PIP|PYTEST|HELM|BASH|SH|ECHO|CP|MV|MKDIR|LN|CHMOD|TOUCH|CAT|GIT|CURL|WGET"
                           r"|[A-Z0-9_]*(_CMD|_COMMAND|_PROG|_PROGRAM|_BIN|_EXE|_TOOL|_WRAPPER|LAUNCHER))$")
_SHELL_TEXT = re.compile(r"[$`;|&<>()\n\\]")


def _tool_options(call: Call, scope: Scope, table: dict[str, str]) -> None:
    """The options of `table` in `call`, judged by what they make the tool run."""
    longs = tuple(name for name in table if name.startswith("--"))
    words = call.words
    for index, word in enumerate(words):
        value = word.value
        if value is None or value == "--":
            if value == "--":
                return
            continue
        name, equals, attached = value.partition("=")
        option = abbreviates(name, *longs) if name.startswith("--") else None
        if option is None and name in table:
            option = name
        if option is None and not name.startswith("--"):
            option = next((o for o in table if not o.startswith("--") and len(o) == 2 and name.startswith(o)
                           and len(name) > 2), None)  # `-C~`, `-Idir`, `-B/tmp`
            if option is not None:
                attached, equals = value[len(option):], "="
            elif (single := next((o for o in table if not o.startswith("--") and len(o) > 2 and name.startswith(o)),
                                 None)) is not None:  # gcc's `-fplugin=x.so`, `-specs=f`
                option, attached, equals = single, value.partition("=")[2] or value[len(single):], "="
        if option is None:
            continue
        argument = Word.literal(attached) if equals else (words[index + 1] if index + 1 < len(words) else None)
        how = table[option]
        shown = f"{call.name} {option}"
        if argument is None or argument.value is None or how == "cannot":
            scope.cannot_tell(shown)
        elif how == "script":
            scope.script(argument.value)
        elif how == "program":
            scope.run([argument])
        else:
            place = scope.place(argument)
            if place is None or not place.inside:
                scope.raise_to("high", "runs_outside", f"{place.shown if place else argument.text} ({shown})")


def make(call: Call, scope: Scope) -> None:
    """make: the project's Makefile is the project's code (medium); `-f`, `-C`, `-I` outside the project, `--eval`,
    an option it does not know and a variable naming a program (`CC='…'`) are judged as what they run."""
    words = call.words
    index = 0
    while index < len(words):
        word = words[index]
        value = word.value
        index += 1
        if value is None:
            scope.cannot_tell(f"{call.name} {clip(word.text, 40)}")
            continue
        if value == "--":
            continue
        if value.startswith("-") and value != "-":
            name = value.partition("=")[0]
            full = abbreviates(name, *(n for n in _MAKE_VALUES | _MAKE_FLAGS if n.startswith("--"))) if \
                name.startswith("--") else name
            takes_next = full in _MAKE_VALUES and "=" not in value and len(value) == len(name)
            counts = full in ("-j", "--jobs", "-l", "--load-average") and index < len(words) and re.fullmatch(
                r"[\d.]+", words[index].value or "") is not None
            if takes_next or counts:
                index += 1
            elif full is None or (full not in _MAKE_FLAGS and full not in _MAKE_VALUES and not re.fullmatch(
                    r"-[bmBdeiknpqrRsStvwLj\d]+|-[jlO]\w*|-[CfIoWE].+", value)):
                scope.cannot_tell(f"{call.name} {clip(value, 40)}")
            continue
        variable = re.match(r"([A-Za-z_][\w.]*)\s*[:+?!]?=(.*)", value, re.DOTALL)
        if variable is not None:
            name, assigned = variable.group(1), variable.group(2)
            if MAKE_PROGRAMS.match(name.upper()) and assigned.strip():
                scope.script(assigned)
            elif _SHELL_TEXT.search(assigned):
                scope.cannot_tell(f"{call.name} {clip(value, 40)}")  # a recipe or `$(shell …)` may expand it
    _tool_options(call, scope, _TOOL_OPTIONS["make"])
    scope.raise_to("medium", "runs_project", call.part)


def project_tool(call: Call, scope: Scope) -> None:
    values = [v for v in call.values]
    if values[:1] in (["--version"], ["-V"], ["--help"], ["-h"], ["version"], ["-version"]):
        return
    parsed = parse(call.words, frozenset({"-o", "--output", "--out-dir", "--outDir", "--out-file", "-f", "-C", "-j",
                                          "-p", "-c", "-k", "-m", "-n", "--cov", "-e", "--config", "-x", "-l"}))
    if call.name in ("gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "ld", "swiftc", "kotlinc",
                     "zig", "ghc", "go"):
        for target in parsed.values("-o", "--output"):
            scope.write(target, "output")
        if any((v or "").startswith("@") for v in values):
            scope.cannot_tell(f"{call.name} @file")  # more options, from a file
    if call.name in _TOOL_OPTIONS:
        _tool_options(call, scope, _TOOL_OPTIONS[call.name])
    if call.name == "cmake" and "-E" in values:
        return
    if call.name in ("pytest", "py.test") or (call.name == "coverage" and parsed.operands[:1] and
                                               parsed.operands[0].value == "run" and not parsed.has("-m")):
        for operand in parsed.operands[1 if call.name == "coverage" else 0:]:
            value = operand.value or ""
            if operand.value is None or "/" in value or value.endswith(".py"):
                place = scope.place(Word.literal(value.split("::")[0])) if operand.value is not None else None
                if place is None or not place.inside:
                    scope.raise_to("high", "runs_outside", f"{place.shown if place else operand.text} ({call.name})")
    if call.name == "pre-commit" and parsed.operands[:1] and parsed.operands[0].value in ("install",
                                                                                          "install-hooks"):
        scope.raise_to("high", "write_hooks", ".git/hooks")
        return
    reset = next((v for v in values if v is not None and _DATABASE_RESETS.match(v)), None)
    if call.name in ("rails", "rake", "artisan", "manage.py", "django-admin") and reset:
        scope.raise_to("high", "sql_drop", f"the database ({call.name} {reset})")
    if call.name in ("prisma", "prisma-cli") and ("reset" in values or "--force-reset" in values):
        scope.raise_to("high", "sql_drop", "the database (prisma)")
    scope.raise_to("medium", "runs_project", call.part)


def checker(call: Call, scope: Scope) -> None:
    if any(v in ("-w", "--write", "--fix", "-i") for v in call.values):
        scope.raise_to("medium", "runs_project", call.part)


_DOCKER_READS = frozenset({"ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port", "diff",
                           "history", "events", "search", "--version", "-v", "help", "ls", "df", "config"})
_DOCKER_BUILDS = frozenset({"build", "buildx", "pull", "tag", "save", "load", "up", "down", "start", "stop",
                            "restart", "create", "compose", "images", "bake"})


def docker(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-H", "--host", "--context", "-c", "--config", "-f", "--file", "-p",
                                          "--project-name", "--profile", "--env-file", "-l", "--log-level"}),
                   first_operand_stops=True)
    operands = parsed.operands
    verbs = [w.value for w in operands[:3]]
    if None in verbs[:1]:
        scope.cannot_tell(call.part)
        return
    for daemon in parsed.values("-H", "--host"):  # the daemon of another machine
        host = host_of(daemon.value or "") if daemon.value is not None else None
        if daemon.value is None or (host is not None and not loopback(host)):
            scope.raise_to("high", "remote", host or daemon.text)
    compose_files = parse(operands[1:] if verbs[:1] == ["compose"] else operands, frozenset(
        {"-f", "--file", "--project-directory", "--env-file"})).values("-f", "--file", "--project-directory")
    for file in parsed.values("-f", "--file") + compose_files:
        place = scope.place(file)
        if place is None or not place.inside:  # a compose file or Dockerfile from elsewhere: its mounts and commands
            scope.raise_to("high", "containers", f"{file.text} ({call.name})")
    if verbs[:1] in (["compose"], ["build"], ["buildx"]) or call.name in ("docker-compose", "podman-compose"):
        scope.ran(call.part)  # the project's compose file or Dockerfile: a file this command wrote may be it
    verb = verbs[0] if verbs else ""
    if verb in ("compose", "stack") or call.name in ("docker-compose", "podman-compose"):
        inner = parse(operands[1:] if verb == "compose" else operands, frozenset({"-f", "--file", "-p",
                                                                                  "--project-name", "--profile",
                                                                                  "--env-file"}),
                      first_operand_stops=True).operands
        verb = inner[0].value if inner else ""
        rest = [w.value for w in inner[1:]]
        if verb in _DOCKER_READS or verb in ("", "ps", "logs", "config", "images", "version", "ls", "top"):
            return
        if verb == "down" and any(v in ("-v", "--volumes", "--rmi") for v in rest):
            scope.raise_to("high", "containers", call.part)
        elif verb in ("exec", "run"):  # a command in one of the project's own services: judged as a command
            scope.raise_to("medium", "containers", call.part)
            service = parse(inner[1:], frozenset({"-e", "--env", "-u", "--user", "-w", "--workdir", "--index",
                                                  "--name", "--entrypoint", "-p", "--publish", "-v", "--volume",
                                                  "-l", "--label"}), first_operand_stops=True).operands
            if any((v or "").startswith(("-v", "--volume")) for v in rest) or parse(
                    inner[1:], frozenset()).has("--privileged"):
                scope.raise_to("high", "containers", call.part)
            if len(service) > 1:
                scope.run(service[1:], call.stdin)
        elif verb in _DOCKER_BUILDS:
            scope.raise_to("medium", "runs_project", call.part)
        else:
            scope.raise_to("high", "containers", call.part)
        return
    subverb = verbs[1] if len(verbs) > 1 else ""
    if verb in _DOCKER_READS or (verb in ("image", "container", "volume", "network", "system", "context", "buildx")
                                 and subverb in ("ls", "list", "inspect", "df", "history", "show", "du")):
        return
    if verb in _DOCKER_BUILDS or (verb == "image" and subverb in ("build", "pull", "tag")):
        scope.raise_to("medium", "containers", call.part)
    else:
        scope.raise_to("high", "containers", call.part)  # run, exec, rm, prune, push, login, cp, kill …


_KUBE_READS = frozenset({"get", "describe", "logs", "explain", "version", "top", "api-resources", "api-versions",
                         "cluster-info", "diff", "events", "wait", "completion", "--version", "help", "config",
                         "auth", "status", "list", "ls", "history", "show", "template", "lint", "search", "env",
                         "plan", "validate", "fmt", "output", "providers", "graph", "preview", "whoami", "init",
                         "dependency", "repo", "stack", "login"})
_KUBE_WRITE_SUBVERBS = frozenset({"set", "use-context", "delete-context", "set-context", "set-credentials", "rm",
                                  "mv", "push", "delete", "select", "new", "add", "remove", "unset", "build", "update"})


def cluster(call: Call, scope: Scope) -> None:
    """kubectl, helm, terraform, pulumi, minikube …: reading and planning is low to medium, applying high. A
    kubeconfig can name a program to run for credentials; helm's post-renderer is a program."""
    settings = parse(call.words, frozenset({"--kubeconfig", "--post-renderer", "--post-renderer-args"}))
    for config in settings.values("--kubeconfig"):
        place = scope.place(config)
        if place is None or not (place.inside or (config.value or "").startswith("~/.kube/")):
            scope.cannot_tell(f"{call.name} --kubeconfig {config.text}")
    if settings.has("--post-renderer"):
        scope.cannot_tell(f"{call.name} --post-renderer")
    verb, rest = subcommand(call.words, frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-s",
                                                  "--server", "-C", "--chdir"}))
    subverb = rest[0].value if rest else ""
    if verb is None:
        scope.cannot_tell(call.part)
    elif verb == "rollout" and subverb in ("status", "history"):
        return
    elif verb in _KUBE_READS and subverb not in _KUBE_WRITE_SUBVERBS:
        if verb in ("init", "plan", "dependency", "repo"):
            scope.raise_to("medium", "runs_project", call.part)
    elif verb in ("port-forward", "proxy"):
        scope.raise_to("medium", "serves", call.part)
    else:
        scope.raise_to("high", "cluster", call.part)


_CLOUD_READ = re.compile(r"^(describe|list|get|show|ls|status|whoami|logs|info|version|--version|help|cat|du|stat|"
                         r"lsd|lsf|lsl|size|check|tree|search|inspect|dev|config|auth|account|projects|regions|"
                         r"sts|head|md5sum|sha1sum|about)([-_].*)?$")


def cloud(call: Call, scope: Scope) -> None:
    """aws, gcloud, az, gsutil, rclone, vercel, netlify, wrangler, fly, heroku …: reading medium, changing high."""
    operands = [w.value for w in call.words if w.value is None or not w.value.startswith("-")]
    if not operands:
        return
    if None in operands[:3]:
        scope.cannot_tell(call.part)
        return
    verbs = [v for v in operands[:3] if v is not None]
    if all(_CLOUD_READ.match(v) is None for v in verbs[:3]) or any(
            v in ("deploy", "delete", "destroy", "rm", "cp", "mv", "sync", "put", "create", "update", "set", "apply",
                  "publish", "purge", "remove", "terminate", "stop", "start", "run", "invoke", "scale", "release",
                  "rollback", "promote", "secrets", "env") for v in verbs):
        scope.raise_to("high", "cluster", call.part)
    else:
        scope.raise_to("medium", "downloads", call.name)


_GH_READ = frozenset({"view", "list", "status", "checks", "diff", "watch", "download", "browse", "search", "ls"})
_GH_POSTS = frozenset({"create", "comment", "edit", "review", "ready", "reopen", "close", "lock", "unlock", "rerun",
                       "run", "develop", "transfer", "pin", "unpin", "checkout", "sync", "clone", "fork"})


def github(call: Call, scope: Scope) -> None:
    """gh, glab: reading is low; opening or commenting on pull requests and issues medium (they post as the
    person); merging, releases, repository settings, secrets, auth and `gh api` writes high."""
    verb, rest = subcommand(call.words, frozenset({"-R", "--repo"}))
    action = next((w.value for w in rest if w.value is None or not w.value.startswith("-")), "")
    values = [w.value for w in rest]
    if verb is None or action is None:
        scope.cannot_tell(call.part)
    elif verb in ("--version", "version", "help", "", "search", "browse", "status"):
        return
    elif verb == "api":
        method = next((values[i + 1] for i, v in enumerate(values[:-1]) if v in ("-X", "--method")), "GET")
        if (method or "").upper() != "GET" or any(v in ("-f", "-F", "--field", "--raw-field", "--input")
                                                  for v in values):
            scope.raise_to("high", "sends_data", "github.com")
    elif verb == "auth":
        if action in ("token",):
            scope.raise_to("high", "read_keys", "gh auth token")
        elif action not in ("status",):
            scope.raise_to("high", "write_keys", "gh auth")
    elif verb in ("pr", "mr") and action == "merge":
        scope.raise_to("high", "push_main", f"{call.name} {verb} merge")
    elif verb in ("release",) and action not in _GH_READ:
        scope.raise_to("high", "publishes", call.part)
    elif verb in ("secret", "variable", "ssh-key", "gpg-key", "extension", "codespace", "ruleset") and \
            action not in _GH_READ:
        scope.raise_to("high", "installs_program" if verb == "extension" else "sends_data", call.part if verb ==
                       "extension" else "github.com")
    elif verb == "repo" and action in ("delete", "archive", "rename", "edit", "create", "set-default", "deploy-key"):
        scope.raise_to("high", "sends_data", "github.com")
    elif action in _GH_READ or verb in ("run", "workflow", "cache", "label", "gist", "org", "project") and \
            action in ("list", "view", "watch", "download"):
        return
    elif action in _GH_POSTS or verb in ("pr", "issue", "mr", "repo", "run", "workflow"):
        scope.raise_to("medium", "sends_data", "github.com")
    else:
        scope.cannot_tell(call.part)


def editor(call: Call, scope: Scope) -> None:
    """code, vim, nano …: opening files for the person is medium; an editor told to run commands cannot be told."""
    values = [v or "" for v in call.values]
    if any(v.startswith("+") or v in ("-c", "--cmd", "-S", "--eval", "-u", "-x", "--headless", "--install-extension",
                                      "-l", "--batch", "-batch", "--script") for v in values) or None in call.values:
        scope.cannot_tell(call.part)
    else:
        scope.raise_to("medium", "opens", " ".join(v for v in values if not v.startswith("-")) or call.name)


PROGRAMS = {
    **{name: editor for name in ("code", "code-insiders", "cursor", "subl", "idea", "vim", "vi", "nvim", "nano",
                                 "emacs", "micro", "hx", "zed", "mate", "gedit", "kate")},
    **{name: project_tool for name in BUILD_TOOLS}, **{name: checker for name in CHECKERS},
    "make": make, "gmake": make,
    "docker": docker, "podman": docker, "nerdctl": docker, "docker-compose": docker, "podman-compose": docker,
    **{name: cluster for name in ("kubectl", "oc", "helm", "terraform", "tofu", "terragrunt", "pulumi", "cdk",
                                  "minikube", "kind", "k3d", "k9s", "kustomize", "argocd", "flux", "eksctl",
                                  "ansible", "ansible-playbook")},
    **{name: cloud for name in ("aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "fly", "heroku", "vercel",
                                "netlify", "firebase", "wrangler", "s3cmd", "rclone", "railway", "render",
                                "supabase", "amplify", "sam", "serverless", "sls")},
    "gh": github, "glab": github, "hub": github,
}
