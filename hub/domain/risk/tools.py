"""The project's own tools (test runners, builds, linters, compilers): medium, they run the project's code; their
version and help flags are low. Containers, clusters, clouds and GitHub: reading is low, changing them is high."""

from __future__ import annotations

import re

from hub.domain.risk.node_packages import PROJECT_TOOLS
from hub.domain.risk.options import parse, subcommand
from hub.domain.risk.packages import PYTHON_TOOLS
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import names

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


def project_tool(call: Call, scope: Scope) -> None:
    values = [v for v in call.values]
    if values[:1] in (["--version"], ["-V"], ["--help"], ["-h"], ["version"], ["-version"]):
        return
    parsed = parse(call.words, frozenset({"-o", "--output", "--out-dir", "--outDir", "--out-file", "-f", "-C", "-j",
                                          "-p", "-c", "-k", "-m", "-n", "--cov", "-e", "--config", "-x", "-l"}))
    if call.name in ("gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "ld", "swiftc", "kotlinc",
                     "zig", "ghc", "go"):
        for target in parsed.values("-o", "--output"):
            scope.write(target)
    if call.name in ("make", "gmake"):
        for makefile in parsed.values("-f", "--file", "--makefile"):
            place = scope.place(makefile)
            if place is None or place.kind not in ("project", "project_all", "git"):
                scope.raise_to("high", "runs_outside", makefile.text)
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
    """kubectl, helm, terraform, pulumi, minikube …: reading and planning is low to medium, applying high."""
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
    "docker": docker, "podman": docker, "nerdctl": docker, "docker-compose": docker, "podman-compose": docker,
    **{name: cluster for name in ("kubectl", "oc", "helm", "terraform", "tofu", "terragrunt", "pulumi", "cdk",
                                  "minikube", "kind", "k3d", "k9s", "kustomize", "argocd", "flux", "eksctl",
                                  "ansible", "ansible-playbook")},
    **{name: cloud for name in ("aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "fly", "heroku", "vercel",
                                "netlify", "firebase", "wrangler", "s3cmd", "rclone", "railway", "render",
                                "supabase", "amplify", "sam", "serverless", "sls")},
    "gh": github, "glab": github, "hub": github,
}
