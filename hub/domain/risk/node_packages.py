"""npm, yarn, pnpm, bun, npx: the project's scripts and installs from its lock file are medium; a package run
that is not the project's (`npx -y evil-package`), installs from elsewhere than the registry, global installs,
publishing and changed settings are high; a script set with `npm pkg set scripts.x=…` is judged as the command."""

from __future__ import annotations

import re

from hub.domain.risk.network import host_of
from hub.domain.risk.options import abbreviates, parse
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.words import Word, names

# Command-line tools a JavaScript project has as its own dependencies: `npx <tool>` runs the project's copy.
PROJECT_TOOLS = names("""
tsc eslint prettier jest vitest mocha playwright cypress webpack webpack-cli vite next nuxt turbo nx lerna storybook
esbuild rollup parcel babel ts-node tsx tsup biome stylelint husky lint-staged prisma drizzle-kit knex sequelize
typeorm ava tap c8 nyc serve http-server concurrently rimraf cross-env nodemon tailwindcss postcss svelte-kit
svelte-check astro remix expo react-scripts ng vue-cli-service electron electron-builder wrangler changeset
semantic-release commitlint depcheck madge knip size-limit sort-package-json ncu npm-check-updates license-checker
oxlint vue-tsc tsd typedoc jsdoc standard xo karma gulp grunt mocha-parallel ts-jest api-extractor syncpack
openapi-typescript graphql-codegen gql-gen dotenv pm2 zx json-server sass lessc svgo prettier-eslint
""")
_VALUES = frozenset({"--prefix", "-C", "--dir", "-w", "--workspace", "--registry", "--filter", "-F", "--cwd",
                     "--loglevel", "--cache", "--userconfig", "--globalconfig", "-p", "--package", "--call", "-c"})
_INSTALL = frozenset({"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "add"})
_READS = frozenset({"ls", "list", "la", "ll", "view", "v", "info", "show", "outdated", "why", "explain", "doctor",
                    "help", "root", "bin", "prefix", "search", "s", "se", "find", "fund", "audit", "whoami", "query",
                    "sbom", "licenses", "config-get", "--version", "-v", "-h", "--help", "bugs", "docs", "home",
                    "repo", "ping", "diff"})
_PUBLISH = frozenset({"publish", "unpublish", "deprecate", "undeprecate", "owner", "dist-tag", "dist-tags", "access",
                      "token", "adduser", "add-user", "login", "logout", "team", "org", "star", "unstar", "hook",
                      "profile", "trust", "stage"})
_REGISTRIES = frozenset({"registry.npmjs.org", "registry.yarnpkg.com", "registry.npmmirror.com"})


def _from(spec: str) -> str | None:
    """Where a package spec installs from when that is not the registry (`git+https://…`, `github:u/r`); None for
    the registry and for a local file or folder (`./x.tgz`, `../lib`, `file:…`)."""
    if spec.startswith((".", "/", "~", "file:")):
        return None
    if re.match(r"^(git\+|git:|https?:|file:|github:|gitlab:|bitbucket:|gist:)", spec):
        if spec.startswith(("github:", "gitlab:", "bitbucket:", "gist:")):
            return spec.split(":")[0] + ".com"
        return host_of(re.sub(r"^git\+", "", spec)) or spec
    if re.match(r"^[\w.-]+/[\w.-]+(#.*)?$", spec) and not spec.startswith("@"):
        return "github.com"  # npm reads `user/repo` as a GitHub repository
    return None


def _installs(call: Call, scope: Scope, packages: list[Word], *, global_: bool, tool: str) -> None:
    for package in packages:
        value = package.value
        if value is None:
            scope.cannot_tell(call.part)
            continue
        source = _from(value)
        if source is not None:
            scope.raise_to("high", "installs_from", source)
        elif value.startswith((".", "/", "~", "file:")) or value.endswith((".tgz", ".tar.gz")):
            local = Word.literal(value.removeprefix("file:"))
            place = scope.place(local)
            code = "installs_local" if value.endswith((".tgz", ".tar.gz", ".tar")) else "installs_local_folder"
            outside = place is None or not place.inside
            # its install scripts run: a package from outside the project is code from elsewhere
            scope.raise_to("high" if outside else "medium", code, place.shown if place else value)
    if global_:
        scope.raise_to("high", "installs_program", call.part)
    scope.raise_to("medium", "installs", call.part)


def _registry(call: Call, scope: Scope, parsed_registry: Word | None) -> None:
    if parsed_registry is not None:
        host = host_of(parsed_registry.value or "")
        if host not in _REGISTRIES:
            scope.raise_to("high", "installs_from", host or parsed_registry.text)


# npm's settings (any can be given as `--name=value`, and cut short) that choose a program it runs, code it loads,
# or a file of more settings.
_RUNS_SETTINGS = ("--script-shell", "--shell", "--node-options", "--git", "--editor", "--browser", "--viewer",
                  "--userconfig", "--globalconfig", "--onload-script", "--init-module", "--node-gyp", "--npm-path",
                  "--yarn-path", "--config-file", "--rc", "--cafile", "--use-node-version", "--global-dir",
                  "--virtual-store-dir", "--store-dir", "--pnpmfile", "--global-pnpmfile", "--require")


def _settings(call: Call, scope: Scope, parsed_options: list[tuple[str, Word | None]]) -> None:
    for name, value in parsed_options:
        option = abbreviates(name, *_RUNS_SETTINGS) if name.startswith("--") else None
        if option is not None:
            scope.raise_to("high", "runs_program", f"{call.name} {option}")
            if option in ("--script-shell", "--shell", "--git", "--editor", "--browser", "--viewer", "--node-gyp") \
                    and value is not None and value.value is not None:
                scope.run([value])
            else:
                scope.cannot_tell(f"{call.name} {option}")
        elif name.startswith("--") and (name.startswith("--//") or re.match(r"--@[\w.-]+:registry", name)):
            scope.raise_to("high", "installs_from", name.lstrip("-"))
    for folder in (value for name, value in parsed_options if name in ("--prefix", "-C", "--dir", "--cwd")):
        place = scope.place(folder) if folder is not None else None
        if place is None or not place.inside:  # another folder's package.json and its scripts
            scope.raise_to("high", "runs_outside", f"{place.shown if place else '?'} ({call.name})")


def npm(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _VALUES)
    _registry(call, scope, parsed.value("--registry"))
    _settings(call, scope, parsed.options)
    verb = parsed.operands[0].value if parsed.operands else ""
    rest = parsed.operands[1:]
    global_ = parsed.has("-g", "--global", "--location")
    tool = call.name
    if verb is None:
        scope.cannot_tell(call.part)
    elif verb == "" and tool in ("yarn", "bun", "pnpm"):
        scope.raise_to("medium", "installs", f"{tool} (the lock file)")
    elif verb == "" or verb in _READS:
        if verb == "audit" and rest and rest[0].value == "fix":
            scope.raise_to("medium", "installs", call.part)
    elif verb in _INSTALL or verb in ("ci", "clean-install", "ic", "install-clean", "update", "up", "upgrade",
                                      "rebuild", "rb", "dedupe", "ddp", "prune", "install-test", "it", "sync"):
        _installs(call, scope, rest if verb not in ("update", "up", "upgrade", "dedupe", "prune") else [],
                  global_=global_, tool=tool)
        if verb in ("install-test", "it"):
            scope.raise_to("medium", "runs_project", f"{tool} test")
    elif verb in ("uninstall", "un", "unlink", "remove", "rm", "r"):
        if global_:
            scope.raise_to("high", "installs_program", call.part)
        scope.raise_to("medium", "installs", call.part)
    elif verb in ("test", "t", "tst", "start", "stop", "restart", "run", "run-script", "rum", "urn", "build",
                  "dev", "lint", "format", "typecheck", "check", "preview", "serve", "watch", "e2e"):
        if verb in ("run", "run-script", "rum", "urn") and not rest:
            return  # lists the scripts
        scope.raise_to("medium", "runs_project", f"{tool} {verb}" + (f" {rest[0].text}" if rest and verb in (
            "run", "run-script", "rum", "urn") else ""))
    elif verb in ("exec", "x", "dlx"):
        runner(Call(tool, rest, call.text, call.input), scope, downloads=verb == "dlx")
    elif verb in ("create", "init", "innit") and tool in ("npm", "yarn", "pnpm", "bun"):
        package = next((w for w in rest if w.value is None or not w.value.startswith("-")), None)
        if package is None:
            scope.raise_to("medium", "write_project", "package.json")
        else:
            scope.raise_to("high", "runs_package", f"create-{package.text}")
    elif verb in ("pkg", "set-script"):
        _pkg(call, scope, rest, verb)
    elif verb in ("config", "c", "set", "get") and tool != "bun":
        action = rest[0].value if rest else ""
        if verb == "get" or action in ("get", "list", "ls", ""):
            return
        scope.raise_to("high", "package_settings", call.part)
    elif verb == "cache":
        if rest and rest[0].value in ("clean", "clear", "rm", "prune"):
            scope.raise_to("medium", "delete_cache", f"the {tool} cache")
    elif verb == "link":
        scope.raise_to("high" if not rest else "medium", "installs_program" if not rest else "installs", call.part)
    elif verb in _PUBLISH or (verb == "npm" and rest and rest[0].value in _PUBLISH):
        scope.raise_to("high", "publishes", call.part)
    elif verb in ("version", "pack", "shrinkwrap", "why", "workspace", "workspaces", "patch", "patch-commit"):
        scope.raise_to("medium", "runs_project", call.part)
    elif verb == "global" and tool == "yarn":
        scope.raise_to("high", "installs_program", call.part)
    elif tool in ("yarn", "pnpm", "bun") and re.fullmatch(r"[\w:.-]+", verb):
        if tool == "bun" and verb.endswith((".ts", ".js", ".tsx", ".mjs")):
            from hub.domain.risk.interpreters import node

            node(Call("bun", call.words, call.text, call.input), scope)
        else:
            scope.raise_to("medium", "runs_project", f"{tool} {verb}")  # a script of package.json, or a bin
    else:
        scope.cannot_tell(call.part)


def _pkg(call: Call, scope: Scope, rest: list[Word], verb: str) -> None:
    """`npm pkg set scripts.test='…'`: the project's script becomes that command, and `npm test` runs it."""
    action = rest[0].value if rest and verb == "pkg" else "set"
    items = rest[1:] if verb == "pkg" else rest
    if action in ("get", None):
        if action is None:
            scope.cannot_tell(call.part)
        return
    scope.raise_to("medium", "write_project", "package.json")
    pairs: list[tuple[str, str | None]] = []
    if verb == "set-script" and len(items) >= 2:
        pairs.append(("scripts." + (items[0].value or ""), items[1].value))
    for item in items:
        key, equals, assigned = (item.value or "").partition("=")
        if item.value is None:
            scope.cannot_tell(call.part)
        elif equals:
            pairs.append((key, assigned))
    for key, value in pairs:
        if key.startswith("scripts") or key.startswith("bin") or key in ("main", "exports"):
            if value is None:
                scope.cannot_tell(call.part)
            elif key.startswith("scripts"):
                scope.script(value)
            else:
                scope.raise_to("medium", "runs_project", call.part)


def runner(call: Call, scope: Scope, *, downloads: bool = False) -> None:
    """npx/bunx/pnpm dlx/npm exec: the project's own tool is judged as that tool; any other package is downloaded
    and run."""
    parsed = parse(call.words, _VALUES, first_operand_stops=True)
    _settings(call, scope, parsed.options)
    for text in parsed.values("-c", "--call"):
        if text.value is None:
            scope.cannot_tell(call.part)
        else:
            scope.script(text.value)
    packages = parsed.values("-p", "--package")
    operands = parsed.operands
    if not operands:
        return
    name = operands[0].value
    if name is None:
        scope.cannot_tell(call.part)
        return
    base = re.sub(r"@[^/]*$", "", name) if not name.startswith("@") else name
    elsewhere = packages or downloads or base not in PROJECT_TOOLS or "@" in name[1:]
    if elsewhere and (packages or not parsed.has("--no-install", "--offline")):
        scope.raise_to("high", "runs_package", (packages[0].text if packages else name))
        return
    scope.run([Word.literal(base), *operands[1:]], call.stdin)


def npx(call: Call, scope: Scope) -> None:
    runner(call, scope)


PROGRAMS = {"npm": npm, "yarn": npm, "pnpm": npm, "bun": npm, "npx": npx, "bunx": npx, "pnpx": npx, "yarnpkg": npm}
