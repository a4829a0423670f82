"""The import graph of hub/: no circle of modules or of packages, and imports run down docs/architecture.md's layers.

The parts depend on narrow things (hub/ports.py, hub/bus.py, a Protocol of their own) instead of importing the `Hub`
back from hub/core.py. Imports under `if TYPE_CHECKING:` count too: a type that names hub/core.py is a
dependency on it all the same. The ceilings are zero; never raise them.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path
from typing import cast

HUB = Path(__file__).resolve().parents[2] / "hub"

# Modules in any circle, and in the circle through hub/core.py, counting imports made only for type checking
# (29 and 20 once). None is left: the plugin API and the notifiers name hub/ports.py's `PluginHub`, what
# a plugin may use of the hub, instead of the Hub itself.
MAX_IN_CIRCLES = 0
MAX_IN_CORE_CIRCLE = 0
MAX_IN_RUNTIME_CIRCLES = 0


# The built-in plugins beside hub/, loaded by path (no package of the hub): in the graph, one package `plugins`.
BESIDE = ("plugins",)


def module_files(root: Path = HUB) -> dict[str, Path]:
    found = {}
    folders = [(root, root.name), *((root.parent / folder, folder) for folder in BESIDE)]
    for folder, package in folders:
        for path in folder.rglob("*.py"):
            parts = [*package.split("."), *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, modules: dict[str, Path], *, type_checking: bool) -> set[str]:
    """The hub modules a file imports, anywhere in it (functions too), resolved to the module that holds them."""
    def resolve(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child) and not type_checking:
                for other in child.orelse:
                    visit(other)
            elif isinstance(child, ast.Import):
                found.update(resolve(a.name) for a in child.names if a.name.split(".")[0] == "hub")
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module \
                    and child.module.split(".")[0] == "hub":
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    found.add(sub if sub in modules else resolve(child.module))
            else:
                visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def graph(*, type_checking: bool) -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(path, modules, type_checking=type_checking) - {name} for name, path in modules.items()}


def test_circles_are_found() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [{"a", "b", "c"}]


def test_no_import_circle_runs_through_the_core() -> None:
    found = circles(graph(type_checking=False))
    assert not any("hub.core" in c for c in found), found
    assert sum(map(len, found)) <= MAX_IN_RUNTIME_CIRCLES, found


def test_the_modules_in_circles_do_not_grow_in_number() -> None:
    found = circles(graph(type_checking=True))
    core = next((c for c in found if "hub.core" in c), set())
    assert len(core) <= MAX_IN_CORE_CIRCLE, sorted(core)
    assert sum(map(len, found)) <= MAX_IN_CIRCLES, [sorted(c) for c in found]
    # The parts cut loose from the core stay loose: they name hub/ports.py's narrow types instead.
    loose = {"hub.bus", "hub.ports", "hub.gateway.fanout", "hub.gateway.presence", "hub.gateway.session",
             "hub.gateway.streams", "hub.auth.lookup", "hub.runtimes.supervisor", "hub.tools.router",
             "hub.tools.registry", "hub.tools.handlers", "hub.relay", "hub.relay.inbound", "hub.relay.uplink",
             "hub.api", "hub.hookspecs", "hub.notify.channel", "hub.notify.service", "hub.pluginhost.manager"}
    assert not core & loose, sorted(core & loose)


# ---- packages: a folder of hub/, or a module directly in it; `hub` is the facade, hub/__init__.py ----------

ARCHITECTURE = HUB.parent / "docs" / "architecture.md"

# Imports that still run up the layers, each with why; the list only shrinks (a test fails on an entry that is
# gone). It is empty: the last one (hub/ports.py naming `PluginFailure` of hub/pluginhost/) was paid by moving the
# type down into hub/ports.py. An entry added here must say why it cannot run down instead.
OWED: dict[tuple[str, str], str] = {}


def package_of(module: str) -> str:
    """`hub.store.queries.tasks` → `hub.store`; a top-level module (`hub.core`) and the facade (`hub`) are their own;
    every built-in plugin (`plugins.notifiers.mail`) is `plugins`."""
    if module.split(".")[0] in BESIDE:
        return module.split(".")[0]
    return ".".join(module.split(".")[:2])


@functools.cache
def package_edges(root: Path = HUB) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs, each with the `file:line imports module` of every import that makes it.

    Every import counts: at the top, inside functions, and under `if TYPE_CHECKING:` (a type is a dependency too).
    """
    modules = module_files(root)

    def resolve(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [resolve(a.name) for a in node.names if a.name.split(".")[0] == "hub"]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == "hub":
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else resolve(node.module)
                           for a in node.names]
            for target in targets:
                source, imported = package_of(module), package_of(target)
                if source != imported:
                    where = f"{path.relative_to(root.parent)}:{cast(ast.stmt, node).lineno} imports {target}"
                    if where not in edges[(source, imported)]:
                        edges[(source, imported)].append(where)
    return dict(edges)


def documented_layers() -> dict[str, int]:
    """Each package's layer, from the table under "## Package layers" in docs/architecture.md (1 is the bottom)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Package layers", 1)[1].split("\n## ", 1)[0]
    layers: dict[str, int] = {}
    for row in re.findall(r"^\|\s*(\d+)\s*\|(.*?)\|", section, re.M):
        for name in re.findall(r"`((?:hub|plugins)/[\w/.]*)`", row[1]):
            layers[name.removesuffix("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")] = int(row[0])
    return layers


def test_the_package_of_a_module() -> None:
    assert package_of("hub.store.queries.tasks") == "hub.store"
    assert package_of("hub.core") == "hub.core" and package_of("hub") == "hub"


def test_an_upward_import_is_named_by_its_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "hub"
    for name, text in {"__init__.py": "", "core.py": "from hub.store import rows\n", "store/__init__.py": "",
                       "store/rows.py": "import json\n\n\ndef later():\n    from hub.core import Hub\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    edges = package_edges(root)
    assert edges == {("hub.core", "hub.store"): ["hub/core.py:1 imports hub.store.rows"],
                     ("hub.store", "hub.core"): ["hub/store/rows.py:5 imports hub.core"]}
    assert upward_imports(edges, {"hub.store": 1, "hub.core": 2}) == [
        "hub.store (layer 1) -> hub.core (layer 2): hub/store/rows.py:5 imports hub.core"]


def test_no_two_packages_import_each_other() -> None:
    edges = package_edges()
    both = sorted((a, b) for a, b in edges if a < b and (b, a) in edges)
    assert not both, "\n".join(f"{a} <-> {b}: " + "; ".join(edges[(a, b)] + edges[(b, a)]) for a, b in both)


def test_every_package_has_a_layer_in_the_architecture_doc() -> None:
    packages = {package_of(m) for m in module_files()} - {"hub.__main__"}
    missing = sorted(packages - set(documented_layers()))
    assert not missing, f"add these to the table under '## Package layers' in docs/architecture.md: {missing}"
    unknown = sorted(set(documented_layers()) - packages)
    assert not unknown, f"docs/architecture.md lists packages hub/ does not have: {unknown}"


def upward_imports(edges: dict[tuple[str, str], list[str]], layers: dict[str, int]) -> list[str]:
    return [f"{a} (layer {layers[a]}) -> {b} (layer {layers[b]}): " + "; ".join(found)
            for (a, b), found in sorted(edges.items()) if layers.get(a, 0) < layers.get(b, 0) and (a, b) not in OWED]


def real_layers() -> dict[str, int]:
    layers = documented_layers()
    layers["hub.__main__"] = max(layers.values()) + 1  # `python -m hub`: the command, on top of everything
    return layers


def test_imports_run_down_the_layers() -> None:
    up = upward_imports(package_edges(), real_layers())
    assert not up, "imports that run up docs/architecture.md's layers:\n" + "\n".join(up)


def test_no_circle_runs_through_the_packages() -> None:
    edges = package_edges()
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph.setdefault(b, set())
        if (a, b) not in OWED:
            graph[a].add(b)
    found = circles(dict(graph))
    assert not found, "packages in an import circle:\n" + "\n".join(
        f"{sorted(c)}: " + "; ".join(f for (a, b), fs in edges.items() if a in c and b in c for f in fs)
        for c in found)


def test_the_owed_imports_still_exist() -> None:
    # An owed import that is gone comes off the list, so the list only shrinks.
    gone = sorted(set(OWED) - set(package_edges()))
    assert not gone, f"remove from OWED, it is paid: {gone}"
    layers = real_layers()
    level = sorted((a, b) for a, b in OWED if layers[a] >= layers[b])
    assert not level, f"remove from OWED, these run down the layers: {level}"


def test_the_client_side_is_not_imported_by_the_server() -> None:
    # `lineup mcp` and `lineup connect` run in the agent's process: only the command line starts them.
    edges = package_edges()
    wrong = [f for (a, b), fs in sorted(edges.items())
             if b in ("hub.mcp", "hub.connect") and a not in ("hub.cli", "hub.mcp", "hub.connect") for f in fs]
    assert not wrong, wrong
