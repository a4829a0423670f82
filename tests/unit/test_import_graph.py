"""The import graph of hub/: no modules import each other in a circle, the arrows run one way.

Issue 18 item 3: the parts depend on narrow things (hub/ports.py, hub/bus.py) instead of importing the `Hub`
back from hub/core.py. Imports under `if TYPE_CHECKING:` count too: a type that names hub/core.py is a
dependency on it all the same. The ceilings are zero; never raise them.
"""

from __future__ import annotations

import ast
from pathlib import Path

HUB = Path(__file__).resolve().parents[2] / "hub"

# Modules in any circle, and in the circle through hub/core.py, counting imports made only for type checking
# (before issue 18: 29 and 20). None is left: the plugin API and the notifiers name hub/ports.py's `PluginHub`, what
# a plugin may use of the hub, instead of the Hub itself.
MAX_IN_CIRCLES = 0
MAX_IN_CORE_CIRCLE = 0
MAX_IN_RUNTIME_CIRCLES = 0


def module_files() -> dict[str, Path]:
    found = {}
    for path in HUB.rglob("*.py"):
        parts = list(path.relative_to(HUB.parent).with_suffix("").parts)
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
    # The parts cut loose from the core in issue 18 stay loose: they name hub/ports.py's narrow types instead.
    loose = {"hub.bus", "hub.ports", "hub.gateway.fanout", "hub.gateway.presence", "hub.gateway.session",
             "hub.gateway.streams", "hub.auth.lookup", "hub.runtimes.supervisor", "hub.tools.router",
             "hub.tools.registry", "hub.tools.handlers", "hub.relay", "hub.relay.inbound", "hub.relay.uplink",
             "hub.api", "hub.hookspecs", "hub.notify.channel", "hub.notify.service", "hub.pluginhost.manager"}
    assert not core & loose, sorted(core & loose)
