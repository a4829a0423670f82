"""Python code given inline (`python3 -c`, a heredoc, a pipe) read with Python's own parser and judged positively:
every name, attribute and call must be one the hub knows, or the code is high, "LineUp cannot tell what this code
does".

- Only allowlisted standard modules are imported (a module of the project or an installed package is the project's
  code: medium); a module's name appears only as the base of an attribute on its list (`json.loads`, `sys.version`,
  `os.path.join`), never assigned, aliased, put in a container, passed, subscripted or used for another attribute
  (`glob.os` is not on glob's list).
- Calls go to allowlisted builtins, allowlisted module functions, functions the code defines, or a list of harmless
  method names on ordinary values (`get`, `items`, `split`, `join`, `startswith` …).
- Known effects are judged by what they do: `os.system('…')` and `subprocess.run([...])` as the command they run
  (`executable=` and `os.exec*`'s first argument are the program), files written, deleted, moved or linked by where
  they go (`open()` only with a literal path and mode), the network by its host.
- No dunder names or attributes, no getattr/setattr/vars/globals/locals/eval/exec/compile/__import__, no frames.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

from hub.domain.risk.network import host_of
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Scope, Stream
from hub.domain.risk.words import Word, names

MAX_CODE = 65_536


def _table(text: str) -> dict[str, frozenset[str]]:
    """`module: name name …` lines (a line may continue on the next, indented) as a dict."""
    table: dict[str, set[str]] = {}
    module = ""
    for line in text.strip().splitlines():
        if ":" in line and not line.startswith(" "):
            module, _, rest = line.partition(":")
            module = module.strip()
        else:
            rest = line
        table.setdefault(module, set()).update(rest.split())
    return {key: frozenset(value) for key, value in table.items()}


# Standard modules the code may import, each with the attributes it may use: functions that only compute, read or
# print, constants, classes of ordinary values. A name listed as a module below (`os.path`) is a submodule.
ALLOWED = _table("""
sys: version version_info platform executable path argv prefix base_prefix exec_prefix base_exec_prefix
    implementation maxsize maxunicode byteorder stdout stderr stdin exit getrecursionlimit setrecursionlimit getsizeof
    getdefaultencoding getfilesystemencoding flags float_info int_info hash_info thread_info hexversion api_version
    stdlib_module_names builtin_module_names platlibdir orig_argv copyright abiflags getrefcount is_finalizing
    pycache_prefix dont_write_bytecode warnoptions set_int_max_str_digits get_int_max_str_digits
json: loads dumps load dump JSONDecodeError JSONEncoder JSONDecoder
re: compile match search findall finditer sub subn split fullmatch escape purge IGNORECASE I MULTILINE M DOTALL S
    VERBOSE X ASCII A UNICODE U NOFLAG error Pattern Match
math: pi e tau inf nan sqrt isqrt pow exp log log2 log10 log1p floor ceil trunc fabs factorial gcd lcm comb perm fsum
    prod isclose isfinite isinf isnan copysign fmod frexp ldexp modf remainder sin cos tan asin acos atan atan2 sinh
    cosh tanh asinh acosh atanh degrees radians hypot dist erf erfc gamma lgamma nextafter ulp cbrt exp2 sumprod
cmath: pi e tau inf nan infj nanj sqrt exp log log10 phase polar rect isclose isfinite isinf isnan sin cos tan
statistics: mean median mode stdev pstdev variance pvariance fmean geometric_mean harmonic_mean median_low median_high
    median_grouped multimode quantiles correlation covariance linear_regression NormalDist StatisticsError
random: random randint randrange choice choices shuffle sample uniform gauss normalvariate seed getrandbits
    triangular betavariate expovariate Random SystemRandom randbytes
string: ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits punctuation printable whitespace
    capwords Template
textwrap: dedent indent fill wrap shorten TextWrapper
itertools: count cycle repeat accumulate chain compress dropwhile filterfalse groupby islice pairwise starmap
    takewhile tee zip_longest product permutations combinations combinations_with_replacement batched
functools: reduce partial lru_cache cache cached_property wraps total_ordering cmp_to_key singledispatch
operator: add sub mul truediv floordiv mod pow neg pos abs eq ne lt le gt ge not_ and_ or_ xor itemgetter
    contains concat countOf indexOf getitem index inv invert lshift rshift matmul truth is_ is_not
collections: Counter defaultdict OrderedDict deque namedtuple ChainMap UserDict UserList UserString abc
collections.abc: Mapping MutableMapping Sequence MutableSequence Set MutableSet Iterable Iterator Callable Hashable
    Sized Container Generator Awaitable Coroutine
datetime: datetime date time timedelta timezone tzinfo MINYEAR MAXYEAR UTC
time: time time_ns sleep strftime strptime localtime gmtime mktime perf_counter perf_counter_ns monotonic
    monotonic_ns process_time ctime asctime timezone tzname altzone daylight struct_time thread_time
calendar: month monthrange isleap leapdays weekday monthcalendar calendar month_name month_abbr day_name day_abbr
    TextCalendar timegm
zoneinfo: ZoneInfo available_timezones
decimal: Decimal getcontext localcontext ROUND_HALF_UP ROUND_HALF_EVEN ROUND_DOWN ROUND_UP ROUND_CEILING ROUND_FLOOR
    InvalidOperation
fractions: Fraction
numbers: Number Integral Real Complex Rational
typing: Any Optional Union List Dict Set Tuple Callable Iterable Iterator Sequence Mapping NamedTuple TypedDict
    Literal cast TYPE_CHECKING Final ClassVar Protocol TypeVar Generic overload
dataclasses: dataclass field fields asdict astuple replace is_dataclass FrozenInstanceError
enum: Enum IntEnum StrEnum Flag IntFlag auto unique
abc: ABC ABCMeta abstractmethod
types: SimpleNamespace MappingProxyType NoneType
copy: copy deepcopy
pprint: pprint pformat pp PrettyPrinter
reprlib: repr
heapq: heappush heappop heapify heapreplace heappushpop nlargest nsmallest merge
bisect: bisect bisect_left bisect_right insort insort_left insort_right
array: array
graphlib: TopologicalSorter CycleError
queue: Queue LifoQueue PriorityQueue SimpleQueue Empty Full
hashlib: md5 sha1 sha224 sha256 sha384 sha512 sha3_256 sha3_512 blake2b blake2s new algorithms_available
    algorithms_guaranteed file_digest
hmac: new compare_digest digest
base64: b64encode b64decode urlsafe_b64encode urlsafe_b64decode b32encode b32decode b16encode b16decode
    a85encode a85decode b85encode b85decode encodebytes decodebytes standard_b64encode standard_b64decode
binascii: hexlify unhexlify crc32 b2a_hex a2b_hex b2a_base64 a2b_base64 Error
struct: pack unpack calcsize iter_unpack pack_into unpack_from Struct error
zlib: compress decompress crc32 adler32 error
gzip: compress decompress
bz2: compress decompress
lzma: compress decompress
uuid: uuid1 uuid3 uuid4 uuid5 UUID NAMESPACE_DNS NAMESPACE_URL NAMESPACE_OID NAMESPACE_X500
secrets: token_hex token_bytes token_urlsafe choice randbelow compare_digest SystemRandom
shlex: split quote join
fnmatch: fnmatch fnmatchcase filter translate
glob: glob iglob escape has_magic
difflib: unified_diff context_diff ndiff SequenceMatcher get_close_matches Differ HtmlDiff
unicodedata: name lookup category normalize east_asian_width combining numeric decimal digit bidirectional
    mirrored unidata_version is_normalized
locale: getlocale getpreferredencoding getencoding setlocale LC_ALL LC_CTYPE LC_NUMERIC localeconv
getpass: getuser
platform: python_version python_version_tuple python_implementation python_compiler python_build system machine
    platform release version node uname architecture processor mac_ver libc_ver freedesktop_os_release
sysconfig: get_paths get_path get_config_var get_config_vars get_platform get_python_version get_scheme_names
    get_default_scheme get_preferred_scheme
site: getsitepackages getusersitepackages ENABLE_USER_SITE USER_SITE USER_BASE PREFIXES
keyword: iskeyword kwlist softkwlist issoftkeyword
token: tok_name
ast: parse dump literal_eval walk unparse get_docstring iter_child_nodes NodeVisitor
html: escape unescape
mimetypes: guess_type guess_extension guess_all_extensions
ipaddress: ip_address ip_network ip_interface IPv4Address IPv6Address IPv4Network IPv6Network
colorsys: rgb_to_hsv hsv_to_rgb rgb_to_hls hls_to_rgb rgb_to_yiq yiq_to_rgb
urllib: parse
urllib.parse: urlparse urlsplit urlunparse urlunsplit urljoin urlencode quote quote_plus unquote unquote_plus
    parse_qs parse_qsl urldefrag
csv: reader writer DictReader DictWriter QUOTE_ALL QUOTE_MINIMAL QUOTE_NONE QUOTE_NONNUMERIC excel Sniffer
    field_size_limit Error
io: StringIO BytesIO TextIOWrapper SEEK_SET SEEK_CUR SEEK_END DEFAULT_BUFFER_SIZE
codecs: encode decode lookup getencoder getdecoder BOM_UTF8
contextlib: suppress redirect_stdout redirect_stderr contextmanager closing nullcontext ExitStack
warnings: warn filterwarnings simplefilter catch_warnings
traceback: print_exc format_exc print_exception format_exception print_stack format_stack extract_stack
errno: errorcode ENOENT EEXIST EACCES EPERM ENOTDIR EISDIR
stat: S_ISDIR S_ISREG S_ISLNK S_IMODE S_IFMT filemode ST_MODE ST_SIZE ST_MTIME
argparse: ArgumentParser Namespace ArgumentTypeError RawTextHelpFormatter RawDescriptionHelpFormatter
    ArgumentDefaultsHelpFormatter
getopt: getopt gnu_getopt GetoptError
logging: getLogger basicConfig debug info warning warn error exception critical log DEBUG INFO WARNING WARN ERROR
    CRITICAL StreamHandler Formatter
tomllib: loads load TOMLDecodeError
configparser: ConfigParser RawConfigParser
xml: etree dom
xml.etree: ElementTree
xml.etree.ElementTree: parse fromstring tostring Element SubElement ElementTree dump iterparse XML indent
    ParseError
xml.dom: minidom
xml.dom.minidom: parseString parse
pathlib: Path PurePath PosixPath PurePosixPath PureWindowsPath
os: getcwd listdir scandir walk environ getenv sep linesep name cpu_count getpid getppid stat lstat uname
    get_terminal_size fspath fsencode fsdecode access devnull curdir pardir pathsep extsep altsep times getuid geteuid
    getgid getegid getlogin urandom isatty getloadavg sched_getaffinity path process_cpu_count get_exec_path
    strerror supports_follow_symlinks PathLike DirEntry stat_result terminal_size fstat readlink getgroups
    getcwdb F_OK R_OK W_OK X_OK SEEK_SET SEEK_CUR SEEK_END EX_OK P_WAIT P_NOWAIT P_NOWAITO
os.path: join exists isfile isdir islink abspath realpath basename dirname split splitext expanduser expandvars
    getsize getmtime getctime getatime normpath relpath commonpath commonprefix sep isabs samefile lexists ismount
    splitdrive normcase
posixpath: join exists isfile isdir abspath basename dirname split splitext normpath relpath expanduser
shutil: which disk_usage get_terminal_size copyfileobj
tempfile: gettempdir gettempprefix
subprocess: PIPE DEVNULL STDOUT CalledProcessError TimeoutExpired CompletedProcess SubprocessError
tarfile: is_tarfile TarInfo TarError ReadError
zipfile: is_zipfile ZipInfo BadZipFile ZIP_DEFLATED ZIP_STORED
importlib: metadata
http: HTTPStatus HTTPMethod
xmlrpc:
pkgutil: iter_modules
importlib.metadata: version metadata distribution requires entry_points packages_distributions files
    PackageNotFoundError
""")
# Calls whose effect is judged (files, commands, processes, the environment) rather than allowed or refused.
EFFECTS = _table("""
os: system popen execl execle execlp execlpe execv execve execvp execvpe spawnl spawnle spawnlp spawnlpe spawnv
    spawnve spawnvp spawnvpe posix_spawn posix_spawnp remove unlink rmdir removedirs rename renames replace mkdir
    makedirs truncate utime mkfifo mknod chmod lchmod chown lchown chflags symlink link kill killpg putenv unsetenv
    chdir fork forkpty open fdopen write dup2 setuid setgid
subprocess: run call check_call check_output Popen getoutput getstatusoutput
shutil: rmtree copy copy2 copyfile copytree copymode copystat move make_archive unpack_archive chown
pty: spawn
asyncio: create_subprocess_exec create_subprocess_shell
tempfile: mkdtemp mkstemp NamedTemporaryFile TemporaryDirectory TemporaryFile SpooledTemporaryFile
gzip: open GzipFile
bz2: open BZ2File
lzma: open LZMAFile
tarfile: open TarFile
zipfile: ZipFile
tokenize: open
io: open
codecs: open
importlib: import_module
importlib.util: find_spec
importlib.resources: files
""")
# Modules whose use reaches the network (judged as such: high, naming the host).
NETWORK = names("""
socket ssl urllib.request http.client http.server http.cookiejar ftplib smtplib poplib imaplib telnetlib nntplib
xmlrpc.client xmlrpc.server socketserver asyncio requests httpx aiohttp urllib3 websocket websockets paramiko
fabric pycurl grpc boto3 botocore
""")
# Standard modules the sets above do not cover are refused: what they can reach (code loading, the interpreter's
# internals, other processes) is not on any list. A module outside the standard library is the project's or an
# installed package's code.
STANDARD = frozenset(sys.stdlib_module_names) | names("""
imp distutils asynchat asyncore smtpd cgi cgitb crypt telnetlib pipes nntplib spwd nis audioop chunk imghdr mailcap
msilib ossaudiodev sndhdr sunau uu xdrlib lib2to3 tkinter
""")
# Builtins that only compute, print or make ordinary values.
BUILTINS = names("""
print len range enumerate zip map filter sorted reversed sum min max abs round int float str bool list dict set
tuple frozenset bytes bytearray repr ascii format chr ord hex oct bin isinstance issubclass hasattr id hash iter next
any all divmod pow type callable slice complex object input exit quit super property staticmethod classmethod open
dir NotImplemented Ellipsis None True False Exception BaseException ValueError TypeError KeyError IndexError
AttributeError RuntimeError OSError IOError FileNotFoundError FileExistsError PermissionError NotImplementedError
StopIteration ZeroDivisionError ImportError ModuleNotFoundError AssertionError UnicodeDecodeError
UnicodeEncodeError LookupError ArithmeticError OverflowError KeyboardInterrupt SystemExit Warning UserWarning
DeprecationWarning IsADirectoryError NotADirectoryError TimeoutError ConnectionError EOFError
""")
# Methods of ordinary values (str, bytes, list, dict, set, numbers, re matches, dates, files already opened, hashes,
# counters, parsers of text already read) that only compute, read or print.
HARMLESS_METHODS = names("""
capitalize casefold center count encode endswith expandtabs find format format_map index isalnum isalpha isascii
isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper join ljust lower lstrip
maketrans partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit rstrip split splitlines
startswith strip swapcase title translate upper zfill decode hex fromhex append extend insert pop remove clear copy
reverse sort get items keys values setdefault update popitem fromkeys add discard union intersection difference
symmetric_difference issubset issuperset isdisjoint intersection_update difference_update group groups groupdict
span start end match search findall finditer sub subn fullmatch as_integer_ratio bit_length bit_count conjugate
is_integer to_bytes from_bytes now today utcnow fromisoformat fromtimestamp utcfromtimestamp strftime strptime
isoformat timestamp date time astimezone weekday isoweekday isocalendar total_seconds timetuple ctime read readline
readlines write writelines flush close seek tell isatty readable writable seekable fileno most_common elements
subtract total appendleft popleft rotate extendleft hexdigest digest getvalue writerow writerows writeheader
sections has_section has_option options getint getfloat getboolean read_string read_dict findtext iter iterfind
getroot getchildren tag text attrib tail substitute safe_substitute parse_args parse_known_args add_argument
add_argument_group add_mutually_exclusive_group add_subparsers add_parser set_defaults print_help print_usage
format_help error namelist getnames getmembers infolist getinfo getmember is_dir is_file exists is_symlink
is_absolute is_relative_to relative_to as_posix as_uri with_name with_suffix with_stem joinpath resolve absolute
expanduser glob rglob iterdir samefile stat lstat owner home cwd debug info warning critical exception log
setLevel addHandler getLogger mean median stdev quantize normalize adjust sqrt ln log10 exp keys_view
total_ordering cache_clear cache_info sorted_ext _asdict _replace _make _fields upper_bound wait communicate __init__
""")
# Attributes never read of a value the hub cannot name: they lead to modules, frames, code, the interpreter or an
# effect whatever holds them.
DANGEROUS_ATTRIBUTES = NETWORK | names("""
os posix nt sys subprocess shutil builtins importlib imp ctypes pickle marshal shelve dbm socket ssl pty tty termios
fcntl runpy code codeop types inspect gc threading multiprocessing concurrent asyncio signal atexit zipimport
webbrowser site tempfile pathlib io codecs tarfile zipfile gzip bz2 lzma sqlite3 urllib http ftplib smtplib poplib
imaplib telnetlib xmlrpc socketserver resource mmap posixpath ntpath genericpath fileinput linecache tokenize pdb bdb
trace cProfile profile doctest timeit unittest logging platform sysconfig pkgutil modulefinder distutils
system popen spawn fork kill killpg remove unlink rmdir rmtree removedirs rename renames symlink link symlink_to
hardlink_to chmod lchmod chown write_text write_bytes touch mkdir makedirs truncate urlopen urlretrieve Popen run
call check_call check_output getoutput eval exec compile open import_module load loads f_globals f_locals
f_builtins f_back f_code gi_frame gi_code cr_frame cr_code ag_frame ag_code tb_frame tb_next co_code func_globals
func_code im_func modules extractall extract unpack_archive environ putenv execv execve execvp
""")
# Live state that may be read but not aliased, changed or handed on: a changed sys.path imports other code, a
# changed environment loads other code into the programs started after it.
STATE = frozenset({"sys.path", "os.environ"})
STATE_READS = names("get items keys values copy index count")
STATE_CONSUMERS = names("print len str repr list sorted set tuple dict enumerate reversed iter any all sum min max "
                        "json.dumps pprint.pprint pprint.pformat")
_SAFE_DUNDERS = frozenset({"__name__", "__version__", "__file__", "__doc__", "__debug__", "__author__",
                           "__annotations__", "__init__"})
_DUNDER = re.compile(r"__\w+__")
_OPEN_LIKE = {"open": (0, 1, "r"), "io.open": (0, 1, "r"), "codecs.open": (0, 1, "r"), "gzip.open": (0, 1, "rb"),
              "bz2.open": (0, 1, "rb"), "lzma.open": (0, 1, "rb"), "tarfile.open": (0, 1, "r"),
              "zipfile.ZipFile": (0, 1, "r"), "tokenize.open": (0, -1, "r"), "gzip.GzipFile": (0, 1, "rb"),
              "bz2.BZ2File": (0, 1, "r"), "lzma.LZMAFile": (0, 1, "r"), "tarfile.TarFile": (0, 1, "r")}
_OPEN_KEYWORDS = frozenset({"mode", "encoding", "errors", "newline", "buffering", "file", "name", "filename",
                            "compression", "compresslevel", "allowZip64", "strict_timestamps", "format"})
_SUBPROCESS_KEYWORDS = frozenset({"check", "capture_output", "text", "universal_newlines", "stdout", "stderr", "stdin",
                                  "timeout", "encoding", "errors", "bufsize", "close_fds", "start_new_session",
                                  "restore_signals", "process_group"})
_DELETES = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"})
_MOVES = frozenset({"os.rename", "os.replace", "os.renames", "shutil.move"})
_WRITES_SECOND = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copymode",
                            "shutil.copystat", "shutil.unpack_archive"})
_WRITES_FIRST = frozenset({"os.mkdir", "os.makedirs", "os.truncate", "os.utime", "os.mkfifo", "os.mknod",
                           "shutil.make_archive"})
_CHMODS = frozenset({"os.chmod", "os.chown", "os.lchown", "os.lchmod", "shutil.chown", "os.chflags"})
_PATH_READS = names("read_text read_bytes")
_PATH_WRITES = names("write_text write_bytes touch mkdir")
_PATH_DELETES = names("unlink rmdir")
_PATH_MOVES = names("rename replace")
_PATH_DERIVED = names("resolve absolute expanduser joinpath with_name with_suffix with_stem parent home cwd")


@dataclass(frozen=True)
class Val:
    """What an expression is: `kind` (value, local, builtin, module, member, effect, network, state, project, path,
    banned, ambiguous) and the dotted name or, for a path, its literal text ("" when not known)."""

    kind: str
    name: str = ""


VALUE = Val("value")
# Kinds that must not be held as a value: a module, a function with an effect, live state.
_HELD = frozenset({"module", "effect", "network", "state", "banned", "ambiguous"})
# Functions allowed where they are called (their path and mode are judged there), never handed on to be called later.
_HELD_FUNCTIONS = frozenset({"open", "logging.basicConfig", "xml.etree.ElementTree.parse",
                             "xml.etree.ElementTree.iterparse", "xml.dom.minidom.parse"})


class PythonJudge:
    """Walks the code once for its bindings, then judges every statement into `scope`."""

    def __init__(self, scope: Scope, part: str) -> None:
        self.scope = scope
        self.part = part
        self.bindings: dict[str, set[Val]] = {}

    # ---- helpers ----------------------------------------------------------------------------------------------

    def opaque(self, what: str) -> None:
        self.scope.raise_to("high", "code_unknown", f"{self.part}: {clip(what, 30)}")

    def bind(self, name: str, value: Val) -> None:
        self.bindings.setdefault(name, set()).add(value)

    def name(self, identifier: str) -> Val:
        found = self.bindings.get(identifier)
        if found is not None:
            return next(iter(found)) if len(found) == 1 else Val("ambiguous", identifier)
        if identifier in BUILTINS:
            return Val("builtin", identifier)
        if identifier.startswith("__") and identifier not in _SAFE_DUNDERS or identifier in (
                "exec", "eval", "compile", "getattr", "setattr", "delattr", "vars", "globals", "locals",
                "breakpoint", "help", "memoryview", "__import__", "__builtins__"):
            return Val("banned", identifier)
        return VALUE  # never bound: a NameError when it runs

    def module(self, dotted: str) -> Val:
        """What importing `dotted` gives, noting that it may be a file of the project (`json.py` next to the code)."""
        top = dotted.split(".")[0]
        folder = self.scope.folders.here
        if folder is not None:
            self.scope.ran(self.part, frozenset({str(folder / top)}))
        if dotted in NETWORK or top in NETWORK:
            return Val("network", dotted)
        if dotted in ALLOWED or dotted in EFFECTS:
            return Val("module", dotted)
        if top in STANDARD:
            return Val("banned", dotted)
        self.scope.raise_to("medium", "runs_project", self.part, reads=frozenset({str(folder / top)}) if folder
                            is not None else None)
        return Val("project", dotted)

    def member(self, module: str, attribute: str) -> Val:
        """`module.attribute`: a submodule, a listed attribute, an effect, or refused."""
        dotted = f"{module}.{attribute}"
        if dotted in STATE:
            return Val("state", dotted)
        if dotted in NETWORK:
            return Val("network", dotted)
        if dotted in ALLOWED or dotted in EFFECTS:
            return Val("module", dotted)
        if attribute in ALLOWED.get(module, ()):
            return Val("member", dotted)
        if attribute in EFFECTS.get(module, ()):
            return Val("effect", dotted)
        if attribute in _SAFE_DUNDERS:
            return VALUE
        return Val("banned", dotted)

    def hold(self, value: Val, node: ast.AST, how: str = "holds") -> None:
        """`value` is assigned, passed, put in a container or returned: a module, an effect, live state, or a function
        whose effect is judged at its call (`open`) is not."""
        if value.kind in _HELD or value.name in _HELD_FUNCTIONS:
            self.opaque(f"{how} {value.name or ast.unparse(node)}")

    # ---- statements -------------------------------------------------------------------------------------------

    def judge(self, tree: ast.Module) -> None:
        self.collect(tree)
        self.body(tree.body)

    def collect(self, tree: ast.AST) -> None:
        """Every name the code binds, and to what: a name bound to a module and to anything else is ambiguous."""
        assigned: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and (
                    path := self._path_binding(node.value)) is not None:
                self.bind(node.targets[0].id, Val("path", path))  # `p = Path('build')`: p.mkdir() is judged
                assigned.add(id(node.targets[0]))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.bind(alias.asname, self._imported(alias.name))
                    else:
                        self.bind(alias.name.split(".")[0], self._imported(alias.name.split(".")[0]))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.bind(alias.asname or alias.name, self._from(node, alias.name))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del) and id(node) not in assigned:
                self.bind(node.id, Val("local"))
            elif isinstance(node, ast.arg):
                self.bind(node.arg, Val("local"))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.ExceptHandler):
                if node.name:
                    self.bind(node.name, Val("local"))
            elif isinstance(node, ast.Global | ast.Nonlocal):
                for identifier in node.names:
                    self.bind(identifier, Val("local"))
            elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
                self.bind(node.name, Val("local"))

    def _path_binding(self, value: ast.expr) -> str | None:
        """The literal path of `Path('a', 'b')` (or `pathlib.Path(…)`), when the name it is given is bound so."""
        if not isinstance(value, ast.Call) or value.keywords or not value.args:
            return None
        func = value.func
        dotted = ast.unparse(func)
        head, _, rest = dotted.partition(".")
        bound = self.bindings.get(head)
        if bound is None or len(bound) != 1:
            return None
        base = next(iter(bound))
        full = base.name if not rest else f"{base.name}.{rest}"
        if base.kind not in ("module", "member") or full not in ("pathlib.Path", "pathlib.PurePath",
                                                                  "pathlib.PosixPath", "pathlib.PurePosixPath"):
            return None
        parts = [self.constant(a) for a in value.args]
        return None if None in parts else "/".join(p for p in parts if p is not None)

    def _imported(self, dotted: str) -> Val:
        top = dotted.split(".")[0]
        if top in NETWORK or dotted in NETWORK:
            return Val("network", dotted)
        if dotted in ALLOWED or dotted in EFFECTS:
            return Val("module", dotted)
        return Val("banned", dotted) if top in STANDARD else Val("project", dotted)

    def _from(self, node: ast.ImportFrom, attribute: str) -> Val:
        if node.level or node.module is None:
            return Val("project", attribute)
        base = self._imported(node.module)
        if base.kind == "module":
            return self.member(node.module, attribute)
        if base.kind in ("project", "network"):
            return Val(base.kind, f"{node.module}.{attribute}")
        return Val("banned", f"{node.module}.{attribute}")

    def body(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported = self.module(alias.name)
                if imported.kind == "banned":
                    self.opaque(f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            self.hold(value, node.value, "assigns")
            for target in node.targets:
                self.target(target, node.value)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            if node.value is not None:
                self.hold(self.expr(node.value), node.value, "assigns")
            self.target(node.target, node.value if isinstance(node, ast.AnnAssign) else None,
                        augmented=isinstance(node, ast.AugAssign))
        elif isinstance(node, ast.For | ast.AsyncFor):
            iterated = self.expr(node.iter)
            if iterated.kind != "state":
                self.hold(iterated, node.iter, "iterates")
            self.target(node.target, None)
            self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.While | ast.If):
            self.expr(node.test)
            self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self.hold(self.expr(item.context_expr), item.context_expr, "uses")
                if item.optional_vars is not None:
                    self.target(item.optional_vars, None)
            self.body(node.body)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.decorators(node.decorator_list)
            self.arguments(node.args)
            if node.returns is not None:
                self.expr(node.returns)
            self.body(node.body)
        elif isinstance(node, ast.ClassDef):
            self.decorators(node.decorator_list)
            for base in node.bases:
                self.hold(self.expr(base), base, "subclasses")
            if node.keywords:
                self.opaque("a class's metaclass")
            self.body(node.body)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.hold(self.expr(node.value), node.value, "returns")
        elif isinstance(node, ast.Raise):
            for part in (node.exc, node.cause):
                if part is not None:
                    self.expr(part)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.body(node.body)
            for handler in node.handlers:
                if handler.type is not None:
                    self.expr(handler.type)
                self.body(handler.body)
            self.body(node.orelse)
            self.body(node.finalbody)
        elif isinstance(node, ast.Assert):
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.target(target, None, deleted=True)
        elif isinstance(node, ast.Pass | ast.Break | ast.Continue | ast.Global | ast.Nonlocal):
            return
        else:
            self.opaque(type(node).__name__)

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None:
            self.scope.raise_to("medium", "runs_project", self.part)
            return
        imported = self.module(node.module)
        for alias in node.names:
            if alias.name == "*":
                self.opaque(f"from {node.module} import *")
            elif imported.kind == "banned" or self._from(node, alias.name).kind == "banned":
                self.opaque(f"from {node.module} import {alias.name}")

    def decorators(self, decorators: list[ast.expr]) -> None:
        for decorator in decorators:
            value = self.expr(decorator.func if isinstance(decorator, ast.Call) else decorator)
            if isinstance(decorator, ast.Call):
                self.arguments_of(decorator)
            if value.kind not in ("local", "builtin", "member", "value", "project"):
                self.opaque(f"a decorator {ast.unparse(decorator)}")

    def arguments(self, arguments: ast.arguments) -> None:
        for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
            self.hold(self.expr(default), default, "defaults to")

    def target(self, node: ast.expr, value: ast.expr | None, *, augmented: bool = False,
               deleted: bool = False) -> None:
        """What is assigned to: a name is the code's own; an attribute or item of a module or of live state is not
        (`os.environ['LD_PRELOAD'] = …` is judged as that variable set for the programs started after it)."""
        if isinstance(node, ast.Name):
            return
        if isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element, None, deleted=deleted)
        elif isinstance(node, ast.Starred):
            self.target(node.value, None, deleted=deleted)
        elif isinstance(node, ast.Attribute):
            base = self.expr(node.value)
            if base.kind in _HELD or base.kind in ("member", "project") or node.attr.startswith("__"):
                self.opaque(f"changes {ast.unparse(node)}")
        elif isinstance(node, ast.Subscript):
            base = self.expr(node.value)
            self.expr(node.slice)
            if base.kind == "state" and base.name == "os.environ" and not augmented:
                if not deleted:
                    self.environment(node.slice, value)
            elif base.kind in _HELD or base.kind == "member":
                self.opaque(f"changes {ast.unparse(node)}")
        else:
            self.opaque(f"assigns to {type(node).__name__}")

    def environment(self, key: ast.expr | None, value: ast.expr | None) -> None:
        """A variable set for the programs this code starts (`os.environ[k] = v`, `os.putenv`, `env={…}`)."""
        from hub.domain.risk.variables import assignment

        name = self.constant(key)
        text = self.constant(value)
        if name is None:
            self.opaque("an environment variable chosen at run time")
            return
        assignment(name, Word(text if text is not None else "…", text, False, False), self.scope)

    # ---- expressions ------------------------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Val:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and _DUNDER.fullmatch(node.value) and node.value != "__main__":
                self.opaque(node.value)
            return VALUE
        if isinstance(node, ast.Name):
            value = self.name(node.id)
            if value.kind in ("banned", "ambiguous"):
                self.opaque(node.id)
            return value
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            self.hold(left, node.left, "computes with")
            self.hold(right, node.right, "computes with")
            if left.kind == "path" and isinstance(node.op, ast.Div):
                tail = self.constant(node.right)
                return Val("path", f"{left.name}/{tail}" if left.name and tail is not None else "")
            return VALUE
        if isinstance(node, ast.UnaryOp):
            self.hold(self.expr(node.operand), node.operand, "computes with")
            return VALUE
        if isinstance(node, ast.BoolOp):
            for operand in node.values:
                self.hold(self.expr(operand), operand, "computes with")
            return VALUE
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                value = self.expr(operand)
                if value.kind != "state":
                    self.hold(value, operand, "compares")
            return VALUE
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            for branch in (node.body, node.orelse):
                self.hold(self.expr(branch), branch, "chooses")
            return VALUE
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            for element in node.elts:
                self.hold(self.expr(element), element, "puts in a container")
            return VALUE
        if isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values, strict=True):
                if key is not None:
                    self.hold(self.expr(key), key, "puts in a container")
                value = self.expr(item)
                if not (key is None and value.kind == "state"):  # `{**os.environ}` copies it
                    self.hold(value, item, "puts in a container")
            return VALUE
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value)
            self.hold(self.expr(node.slice), node.slice, "subscripts with")
            if base.kind != "state":
                self.hold(base, node.value, "subscripts")
            return VALUE
        if isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper, node.step):
                if bound is not None:
                    self.expr(bound)
            return VALUE
        if isinstance(node, ast.Starred):
            self.hold(self.expr(node.value), node.value, "unpacks")
            return VALUE
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                self.expr(part)
            return VALUE
        if isinstance(node, ast.FormattedValue):
            self.hold(self.expr(node.value), node.value, "formats")
            if node.format_spec is not None:
                self.expr(node.format_spec)
            return VALUE
        if isinstance(node, ast.Lambda):
            self.arguments(node.args)
            self.hold(self.expr(node.body), node.body, "returns")
            return Val("local")
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for generator in node.generators:
                iterated = self.expr(generator.iter)
                if iterated.kind != "state":
                    self.hold(iterated, generator.iter, "iterates")
                self.target(generator.target, None)
                for condition in generator.ifs:
                    self.expr(condition)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for element in elements:
                self.hold(self.expr(element), element, "collects")
            return VALUE
        if isinstance(node, ast.NamedExpr):
            self.hold(self.expr(node.value), node.value, "assigns")
            return VALUE
        if isinstance(node, ast.Await | ast.Yield | ast.YieldFrom):
            if node.value is not None:
                self.hold(self.expr(node.value), node.value, "yields")
            return VALUE
        self.opaque(type(node).__name__)
        return VALUE

    def attribute(self, node: ast.Attribute) -> Val:
        return self.attribute_of(self.expr(node.value), node.attr)

    def attribute_of(self, base: Val, attribute: str) -> Val:
        if attribute.startswith("__") and attribute not in _SAFE_DUNDERS:
            self.opaque(attribute)
            return VALUE
        if base.kind == "module":
            value = self.member(base.name, attribute)
            if value.kind == "banned":
                self.opaque(value.name)
            return value
        if base.kind == "network":
            return Val("network", f"{base.name}.{attribute}")
        if base.kind == "project":
            if attribute in DANGEROUS_ATTRIBUTES or attribute.startswith("_") and attribute not in _SAFE_DUNDERS:
                self.opaque(f"{base.name}.{attribute}")
            return Val("project", f"{base.name}.{attribute}")
        if base.kind == "state":
            if attribute not in STATE_READS:
                self.opaque(f"{base.name}.{attribute}")
            return VALUE
        if base.kind in ("banned", "ambiguous"):
            return VALUE  # refused where it was named
        if base.kind == "effect":
            self.opaque(f"{base.name}.{attribute}")
            return VALUE
        if base.kind == "path" and attribute in ("parent", "name", "stem", "suffix", "parts", "anchor", "suffixes"):
            if attribute == "parent" and base.name:
                return Val("path", base.name.rstrip("/").rpartition("/")[0] or ".")
            return VALUE
        if attribute in DANGEROUS_ATTRIBUTES or (attribute.startswith("_") and attribute not in _SAFE_DUNDERS
                                                 and attribute not in HARMLESS_METHODS):
            self.opaque(f"…{attribute}")
        return VALUE

    # ---- calls ------------------------------------------------------------------------------------------------

    def arguments_of(self, node: ast.Call, consumer: bool = False) -> None:
        """Judge a call's arguments: each may not be a module, an effect or live state (live state may be given to
        a function that only reads it: `print(sys.path)`)."""
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            value = self.expr(argument)
            if not (consumer and value.kind == "state"):
                self.hold(value, argument, "passes")
        if any(k.arg is not None and _DUNDER.fullmatch(k.arg) for k in node.keywords):
            self.opaque("a dunder keyword")

    def call(self, node: ast.Call) -> Val:
        func = node.func
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value)
            if base.kind in ("value", "local", "builtin", "member", "path", "project", "state") and not (
                    func.attr.startswith("__") and func.attr not in _SAFE_DUNDERS):
                return self.method(base, func.attr, node)
            callee = self.attribute_of(base, func.attr)
        else:
            callee = self.expr(func)
        return self.call_of(callee, node)

    def call_of(self, callee: Val, node: ast.Call) -> Val:
        name = callee.name
        if callee.kind == "builtin":
            self.arguments_of(node, consumer=name in STATE_CONSUMERS)
            if name == "open":
                self.open(name, node)
            return VALUE
        if callee.kind == "member":
            self.arguments_of(node, consumer=name in STATE_CONSUMERS)
            if name == "pathlib.Path" or name.startswith("pathlib."):
                return Val("path", self._path_literal(node))
            if name in _OPEN_LIKE:
                self.open(name, node)
            if name in ("logging.basicConfig",):
                if any(k.arg is None for k in node.keywords):
                    self.opaque(f"{name}(**…)")
                for keyword in node.keywords:
                    if keyword.arg in ("filename", "handlers", "stream"):
                        self.path_effect("write", self.constant(keyword.value) if keyword.arg == "filename"
                                         else None)
            if name in ("xml.etree.ElementTree.parse", "xml.etree.ElementTree.iterparse",
                        "xml.dom.minidom.parse") and node.args:
                path = self.constant(node.args[0])
                if path is not None:
                    self.scope.read(Word.literal(path))
                elif not isinstance(node.args[0], ast.Call):  # a file object opened where it is judged
                    self.opaque(f"{name} of a path chosen at run time")
            return VALUE
        if callee.kind == "effect":
            return self.effect(name, node)
        if callee.kind == "network":
            self.arguments_of(node)
            url = next((c for a in node.args if (c := self.constant(a))), None)
            host = (host_of(url) if url else None) or name.split(".")[0]
            self.scope.raise_to("high", "code_network", f"{self.part}: {host}")
            return Val("network", name)
        if callee.kind == "project":
            self.arguments_of(node)
            self.scope.raise_to("medium", "runs_project", self.part)
            if name.split(".")[-1] in ("load", "unsafe_load", "full_load", "load_all") and name.startswith("yaml"):
                loader = next((k.value for k in node.keywords if k.arg == "Loader"), None)
                if loader is None or "Safe" not in ast.unparse(loader):
                    self.opaque(name)
            return Val("project", name)
        if callee.kind in ("local", "value", "path"):
            self.arguments_of(node)
            return VALUE
        self.arguments_of(node)
        if callee.kind not in ("banned", "ambiguous"):  # refused where it was named
            self.opaque(f"calls {name or ast.unparse(node.func)}")
        return VALUE

    def method(self, base: Val, method: str, node: ast.Call) -> Val:
        """`value.method(…)`: a module's listed function, a path's effect, or a harmless method of a value."""
        if base.kind == "member" and f"{base.name}.{method}" in ("pathlib.Path.home", "pathlib.Path.cwd"):
            self.arguments_of(node)
            return Val("path", "~" if method == "home" else ".")
        if base.kind == "project":
            if method in DANGEROUS_ATTRIBUTES or method.startswith("_"):
                self.opaque(f"{base.name}.{method}")
            return self.call_of(Val("project", f"{base.name}.{method}"), node)
        if base.kind == "state":
            return self.state_method(base, method, node)
        if base.kind == "path":
            return self.path_method(base, method, node)
        self.arguments_of(node, consumer=method in ("join", "format"))
        if method in ("extractall", "extract"):
            self.extract(method, node)
            return VALUE
        if method == "read" and node.args and not (isinstance(node.args[0], ast.Constant) and isinstance(
                node.args[0].value, int)):
            path = self.constant(node.args[0])  # ConfigParser.read(path), not file.read(size)
            if path is None:
                self.opaque(f"reads {ast.unparse(node.args[0])}")
            else:
                self.scope.read(Word.literal(path))
            return VALUE
        if method == "replace" and len(node.args) == 1 and not node.keywords:
            self.opaque("….replace(target)")  # Path.replace moves a file; str.replace takes two arguments
            return VALUE
        if method == "open":
            self.opaque("….open()")  # Path.open with a mode chosen by a path the hub cannot read
            return VALUE
        if method not in HARMLESS_METHODS:
            self.opaque(f"….{method}()")
        return VALUE

    def state_method(self, base: Val, method: str, node: ast.Call) -> Val:
        self.arguments_of(node)
        if method in STATE_READS:
            return VALUE
        if base.name == "os.environ" and method in ("update", "setdefault"):
            if method == "setdefault":
                self.environment(node.args[0] if node.args else None, node.args[1] if len(node.args) > 1 else None)
            elif len(node.args) == 1 and isinstance(node.args[0], ast.Dict) and not node.keywords:
                for key, value in zip(node.args[0].keys, node.args[0].values, strict=True):
                    self.environment(key, value)
            else:
                for keyword in node.keywords:
                    self.environment(ast.Constant(keyword.arg) if keyword.arg else None, keyword.value)
                if node.args:
                    self.opaque("os.environ.update")
            return VALUE
        if base.name == "os.environ" and method in ("pop", "clear"):
            return VALUE
        self.opaque(f"{base.name}.{method}")
        return VALUE

    def path_method(self, base: Val, method: str, node: ast.Call) -> Val:
        """A pathlib path's method: reads, writes, deletions and moves judged by the path when it is literal."""
        self.arguments_of(node)
        path = base.name or None
        if method in _PATH_DERIVED:
            if method == "joinpath" and path and all(self.constant(a) is not None for a in node.args):
                return Val("path", "/".join([path, *(self.constant(a) or "" for a in node.args)]))
            return Val("path", path if method in ("resolve", "absolute", "expanduser") and path else "")
        if method in _PATH_READS:
            if path is None:
                self.opaque(f"reads a path chosen at run time ({method})")
            else:
                self.scope.read(Word.literal(path))
            return VALUE
        if method == "open":
            mode = self.constant(node.args[0]) if node.args else self.constant(next(
                (k.value for k in node.keywords if k.arg == "mode"), ast.Constant("r")))
            self.opened(path, mode)
            return VALUE
        if method in _PATH_WRITES:
            self.path_effect("write", path, kind="empty" if method in ("touch", "mkdir") else "content")
        elif method in _PATH_DELETES:
            self.path_effect("delete", path)
        elif method in _PATH_MOVES:
            self.path_effect("delete", path)
            self.path_effect("write", self.constant(node.args[0]) if node.args else None)
        elif method in ("chmod", "lchmod"):
            self.path_effect("chmod", path)
        elif method in ("symlink_to", "hardlink_to"):
            target = self.constant(node.args[0]) if node.args else None
            self.path_effect("write", path)
            if path is not None and target is not None:
                self.scope.link(Word.literal(path), Word.literal(target))
            elif target is None:
                self.opaque("a link to a path chosen at run time")
        elif method not in HARMLESS_METHODS:
            self.opaque(f"….{method}()")
        return VALUE

    def extract(self, method: str, node: ast.Call) -> None:
        """An archive's extractall/extract: written where it is told (the current folder by default); a tar archive
        without the `data` filter also writes wherever its members' names say."""
        target = node.args[1 if method == "extract" else 0] if len(node.args) > (1 if method == "extract" else 0) \
            else next((k.value for k in node.keywords if k.arg == "path"), None)
        self.path_effect("write", self.constant(target) if target is not None else ".")
        filtered = next((k.value for k in node.keywords if k.arg == "filter"), None)
        if filtered is None or self.constant(filtered) not in ("data",):
            self.scope.raise_to("high", "write_outside", f"paths the archive chooses ({self.part} {method})")

    def open(self, name: str, node: ast.Call) -> None:
        """open() and its like: only a literal path, and a literal mode (a write mode writes that path)."""
        path_at, mode_at, default = _OPEN_LIKE.get(name, (0, 1, "r"))
        if any(k.arg not in _OPEN_KEYWORDS for k in node.keywords):
            self.opaque(f"{name}(…, {next(k.arg for k in node.keywords if k.arg not in _OPEN_KEYWORDS)}=…)")
        path_node = node.args[path_at] if len(node.args) > path_at else next(
            (k.value for k in node.keywords if k.arg in ("file", "name", "filename")), None)
        mode_node = node.args[mode_at] if 0 <= mode_at < len(node.args) else next(
            (k.value for k in node.keywords if k.arg == "mode"), None)
        if isinstance(path_node, ast.Constant) and isinstance(path_node.value, int):
            return  # a file descriptor already open (open(1, 'w') is standard output)
        self.opened(self.constant(path_node) if path_node is not None else None,
                    self.constant(mode_node) if mode_node is not None else default)

    def opened(self, path: str | None, mode: str | None) -> None:
        if mode is None:
            self.opaque("a file opened in a mode chosen at run time")
        elif re.search(r"[wax+]", mode):
            self.path_effect("write", path)
        elif path is None:
            self.opaque("reads a path chosen at run time")
        else:
            self.scope.read(Word.literal(path))

    def path_effect(self, action: str, value: str | None, kind: str = "content") -> None:
        if value is None:
            self.opaque(f"a path chosen at run time ({action})")
            return
        word = Word.literal(value)
        if action == "write":
            self.scope.write(word, kind)
        elif action == "delete":
            self.scope.delete(word)
        else:
            self.scope.chmod(word)

    def _path_literal(self, node: ast.Call) -> str:
        parts = [self.constant(a) for a in node.args]
        return "/".join(p for p in parts if p is not None) if parts and None not in parts else ""

    # ---- effects ----------------------------------------------------------------------------------------------

    def effect(self, name: str, node: ast.Call) -> Val:
        """A function with an effect on the machine, judged by what it does to what."""
        args = node.args
        first = self.constant(args[0]) if args else None
        second = self.constant(args[1]) if len(args) > 1 else None
        if name in ("os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
                    "asyncio.create_subprocess_shell"):
            self.arguments_of(node)
            self.command_text(args[0] if args else None)
        elif name.startswith("subprocess.") or name == "asyncio.create_subprocess_exec":
            self.arguments_of(node)
            self.subprocess(name, node)
        elif re.fullmatch(r"os\.(exec|spawn)\w+|os\.posix_spawnp?|pty\.spawn", name):
            self.arguments_of(node)
            self.exec_family(name, node)
        elif name in _OPEN_LIKE:
            self.arguments_of(node)
            self.open(name, node)
        elif name.startswith("tempfile."):
            self.arguments_of(node)
            folder = next((k.value for k in node.keywords if k.arg == "dir"), None)
            if folder is not None:
                self.path_effect("write", self.constant(folder))
        elif name in ("importlib.import_module", "importlib.resources.files", "importlib.util.find_spec"):
            self.arguments_of(node)
            if first is None:
                self.opaque(name)
                return VALUE
            imported = self.module(first.lstrip("."))
            if name == "importlib.util.find_spec" and "." in first:
                self.module(first.rpartition(".")[0])
            if imported.kind == "banned":
                self.opaque(f"{name}({first!r})")
            return imported if name == "importlib.import_module" else VALUE
        elif name in _DELETES:
            self.arguments_of(node)
            self.path_effect("delete", first)
        elif name in _MOVES:
            self.arguments_of(node)
            self.path_effect("delete", first)
            self.path_effect("write", second)
        elif name in _WRITES_SECOND:
            self.arguments_of(node)
            self.path_effect("write", second)
            if first is not None:
                self.scope.read(Word.literal(first))
        elif name in _WRITES_FIRST:
            self.arguments_of(node)
            self.path_effect("write", first, kind="empty" if name in ("os.mkdir", "os.makedirs", "os.utime")
                             else "content")
        elif name in _CHMODS:
            self.arguments_of(node)
            self.path_effect("chmod", first)
        elif name in ("os.symlink", "os.link"):
            self.arguments_of(node)
            self.path_effect("write", second)
            if first is not None and second is not None:
                self.scope.link(Word.literal(second), Word.literal(first))
            elif first is None:
                self.opaque("a link to a path chosen at run time")
        elif name in ("os.kill", "os.killpg"):
            self.arguments_of(node)
            self.scope.raise_to("high", "stops_processes", self.part)
        elif name == "os.putenv":
            self.arguments_of(node)
            self.environment(args[0] if args else None, args[1] if len(args) > 1 else None)
        elif name == "os.unsetenv":
            self.arguments_of(node)
        else:  # chdir, fork, os.open, fdopen, write, dup2, setuid …: what follows cannot be read from here
            self.arguments_of(node)
            self.opaque(name)
        return VALUE

    def command_text(self, argument: ast.expr | None, stdin: Stream | None = None, scope: Scope | None = None) -> None:
        """A command given to a shell as text: judged when it is literal."""
        text = self.constant(argument)
        if text is None:
            self.scope.raise_to("high", "runs_program", self.part)
            self.opaque("a command chosen at run time")
        else:
            (scope or self.scope).script(text, stdin or Stream())

    def subprocess(self, name: str, node: ast.Call) -> None:
        """subprocess.run/Popen/… and asyncio.create_subprocess_exec: the program is `executable=` when given, else
        the first word; `shell=True` runs the first word as shell text; `input=` is its standard input; `env=` and
        `cwd=` are judged as the variables and folder it runs with; any other option cannot be told."""
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            self.opaque(f"{name} with arguments chosen at run time")
            return
        for keyword in keywords:
            if keyword not in _SUBPROCESS_KEYWORDS | {"executable", "shell", "input", "env", "cwd", "args", "cmd"}:
                self.opaque(f"{name}(…, {keyword}=…)")
        scope = self.scope
        if "cwd" in keywords:
            folder = self.constant(keywords["cwd"])
            if folder is None:
                self.opaque(f"{name}(…, cwd=…)")
                return
            scope = scope.nested()
            scope.folders = scope.folders.moved(scope.folders.resolve(folder))
        if "env" in keywords:
            environment = keywords["env"]
            if isinstance(environment, ast.Dict):
                for key, value in zip(environment.keys, environment.values, strict=True):
                    if key is not None or ast.unparse(value) != "os.environ":  # `{**os.environ, …}` keeps them
                        self.environment(key, value)
            else:
                self.opaque(f"{name}(…, env=…)")
        stdin = None
        if "input" in keywords:
            text = self.constant(keywords["input"])
            stdin = Stream(True, text, source=f"{self.part}'s input")
        if name == "asyncio.create_subprocess_exec":
            words = [self.constant(a) for a in node.args]
        else:
            argument = node.args[0] if node.args else keywords.get("args", keywords.get("cmd"))
            shell = keywords.get("shell")
            if shell is not None and not (isinstance(shell, ast.Constant) and shell.value in (False, 0, None)):
                if not isinstance(shell, ast.Constant):
                    self.opaque(f"{name}(…, shell=…)")
                shell_text = argument.elts[0] if isinstance(argument, ast.List | ast.Tuple) and argument.elts \
                    else argument
                self.command_text(shell_text, stdin, scope)
                return
            if argument is not None and self.constant(argument) is not None:
                words = [self.constant(argument)]
                if "executable" not in keywords:
                    self.command_text(argument, stdin, scope)  # a string without shell=True: judged as a command
                    return
            elif isinstance(argument, ast.List | ast.Tuple):
                words = [self.constant(e) for e in argument.elts]
            else:
                words = [None]
        if "executable" in keywords:
            program = self.constant(keywords["executable"])
            words = [program, *words[1:]]
        self.run_words(words, stdin, scope)

    def exec_family(self, name: str, node: ast.Call) -> None:
        """os.exec*/os.spawn*/os.posix_spawn*/pty.spawn: the program is the path argument, its words the argument
        list after its first (argv[0] only names it)."""
        args = list(node.args)
        if any(isinstance(a, ast.Starred) for a in args) or node.keywords:
            self.opaque(f"{name} with arguments chosen at run time")
            return
        if name == "pty.spawn":
            argument = args[0] if args else None
            words = [self.constant(e) for e in argument.elts] if isinstance(argument, ast.List | ast.Tuple) else [
                self.constant(argument)]
            self.run_words(words, None, self.scope)
            return
        if name.startswith("os.spawn"):
            args = args[1:]  # the mode
        suffix = name.rpartition(".")[2].removeprefix("exec").removeprefix("spawn")
        environment: ast.expr | None = None
        listed: list[ast.expr] | None
        if name.startswith("os.posix_spawn"):
            program = args[0] if args else None
            vector = args[1] if len(args) > 1 else None
            environment = args[2] if len(args) > 2 else None
            listed = vector.elts if isinstance(vector, ast.List | ast.Tuple) else None
        elif "l" in suffix:
            program, listed = (args[0] if args else None), args[1:]
            if "e" in suffix and listed:
                environment, listed = listed[-1], listed[:-1]
        else:
            program = args[0] if args else None
            vector = args[1] if len(args) > 1 else None
            listed = vector.elts if isinstance(vector, ast.List | ast.Tuple) else None
            if "e" in suffix:
                environment = args[2] if len(args) > 2 else None
        if isinstance(environment, ast.Dict):
            for key, value in zip(environment.keys, environment.values, strict=True):
                self.environment(key, value)
        elif environment is not None and not (isinstance(environment, ast.Constant) and environment.value is None):
            self.opaque(f"{name}'s environment")
        if listed is None:
            self.opaque(f"{name} with arguments chosen at run time")
            return
        self.run_words([self.constant(program), *(self.constant(e) for e in listed[1:])], None, self.scope)

    def run_words(self, words: list[str | None], stdin: Stream | None, scope: Scope) -> None:
        if not words or any(w is None for w in words):
            self.scope.raise_to("high", "runs_program", self.part)
            self.opaque("a command chosen at run time")
            return
        scope.run([Word.literal(w or "") for w in words], stdin or Stream())

    # ---- literals ---------------------------------------------------------------------------------------------

    def constant(self, node: ast.AST | None) -> str | None:
        """A string the code spells out: a literal, literals joined with `+`, an f-string of literals, or
        os.path.join / os.path.expanduser of literals."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.executable" and self.name("sys") == Val(
                "module", "sys"):
            return "python3"  # the interpreter running the code
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.constant(node.left), self.constant(node.right)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
            return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            dotted = ast.unparse(node.func)
            found = [self.constant(a) for a in node.args]
            parts = [p for p in found if p is not None]
            if len(parts) != len(found) or not parts:
                return None
            if dotted in ("os.path.join", "posixpath.join"):
                joined = ""
                for part in parts:
                    joined = part if part.startswith("/") or not joined else f"{joined.rstrip('/')}/{part}"
                return joined
            if dotted == "os.path.expanduser" and len(parts) == 1:
                return parts[0]
        return None


def judge_python(code: str, scope: Scope, part: str) -> None:
    if len(code) > MAX_CODE:
        scope.raise_to("high", "too_long")
        return
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        scope.raise_to("high", "code_unknown", f"{part}: code that does not parse")
        return
    try:
        PythonJudge(scope, part).judge(tree)
    except RecursionError:
        scope.raise_to("high", "code_unknown", f"{part}: code nested too deep")
