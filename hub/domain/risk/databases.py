"""Database clients: the SQL (and the client's own commands) they are given on the command line, in a heredoc, a
here-string or a pipe is judged (hub/domain/risk/sql.py); SQL from a file or a program's output cannot be read."""

from __future__ import annotations

from hub.domain.risk.options import parse
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Call, Scope
from hub.domain.risk.sql import judge_sql
from hub.domain.risk.words import names

_VALUES = {
    "psql": {"-c", "--command", "-f", "--file", "-d", "--dbname", "-h", "--host", "-p", "--port", "-U", "--username",
             "-o", "--output", "-L", "--log-file", "-v", "--set", "--variable", "-P", "--pset", "-F", "-R", "-T"},
    "mysql": {"-e", "--execute", "-h", "--host", "-P", "--port", "-u", "--user", "-D", "--database", "--tee",
              "--pager", "--init-command", "-S", "--socket", "--default-character-set", "--defaults-file",
              "--defaults-extra-file", "--login-path", "--ssl-mode", "--protocol"},
    "sqlite3": {"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-pagecache",
                "-lookaside", "-heap", "-quote"},
    "duckdb": {"-c", "-cmd", "-s", "-init", "-f"},
    "clickhouse-client": {"-q", "--query", "-h", "--host", "--port", "-u", "--user", "-d", "--database",
                          "--queries-file"},
    "sqlcmd": {"-Q", "-q", "-i", "-S", "-U", "-P", "-d", "-o"},
    "snowsql": {"-q", "--query", "-f", "--filename", "-a", "-u", "-d", "-s", "-w", "-r"},
    "cqlsh": {"-e", "--execute", "-f", "--file", "-u", "-p", "-k"},
    "bq": set(),
}
_SQL_OPTIONS = ("-c", "--command", "-e", "--execute", "-cmd", "-q", "--query", "-Q", "--init-command", "-s")
_FILE_OPTIONS = ("-f", "--file", "-init", "-i", "--filename", "--queries-file", "--defaults-file",
                 "--defaults-extra-file")
_FAMILY = {"pgcli": "psql", "mariadb": "mysql", "mycli": "mysql", "sqlite": "sqlite3", "litecli": "sqlite3",
           "clickhouse": "clickhouse-client", "cockroach": "psql"}


def database(call: Call, scope: Scope) -> None:
    client = _FAMILY.get(call.name, call.name)
    parsed = parse(call.words, frozenset(_VALUES.get(client, set())), long_only_dash=client == "sqlite3")
    if parsed.has("--version", "-V", "-version", "--help", "-help", "-l", "--list"):
        return
    texts = parsed.values(*_SQL_OPTIONS)
    operands = parsed.operands
    if client == "sqlite3" or client == "duckdb" or client == "bq" and operands[:1] and operands[0].value == "query":
        texts += operands[1:]
    for file in parsed.values(*_FILE_OPTIONS):
        if file.value != "-":
            scope.cannot_tell(f"{call.name} {clip(file.text, 40)}")
    for target in parsed.values("-o", "--output", "-L", "--log-file", "--tee"):
        scope.write(target)
    if parsed.values("--pager"):
        scope.raise_to("high", "sql_program", call.part)
    for text in texts:
        if text.value is None:
            scope.cannot_tell(f"{call.name} {clip(text.text, 40)}")  # SQL chosen at run time
        else:
            judge_sql(call.name, text.value, scope)
    if texts or parsed.values(*_FILE_OPTIONS):
        return
    stdin = call.stdin
    if stdin.text is not None:
        judge_sql(call.name, stdin.text, scope)
    elif stdin.present:
        scope.cannot_tell(f"{call.name} reads SQL from {stdin.source}")
    else:
        scope.raise_to("medium")  # a prompt for the person to type in


def dump(call: Call, scope: Scope) -> None:
    """pg_dump, mysqldump: read the database, write where their output goes."""
    parsed = parse(call.words, frozenset({"-f", "--file", "-r", "--result-file", "-h", "-p", "-U", "-d", "-t", "-n",
                                          "-F", "-u", "-P"}))
    for target in parsed.values("-f", "--file", "-r", "--result-file"):
        scope.write(target)


def restore(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-d", "--dbname", "-h", "-p", "-U", "-t", "-n", "-f", "-j", "-F"}))
    if parsed.has("-c", "--clean"):
        scope.raise_to("high", "sql_drop", f"the objects {call.name} --clean replaces")
    scope.raise_to("medium", "sql_writes", call.part)


def dropdb(call: Call, scope: Scope) -> None:
    operands = parse(call.words, frozenset({"-h", "-p", "-U", "--maintenance-db"})).operands
    scope.raise_to("high", "sql_drop", f"DATABASE {operands[0].text if operands else '?'}")


def mysqladmin(call: Call, scope: Scope) -> None:
    values = [v.lower() for v in call.values if v is not None]
    if "drop" in values:
        scope.raise_to("high", "sql_drop", call.part)
    elif any(v in values for v in ("shutdown", "kill")):
        scope.raise_to("high", "stops_processes", call.part)
    elif any(v in values for v in ("password", "flush-privileges", "reload")):
        scope.raise_to("high", "sql_access", call.part)
    elif any(v in values for v in ("create", "flush-tables", "refresh")):
        scope.raise_to("medium", "sql_writes", call.part)


_REDIS_READS = names("GET MGET KEYS SCAN INFO PING TTL PTTL TYPE EXISTS HGET HGETALL HKEYS HVALS HLEN HMGET LRANGE "
                         "LLEN LINDEX SMEMBERS SCARD SISMEMBER ZRANGE ZCARD ZSCORE ZRANK DBSIZE MONITOR STRLEN CLIENT "
                         "XRANGE XLEN XINFO MEMORY OBJECT SLOWLOG LASTSAVE TIME ECHO SELECT HELP COMMAND ROLE "
                         "LATENCY PUBSUB SUBSCRIBE PSUBSCRIBE")
_REDIS_HIGH = names("FLUSHALL FLUSHDB CONFIG SHUTDOWN SCRIPT EVAL EVALSHA EVAL_RO FUNCTION FCALL MODULE DEBUG "
                        "MIGRATE SLAVEOF REPLICAOF ACL BGREWRITEAOF SAVE BGSAVE SWAPDB FAILOVER CLUSTER")


def redis(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-h", "-p", "-a", "-n", "-u", "--user", "--pass", "-r", "-i", "--eval",
                                          "-s", "--tls", "--cacert"}))
    if parsed.has("--eval"):
        scope.cannot_tell(call.part)
        return
    if not parsed.operands:
        if call.stdin.present:
            scope.cannot_tell(f"{call.name} reads commands from {call.stdin.source}")
        return
    command = (parsed.operands[0].value or "").upper()
    if command in _REDIS_HIGH:
        code = "sql_delete_all" if command.startswith("FLUSH") else "sql_program" if command in (
            "EVAL", "EVALSHA", "FCALL", "SCRIPT", "FUNCTION", "MODULE") else "changes_system"
        scope.raise_to("high", code, "every key" if code == "sql_delete_all" else call.part)
    elif command not in _REDIS_READS:
        scope.raise_to("medium", "sql_writes", call.part)


def mongo(call: Call, scope: Scope) -> None:
    """mongosh/mongo: their scripts are JavaScript, which the hub cannot read."""
    parsed = parse(call.words, frozenset({"--eval", "-f", "--file", "--host", "--port", "-u", "-p"}))
    if parsed.has("--version", "--help"):
        return
    if parsed.values("--eval", "-f", "--file") or call.stdin.present or any(
            (w.value or "").endswith(".js") for w in parsed.operands):
        scope.cannot_tell(call.part)


PROGRAMS = {
    **{name: database for name in ("psql", "pgcli", "mysql", "mariadb", "mycli", "sqlite3", "sqlite", "litecli",
                                   "duckdb", "clickhouse-client", "clickhouse", "sqlcmd", "snowsql", "cqlsh", "bq",
                                   "cockroach")},
    "pg_dump": dump, "pg_dumpall": dump, "mysqldump": dump, "mariadb-dump": dump, "pg_restore": restore,
    "dropdb": dropdb, "createdb": restore, "mysqladmin": mysqladmin, "redis-cli": redis, "mongosh": mongo,
    "mongo": mongo,
}
