"""Python code given inline (`python3 -c`, a heredoc, a pipe) read with Python's own parser and judged positively:
harmless builtins and read-only standard modules are low; files written or deleted are judged by where they go;
commands run with literal arguments are judged as commands; the network names its host; anything that can reach
code the card does not show (exec, eval, __import__, getattr with a computed name, dunder attributes, ctypes,
pickle) is "LineUp cannot tell what this runs"."""

from __future__ import annotations

import ast
import re

from hub.domain.risk.network import host_of
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Scope
from hub.domain.risk.words import Word, names

MAX_CODE = 65_536
# Builtins that reach code the card does not show.
OPAQUE_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "breakpoint", "globals", "locals", "vars",
                             "setattr", "delattr", "__builtins__", "__loader__", "__spec__", "memoryview"})
# Standard modules that only compute or read (what they are called with is still judged: open, os.*).
SAFE_MODULES = names("""
sys json re math cmath pathlib os os.path posixpath ntpath collections collections.abc itertools functools datetime
time platform string textwrap statistics decimal fractions random uuid hashlib hmac base64 binascii struct csv pprint
typing dataclasses enum operator copy glob fnmatch difflib unicodedata locale sysconfig importlib.metadata
importlib.util importlib.resources tomllib tomli configparser zoneinfo calendar bisect heapq array numbers ast keyword
tokenize token inspect html html.parser xml xml.etree xml.etree.ElementTree zlib io codecs secrets shlex argparse
warnings contextlib types abc weakref traceback mimetypes urllib.parse ipaddress colorsys getpass gzip bz2 lzma
zipfile tarfile tempfile string.templatelib graphlib queue dis pkgutil reprlib site encodings encodings.idna
""")
NETWORK_MODULES = frozenset({"socket", "urllib", "urllib.request", "http", "http.client", "http.server", "requests",
                             "httpx", "aiohttp", "ftplib", "smtplib", "telnetlib", "xmlrpc", "xmlrpc.client",
                             "websocket", "websockets", "paramiko", "urllib3", "poplib", "imaplib", "ssl",
                             "socketserver", "asyncio"})
OPAQUE_MODULES = frozenset({"ctypes", "cffi", "pickle", "marshal", "shelve", "dill", "runpy", "code", "codeop",
                            "multiprocessing", "importlib", "imp", "pty", "signal", "resource", "sys.modules",
                            "builtins", "gc", "concurrent", "threading", "_thread", "atexit", "readline",
                            "webbrowser", "pdb", "cProfile", "profile", "trace", "zipimport", "sqlite3", "dbm"})
_OS_SAFE = frozenset({"getcwd", "listdir", "scandir", "walk", "environ", "getenv", "sep", "linesep", "name",
                      "cpu_count", "getpid", "getppid", "stat", "lstat", "uname", "get_terminal_size", "fspath",
                      "fsencode", "fsdecode", "access", "devnull", "curdir", "pardir", "pathsep", "extsep", "times",
                      "getuid", "geteuid", "getgid", "getegid", "getlogin", "urandom", "isatty", "getloadavg",
                      "sched_getaffinity", "path", "environ.get", "environ.items", "environ.keys", "environ.copy",
                      "process_cpu_count", "get_exec_path", "strerror", "supports_follow_symlinks", "PathLike",
                      "DirEntry", "stat_result", "terminal_size", "fstat", "readlink", "getgroups", "umask"})
_RUNS = re.compile(r"^(os\.(system|popen|exec\w*|spawn\w*|posix_spawnp?)|subprocess\.\w+|pty\.spawn"
                   r"|commands\.getoutput|asyncio\.create_subprocess_(exec|shell))$")
_DELETES = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"})
_MOVES = frozenset({"os.rename", "os.replace", "os.renames", "shutil.move"})
_WRITES_SECOND = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copymode",
                            "shutil.copystat", "os.symlink", "os.link", "shutil.unpack_archive"})
_WRITES_FIRST = frozenset({"os.mkdir", "os.makedirs", "os.truncate", "os.utime", "os.mkfifo", "os.mknod",
                           "shutil.make_archive"})
_CHMODS = frozenset({"os.chmod", "os.chown", "os.lchown", "os.lchmod", "shutil.chown", "os.chflags"})
_SHUTIL_SAFE = frozenset({"shutil.which", "shutil.disk_usage", "shutil.get_terminal_size"})
_PATH_WRITES = frozenset({"write_text", "write_bytes", "touch", "mkdir", "symlink_to", "hardlink_to"})
_PATH_DELETES = frozenset({"unlink", "rmdir", "rmtree"})
_SAFE_DUNDERS = frozenset({"__name__", "__version__", "__file__", "__doc__", "__all__", "__path__", "__author__"})


class PythonJudge(ast.NodeVisitor):
    """Walks the code; every call and reference judged as above, into `scope`."""

    def __init__(self, scope: Scope, part: str) -> None:
        self.scope = scope
        self.part = part
        self.names: dict[str, str] = {}  # local name → the module or function it was imported as

    def opaque(self, what: str) -> None:
        self.scope.cannot_tell(f"{self.part}: {clip(what, 30)}")

    def dotted(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.names.get(node.id, node.id))
        return ".".join(reversed(parts))

    def module(self, name: str) -> None:
        """An imported module: the network and opaque modules are judged when used; others not in the standard
        library's read-only part are the project's code (or an installed package's)."""
        root = name.split(".")[0]
        if name in SAFE_MODULES or name in NETWORK_MODULES or name in OPAQUE_MODULES or root in ("os", "shutil",
                                                                                               "subprocess", "yaml"):
            return
        self.scope.raise_to("medium", "runs_project", self.part)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(
                ".")[0]
            self.module(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None:
            self.scope.raise_to("medium", "runs_project", self.part)
            return
        for alias in node.names:
            if alias.name == "*":
                self.opaque(f"from {node.module} import *")
            self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        self.module(node.module)

    def visit_Name(self, node: ast.Name) -> None:
        name = self.names.get(node.id, node.id)
        if node.id in OPAQUE_BUILTINS or node.id == "getattr" or self._dangerous(name):
            self.opaque(node.id)  # referred to, not called where the hub can read the call

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and node.attr not in _SAFE_DUNDERS:
            self.opaque(node.attr)
        name = self.dotted(node)
        if name is not None and self._dangerous(name):
            self.opaque(name)
        self.visit(node.value) if not isinstance(node.value, ast.Name) else None

    def _dangerous(self, name: str) -> bool:
        root = name.split(".")[0]
        return bool(_RUNS.match(name) or name in _DELETES or name in _MOVES or name in _WRITES_SECOND
                    or name in _WRITES_FIRST or name in _CHMODS or root in OPAQUE_MODULES or root in NETWORK_MODULES
                    or name in OPAQUE_MODULES or (root == "os" and len(name.split(".")) > 1 and name.split(".")[1]
                                                  not in _OS_SAFE) or (root == "shutil" and name not in _SHUTIL_SAFE
                                                                       and name != "shutil"))

    def visit_Call(self, node: ast.Call) -> None:
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(argument)
        func = node.func
        name = self.dotted(func)
        if isinstance(func, ast.Name) and func.id not in self.names:
            self.builtin(func.id, node)
            return
        if name is None:
            if isinstance(func, ast.Attribute):
                self.method(func, node)
            else:
                self.visit(func)
            return
        self.function(name, node)
        if isinstance(func, ast.Attribute) and not isinstance(func.value, ast.Name):
            self.visit(func.value)

    def builtin(self, name: str, node: ast.Call) -> None:
        if name in OPAQUE_BUILTINS:
            self.opaque(name)
        elif name == "getattr":
            attribute = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(attribute, ast.Constant) and isinstance(attribute.value, str)):
                self.opaque("getattr")
            elif node.args and (base := self.dotted(node.args[0])) is not None:
                self.function(f"{base}.{attribute.value}", node) if self._dangerous(
                    f"{base}.{attribute.value}") else None
                if attribute.value.startswith("__") and attribute.value not in _SAFE_DUNDERS:
                    self.opaque(attribute.value)
        elif name == "open":
            self.open(node)

    def open(self, node: ast.Call) -> None:
        path = _constant(node.args[0]) if node.args else None
        mode_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"),
                                                                 None)
        mode = _constant(mode_node) if mode_node is not None else "r"
        if mode is None:
            self.opaque("open")
        elif re.search(r"[wax+]", mode):
            self.path("write", path)
        elif path is not None:
            self.scope.read(Word.literal(path))

    def path(self, action: str, value: str | None) -> None:
        if value is None:
            self.opaque(f"a path chosen at run time ({action})")
            return
        word = Word.literal(value)
        if action == "write":
            self.scope.write(word)
        elif action == "delete":
            self.scope.delete(word)
        else:
            self.scope.chmod(word)

    def function(self, name: str, node: ast.Call) -> None:
        first = _constant(node.args[0]) if node.args else None
        second = _constant(node.args[1]) if len(node.args) > 1 else None
        root = name.split(".")[0]
        if _RUNS.match(name):
            self.runs(node)
        elif name in _DELETES:
            self.path("delete", first)
        elif name in _MOVES:
            self.path("delete", first)
            self.path("write", second)
        elif name in _WRITES_SECOND:
            self.path("write", second)
        elif name in _WRITES_FIRST:
            self.path("write", first)
        elif name in _CHMODS:
            self.path("chmod", first)
        elif name in ("os.kill", "os.killpg"):
            self.scope.raise_to("high", "stops_processes", self.part)
        elif name in ("importlib.import_module", "importlib.__import__"):
            if first is None:
                self.opaque(name)
            else:
                self.module(first)
        elif root in NETWORK_MODULES or name.rsplit(".", 1)[0] in NETWORK_MODULES:
            url = next((c for a in node.args if (c := _constant(a))), None)
            self.scope.raise_to("high", "code_network", f"{self.part}: {(host_of(url) if url else None) or root}")
        elif name in ("yaml.load", "yaml.unsafe_load", "yaml.full_load", "yaml.load_all"):
            loader = next((k.value for k in node.keywords if k.arg == "Loader"), None)
            if loader is None or "Safe" not in (self.dotted(loader) or ""):
                self.opaque(name)
        elif name == "pathlib.Path.open" or name.endswith(".open") and root == "pathlib":
            self.open(node)
        elif self._dangerous(name) and not name.startswith(("importlib.metadata", "importlib.util",
                                                            "importlib.resources")):
            self.opaque(name)
        elif root not in self.names.values() and root not in {n.split(".")[0] for n in self.names.values()}:
            pass  # a function the code defined, or a name it never imported (a NameError when it runs)

    def method(self, func: ast.Attribute, node: ast.Call) -> None:
        """A method of a value that is not a name: `Path('x').write_text(…)`, `'a'.join(…)`."""
        receiver = func.value
        path = None
        if isinstance(receiver, ast.Call) and self.dotted(receiver.func) in ("importlib.import_module",
                                                                            "importlib.__import__"):
            module = _constant(receiver.args[0]) if receiver.args else None
            if module is not None:  # importlib.import_module('o' + 's').system(…) is os.system(…)
                self.function(f"{module}.{func.attr}", node)
        if isinstance(receiver, ast.Call) and (self.dotted(receiver.func) or "").split(".")[-1] in (
                "Path", "PurePath", "PosixPath") and receiver.args:
            path = _constant(receiver.args[0])
            target = _constant(node.args[0]) if node.args else None
            if func.attr in ("rename", "replace"):
                self.path("delete", path)
                self.path("write", target)
            elif func.attr == "open":
                mode = _constant(node.args[0]) if node.args else "r"
                self.path("write", path) if mode is None or re.search(r"[wax+]", mode) else None
        if func.attr in _PATH_WRITES:
            self.path("write", path)
        elif func.attr in _PATH_DELETES or func.attr in ("chmod", "lchmod"):
            self.path("delete" if func.attr in _PATH_DELETES else "chmod", path)
        if func.attr.startswith("__") and func.attr not in _SAFE_DUNDERS:
            self.opaque(func.attr)
        self.visit(receiver)

    def runs(self, node: ast.Call) -> None:
        """os.system('…'), subprocess.run([...]): the command is judged when the card holds it."""
        argument = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("args", "cmd")),
                                                       None)
        shell = any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value for k in node.keywords)
        text = _constant(argument) if argument is not None else None
        if text is not None:
            self.scope.script(text)
            return
        if isinstance(argument, ast.List | ast.Tuple) and not shell:
            words = [_constant(e) for e in argument.elts]
            if all(w is not None for w in words):
                self.scope.run([Word.literal(w or "") for w in words])
                return
        self.opaque("a command chosen at run time")


def _constant(node: ast.AST | None) -> str | None:
    """A string the code spells out: a literal, or literals joined with `+` (judged as the joined text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant(node.left), _constant(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
    return None


def judge_python(code: str, scope: Scope, part: str) -> None:
    if len(code) > MAX_CODE:
        scope.raise_to("high", "too_long")
        return
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        scope.cannot_tell(f"{part}: code that does not parse")
        return
    try:
        PythonJudge(scope, part).visit(tree)
    except RecursionError:
        scope.cannot_tell(f"{part}: code nested too deep")
