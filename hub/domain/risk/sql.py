"""SQL given to a database client, read statement by statement after its comments are removed (the comment in
`DROP/**/TABLE` hides nothing; MySQL's `/*! … */` runs and is kept): reading is low, changing chosen rows medium;
dropping, emptying, changing every row (`WHERE true` and `WHERE 1=1` choose every row), access grants, and the
client's own commands that run programs (`\\!`, `COPY … PROGRAM`, sqlite3's `.shell`, mysql's `system`) are high."""

from __future__ import annotations

import re

from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Scope
from hub.domain.risk.words import Word, names

MAX_SQL = 262_144
_WORD = re.compile(r"[A-Za-z_][\w$#@]*")
_READS = frozenset({"SELECT", "VALUES", "TABLE", "SHOW", "DESCRIBE", "DESC", "USE", "SET", "BEGIN", "START", "COMMIT",
                    "ROLLBACK", "END", "SAVEPOINT", "RELEASE", "LISTEN", "UNLISTEN", "NOTIFY", "ANALYZE", "ANALYSE",
                    "VACUUM", "CHECKPOINT", "DISCARD", "RESET", "DEALLOCATE", "FETCH", "CLOSE", "DECLARE", "LOCK",
                    "HELP", "ABORT", "MOVE", "SUMMARIZE", "PRAGMA_READ", "GO", "WAITFOR", "PRINT"})
_WRITES = frozenset({"INSERT", "REPLACE", "UPSERT", "MERGE", "CREATE", "CLUSTER", "REINDEX", "REFRESH", "COMMENT",
                     "PREPARE", "EXECUTE", "CALL", "RENAME", "FLUSH", "OPTIMIZE", "REPAIR", "SECURITY", "IMPORT",
                     "EXPORT", "INSTALL", "UNINSTALL", "CACHE", "UNCACHE", "MSCK"})
# Functions that read or write the database server's files or run its programs.
_SERVER_FUNCTIONS = re.compile(r"\b(pg_read_file|pg_read_binary_file|pg_ls_dir|pg_stat_file|lo_import|lo_export"
                               r"|load_file|readfile|writefile|pg_file_write|dblink\w*|copy_to_file)\s*\(",
                               re.IGNORECASE)
_PROGRAM_FUNCTIONS = re.compile(r"\b(sys_exec|sys_eval|xp_cmdshell|load_extension|edit|pg_terminate_backend"
                                r"|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|shell|system)\s*\(",
                                re.IGNORECASE)
_UNTRUSTED_LANGUAGES = re.compile(r"\bLANGUAGE\s+['\"]?(c|plpythonu|plpython3u|plpython2u|plperlu|pltclu|plsh|plr"
                                  r"|plv8|internal)\b|\bEXTENSION\s+(IF\s+NOT\s+EXISTS\s+)?['\"]?(plpython\w*|plperlu"
                                  r"|pltclu|plsh|file_fdw|dblink|adminpack|plv8|pgcrypto_exec)", re.IGNORECASE)


def _strip(text: str) -> str:
    """Comments out (each becomes a space, so the comment in `DROP/**/TABLE` hides nothing); strings and
    identifiers kept."""
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if text.startswith("--", index) or (char == "#" and (index == 0 or text[index - 1] in " \t\n;")):
            end = text.find("\n", index)
            index = size if end < 0 else end
            out.append(" ")
        elif text.startswith("/*", index):
            if text.startswith("/*!", index):  # MySQL runs what is inside
                version = re.match(r"/\*!\d*", text[index:])
                index += len(version.group(0)) if version else 3
                continue
            depth, index = 1, index + 2
            while index < size and depth:
                if text.startswith("/*", index):
                    depth, index = depth + 1, index + 2
                elif text.startswith("*/", index):
                    depth, index = depth - 1, index + 2
                else:
                    index += 1
            out.append(" ")
        elif text.startswith("*/", index):
            index += 2
            out.append(" ")
        elif char in "'\"`":
            end = index + 1
            while end < size:
                if text[end] == "\\" and char == "'":
                    end += 2
                    continue
                if text[end] == char:
                    if text.startswith(char * 2, end):
                        end += 2
                        continue
                    break
                end += 1
            out.append(text[index:end + 1])
            index = end + 1
        elif char == "$" and (dollar := re.match(r"\$([A-Za-z_]\w*)?\$", text[index:])):
            end = text.find(dollar.group(0), index + len(dollar.group(0)))
            end = size if end < 0 else end + len(dollar.group(0))
            out.append(text[index:end])
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _pieces(text: str, client: str) -> list[tuple[str, str]]:
    """("meta", line) for the client's own commands, ("sql", statement) for the statements."""
    pieces: list[tuple[str, str]] = []
    current: list[str] = []
    index, size = 0, len(text)
    line_start = True
    meta_clients = client in ("psql", "pgcli", "mysql", "mariadb", "mycli")
    dot_clients = client in ("sqlite3", "sqlite", "litecli", "duckdb")
    while index < size:
        char = text[index]
        if char in "'\"`$" and (char != "$" or re.match(r"\$([A-Za-z_]\w*)?\$", text[index:])):
            stripped = _strip(text[index:])  # the quoted part, kept whole by _strip
            quoted = re.match(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\$([A-Za-z_]\w*)?\$.*?\$\1\$",
                              stripped, re.DOTALL)
            length = len(quoted.group(0)) if quoted else 1
            current.append(text[index:index + length])
            index += length
            line_start = False
            continue
        if meta_clients and char == "\\":
            end = text.find("\n", index)
            end = size if end < 0 else end
            line = text[index:end]
            separator = line.find("\\\\", 1)
            if separator > 0:
                line, end = line[:separator], index + separator + 2
            pieces.append(("meta", line.strip()))
            index = end
            continue
        if dot_clients and char == "." and line_start and not "".join(current).strip():
            end = text.find("\n", index)
            end = size if end < 0 else end
            pieces.append(("meta", text[index:end].strip()))
            index = end
            continue
        if char == ";":
            pieces.append(("sql", "".join(current)))
            current = []
        else:
            current.append(char)
        line_start = char == "\n" or (line_start and char in " \t")
        index += 1
    pieces.append(("sql", "".join(current)))
    return [(kind, piece) for kind, piece in pieces if piece.strip()]


def judge_sql(client: str, text: str, scope: Scope) -> None:
    if len(text) > MAX_SQL:
        scope.raise_to("high", "too_long")
        return
    for kind, piece in _pieces(_strip(text), client):
        if kind == "meta":
            _meta(client, piece, scope)
        else:
            if not _mysql_command(client, piece, scope):
                _statement(client, piece, scope)


def _words(statement: str) -> list[str]:
    """The statement's words, strings blanked; keywords upper-cased, quoted names unquoted."""
    blank = re.sub(r"'(?:[^'\\]|\\.|'')*'", " '' ", statement)
    blank = re.sub(r"\$([A-Za-z_]\w*)?\$.*?\$\1\$", " '' ", blank, flags=re.DOTALL)
    return [w.strip('"`[]') for w in re.findall(r"[A-Za-z_][\w$#@.]*|\"[^\"]+\"|`[^`]+`|\[[^\]]+\]|''|\d+|\S",
                                                   blank)]


def _name(words: list[str], start: int) -> str:
    skip = {"IF", "EXISTS", "NOT", "ONLY", "TABLE", "FROM", "INTO", "TEMPORARY", "TEMP", "LOW_PRIORITY", "QUICK",
            "IGNORE", "CONCURRENTLY", "CASCADE"}
    for word in words[start:]:
        if word.upper() not in skip and _WORD.match(word):
            return word
    return "?"


def _statement(client: str, statement: str, scope: Scope) -> None:
    words = _words(statement)
    if not words:
        return
    upper = [w.upper() for w in words]
    first = upper[0]
    shown = clip(" ".join(words), 40)
    if _PROGRAM_FUNCTIONS.search(statement):
        scope.raise_to("high", "sql_program", shown)
    if _SERVER_FUNCTIONS.search(statement) or re.search(r"\bINTO\s+(OUTFILE|DUMPFILE)\b", statement, re.IGNORECASE):
        scope.raise_to("high", "sql_server_files", shown)
    if first == "EXPLAIN":
        rest = [w for w in upper[1:] if w not in ("(", ")", ",", "VERBOSE", "COSTS", "BUFFERS", "FORMAT", "JSON",
                                                  "TEXT", "QUERY", "PLAN", "FOR", "TRUE", "FALSE", "ON", "OFF")]
        if rest[:1] in (["ANALYZE"], ["ANALYSE"]):  # EXPLAIN ANALYZE runs the statement
            index = upper.index(rest[1]) if len(rest) > 1 and rest[1] in upper else len(upper)
            _statement(client, " ".join(words[index:]), scope)
        return
    if first == "WITH" or first == "(":
        for position, word in enumerate(upper):
            if position and word in ("DELETE", "UPDATE", "INSERT", "MERGE", "TRUNCATE", "DROP"):
                _statement(client, " ".join(words[position:]), scope)
                return
        first = "SELECT"
    if first in _READS:
        if first == "SELECT" and "INTO" in upper and not re.search(r"\bINTO\s+(OUTFILE|DUMPFILE|@)", statement,
                                                                    re.IGNORECASE):
            scope.raise_to("medium", "sql_writes", _name(words, upper.index("INTO") + 1))
        if first == "SET" and any(w in upper for w in ("PASSWORD", "ROLE", "GLOBAL", "PERSIST",
                                                       "SESSION_AUTHORIZATION")):
            scope.raise_to("high", "sql_access", shown)
        return
    if first == "PRAGMA":
        if "=" in words or "(" in words:
            scope.raise_to("medium", "sql_writes", shown)
        return
    if first in ("DELETE", "UPDATE"):
        table = _name(words, 1)
        where = upper.index("WHERE") if "WHERE" in upper else -1
        code = "sql_delete_all" if first == "DELETE" else "sql_update_all"
        if where < 0 or _every_row(words[where + 1:]):
            scope.raise_to("high", code, table)
        else:
            scope.raise_to("medium", "sql_writes", table)
        return
    if first == "DROP":
        kind = upper[1] if len(upper) > 1 else "?"
        if kind in ("TEMPORARY", "TEMP", "MATERIALIZED", "FOREIGN", "UNLOGGED") and len(upper) > 2:
            kind = f"{kind} {upper[2]}"
        name = _name(words, 2 + kind.count(" "))
        if kind == "TABLE":
            scope.raise_to("high", "sql_drop_table", name)
        else:
            scope.raise_to("high", "sql_drop", f"{kind} {name}")
        return
    if first == "TRUNCATE":
        scope.raise_to("high", "sql_truncate", _name(words, 1))
        return
    if first == "ALTER":
        target = upper[1] if len(upper) > 1 else ""
        if target in ("USER", "ROLE", "SYSTEM", "DEFAULT", "GROUP", "LOGIN", "INSTANCE", "SERVER"):
            scope.raise_to("high", "sql_access", shown)
        elif "DROP" in upper[2:]:
            scope.raise_to("high", "sql_alter_drop", _name(words, 2))
        else:
            scope.raise_to("medium", "sql_writes", _name(words, 2))
        return
    if first in ("GRANT", "REVOKE", "DENY") or (first == "CREATE" and len(upper) > 1 and upper[1] in
                                                ("USER", "ROLE", "LOGIN", "GROUP")):
        scope.raise_to("high", "sql_access", shown)
        return
    if first == "COPY":
        if "PROGRAM" in upper:
            scope.raise_to("high", "sql_program", shown)
        elif re.search(r"\b(FROM|TO)\s+'", statement, re.IGNORECASE):
            scope.raise_to("high", "sql_server_files", shown)
        elif "FROM" in upper:
            scope.raise_to("medium", "sql_writes", _name(words, 1))
        return
    if first == "LOAD":
        scope.raise_to("high", "sql_server_files" if "DATA" in upper else "sql_program", shown)
        return
    if first in ("SHUTDOWN", "KILL"):
        scope.raise_to("high", "stops_processes", shown)
        return
    if first == "ATTACH":
        attached = re.search(r"'([^']*)'", statement)
        if attached is not None and attached.group(1) not in ("", ":memory:"):
            scope.write(Word.literal(attached.group(1)))
        return
    if first in ("DETACH",):
        return
    if first == "DO" or (first == "EXECUTE" and len(upper) > 1 and upper[1] == "IMMEDIATE"):
        scope.cannot_tell(f"{client}: {shown}")
        return
    if first in _WRITES:
        if first == "CREATE" and _UNTRUSTED_LANGUAGES.search(statement):
            scope.raise_to("high", "sql_program", shown)
        scope.raise_to("medium", "sql_writes", _name(words, 1) if first != "CREATE" else shown)
        return
    scope.cannot_tell(f"{client}: {shown}")


_SQL_KEYWORDS = frozenset({"TRUE", "FALSE", "NULL", "NOT", "AND", "OR", "IS", "LIKE", "IN", "BETWEEN", "ORDER",
                           "LIMIT", "RETURNING", "GROUP", "BY", "ASC", "DESC", "''", "XOR"})


def _every_row(condition: list[str]) -> bool:
    """A WHERE that chooses every row: only literals (`true`, `1=1`, `'a'='a'`), an `OR` with such a side, or a
    column compared with itself."""
    end = next((i for i, w in enumerate(condition) if w.upper() in ("ORDER", "LIMIT", "RETURNING", "GROUP")),
               len(condition))
    condition = condition[:end]
    if not condition:
        return True
    sides: list[list[str]] = [[]]
    depth = 0
    for word in condition:
        depth += word == "("
        depth -= word == ")"
        if word.upper() == "OR" and depth == 0:
            sides.append([])
        else:
            sides[-1].append(word)
    for side in sides:
        names = [w for w in side if _WORD.match(w) and w.upper() not in _SQL_KEYWORDS]
        if not names:
            return True
        compared = [w for w in side if w not in ("(", ")")]
        if len(compared) == 3 and compared[1] in ("=", ">=", "<=") and compared[0] == compared[2]:
            return True
    return False


_MYSQL_COMMANDS = re.compile(r"^\s*(system|source|tee|pager|edit|delimiter|use|status|help|exit|quit|connect"
                             r"|charset|warnings|nowarning|rehash|print|prompt|go|ego|notee|nopager|clear)\b(.*)$",
                             re.IGNORECASE | re.DOTALL)


def _mysql_command(client: str, piece: str, scope: Scope) -> bool:
    """True when `piece` is one of mysql's own commands (judged here), not a statement."""
    if client not in ("mysql", "mariadb", "mycli"):
        return False
    match = _MYSQL_COMMANDS.match(piece)
    if match is None:
        return False
    command = match.group(1).lower()
    if command in ("system", "source", "tee", "pager", "edit", "delimiter"):
        _client_command(client, command, match.group(2).strip(), scope)
    return True


def _client_command(client: str, command: str, argument: str, scope: Scope) -> None:
    shown = clip(f"{command} {argument}", 40)
    if command in ("system", "!", "shell"):
        scope.raise_to("high", "sql_program", shown)
        scope.script(argument)
    elif command in ("pager", "P") and argument:
        scope.raise_to("high", "sql_program", shown)
    elif command in ("tee", "T", "o", "out", "output", "once", "w", "write", "g", "gx", "log", "trace", "backup",
                     "save", "clone"):
        target = argument.split()[-1] if argument.split() else ""
        if argument.startswith("|") or target.startswith("|"):
            scope.raise_to("high", "sql_program", shown)
        elif target and target not in ("stdout", "stderr", "off"):
            scope.write(Word.literal(target.strip("'\"")))
    else:
        scope.cannot_tell(f"{client}: {shown}")


_PSQL_SAFE = re.compile(r"^\\(d\w*\+?|l\+?|list|x|timing|q|quit|echo|qecho|warn|conninfo|set|unset|pset|a|t|H|"
                        r"encoding|h|help|\?|if|elif|else|endif|prompt|sv\+?|sf\+?|z|c|connect|C|f|T|r|reset|p|print"
                        r"|bind|crosstabview|gdesc|gset|getenv|errverbose|lo_list|dconfig|sync|startpipeline"
                        r"|endpipeline|flush)$")
_DOT_SAFE = names(".tables .schema .headers .header .mode .dump .indexes .indices .quit .exit .help .databases "
                      ".timer .width .nullvalue .separator .show .print .eqp .explain .stats .dbinfo .version "
                      ".fullschema .lint .expert .changes .bail .echo .prompt .parameter .selftest .sha3sum .testcase "
                      ".columns .maxrows .maxwidth .rows .highlight .open .scanstats .binary .timeout .limits")


def _meta(client: str, line: str, scope: Scope) -> None:
    command, _, argument = line.partition(" ")
    argument = argument.strip()
    if client in ("psql", "pgcli"):
        if command in ("\\!",) or command.startswith("\\!"):
            _client_command(client, "!", line[2:].strip(), scope)
        elif command in ("\\o", "\\out", "\\g", "\\gx", "\\w", "\\write"):
            if argument:
                _client_command(client, "o", argument, scope)
        elif command == "\\copy":
            if re.search(r"\bprogram\b", argument, re.IGNORECASE):
                scope.raise_to("high", "sql_program", clip(line, 40))
            elif (target := re.search(r"\bto\s+'?([^'\s]+)", argument, re.IGNORECASE)) and target.group(1).lower() \
                    not in ("stdout", "pstdout"):
                scope.write(Word.literal(target.group(1)))
            scope.raise_to("medium", "sql_writes", clip(line, 40))
        elif command == "\\password":
            scope.raise_to("high", "sql_access", clip(line, 40))
        elif not _PSQL_SAFE.match(command):
            scope.cannot_tell(f"{client}: {clip(line, 40)}")
        return
    if client in ("mysql", "mariadb", "mycli"):
        names = {"\\!": "system", "\\.": "source", "\\T": "tee", "\\P": "pager", "\\e": "edit", "\\d": "delimiter"}
        if command[:2] in names:
            _client_command(client, names[command[:2]], (line[2:]).strip(), scope)
        elif command[:2] not in ("\\c", "\\g", "\\G", "\\q", "\\s", "\\u", "\\h", "\\?", "\\#", "\\t", "\\n", "\\p",
                                 "\\R", "\\C", "\\W", "\\w", "\\r"):
            scope.cannot_tell(f"{client}: {clip(line, 40)}")
        return
    if command in (".shell", ".system"):
        _client_command(client, "shell", argument, scope)
    elif command in (".output", ".once", ".log", ".trace", ".backup", ".save", ".clone"):
        if argument.startswith(("-x", "-e")):
            scope.cannot_tell(f"{client}: {clip(line, 40)}")
        elif argument:
            _client_command(client, "output", argument, scope)
    elif command in (".import", ".read"):
        if argument.lstrip("-").startswith("|") or re.search(r"(^|\s)\|", argument):
            scope.raise_to("high", "sql_program", clip(line, 40))
        elif command == ".read":
            scope.cannot_tell(f"{client}: {clip(line, 40)}")
        else:
            scope.raise_to("medium", "sql_writes", clip(line, 40))
    elif command == ".load":
        scope.raise_to("high", "sql_program", clip(line, 40))
    elif command == ".restore":
        scope.raise_to("medium", "sql_writes", clip(line, 40))
    elif command not in _DOT_SAFE:
        scope.cannot_tell(f"{client}: {clip(line, 40)}")
