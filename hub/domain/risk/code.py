"""Inline code for an interpreter, judged positively: Python is read with Python's parser (python_code.py); for the
languages the hub cannot parse (JavaScript, Perl, Ruby, PHP, Lua, AppleScript, PowerShell…) only code that plainly
prints literals, versions or the project's package.json is low, and Perl's one-line text edits (`s/a/b/g`, `print
if /x/`); anything else is "LineUp cannot tell what this runs"."""

from __future__ import annotations

import re

from hub.domain.risk.python_code import judge_python
from hub.domain.risk.reasons import clip
from hub.domain.risk.scope import Scope
from hub.domain.risk.words import names

_STRING = r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n$]|\\.)*"|`[^`$\\]*`"""
_JS_ATOM = re.compile(
    rf"""{_STRING}|-?\d+(?:\.\d+)?|true|false|null|undefined|process\.(?:versions?(?:\.\w+)?|platform|arch|pid"""
    r"""|execPath|cwd\(\)|release(?:\.\w+)?|env\.\w+)|require\(\s*(['"])(?:\./)?package\.json\1\s*\)"""
    r"""(?:\.[\w$]+|\[(['"])[\w@/.-]+\2\])*|require\.resolve\(\s*(['"])[\w@/.-]+\3\s*\)""")
_JS_WRAP = re.compile(r"(JSON\.stringify|Object\.keys|Object\.values|Object\.entries|String|Number|Boolean)"
                      r"\((.*?)(?:,\s*null\s*,\s*\d+)?\)")


def _js_expression(text: str) -> bool:
    text = text.strip()
    if _JS_ATOM.fullmatch(text):
        return True
    wrapped = _JS_WRAP.fullmatch(text)
    return wrapped is not None and _js_expression(wrapped.group(2))


def harmless_js(code: str, printed: bool) -> bool:
    """`node -p 'process.version'`, `node -e "console.log(require('./package.json').version)"`."""
    if printed:
        return _js_expression(code.strip().rstrip(";"))
    statements = [s.strip() for s in code.split(";") if s.strip()]
    for statement in statements:
        call = re.fullmatch(r"console\.(?:log|info|error)\((.*)\)", statement, re.DOTALL)
        if call is None:
            return False
        inner = call.group(1)
        if not (_js_expression(inner) or all(_js_expression(part) for part in inner.split(","))):
            return False
    return bool(statements)


_PERL_WORDS = names("""
print printf say chomp chop next last redo if unless else elsif and or not eq ne lt gt le ge cmp x lc uc lcfirst
ucfirst length split join defined scalar sort reverse keys values exists sprintf substr index rindex abs int sqrt ord
chr hex oct my our local while until for foreach STDIN STDOUT STDERR ARGV ARGVOUT BEGIN END push pop shift unshift map
grep die warn exit sum sum0 min max first uniq tr y
""")
_PERL_QUOTES = {"s": 2, "tr": 2, "y": 2, "m": 1, "qr": 1, "q": 1, "qq": 1, "qw": 1}
_PERL_CODE_IN_TEXT = re.compile(r"\(\?\??\{|@\{|\$\{\s*\\|`")
_CLOSE = {"{": "}", "(": ")", "[": "]", "<": ">"}


def _perl_delimited(code: str, index: int) -> tuple[str, int] | None:
    """The body of a quote-like part starting at its delimiter `code[index]`, and the index past it."""
    if index >= len(code):
        return None
    opening = code[index]
    closing = _CLOSE.get(opening, opening)
    depth, position = 1, index + 1
    while position < len(code):
        char = code[position]
        if char == "\\":
            position += 2
            continue
        if char == closing:
            depth -= 1
            if depth == 0:
                return code[index + 1:position], position + 1
        elif char == opening and opening != closing:
            depth += 1
        position += 1
    return None


def harmless_perl(code: str) -> bool:
    """One-line text processing: substitutions without `/e`, matches, prints; no calls out, no code in text."""
    index, size, operand = 0, len(code), True
    while index < size:
        char = code[index]
        if char.isspace():
            index += 1
            continue
        if char == "#":
            while index < size and code[index] != "\n":
                index += 1
            continue
        word = re.match(r"[A-Za-z_]\w*", code[index:])
        if word is not None and not (index and code[index - 1] in "$@%&"):
            name = word.group(0)
            after = index + len(name)
            while after < size and code[after] in " \t":
                after += 1
            if name in _PERL_QUOTES and after < size and not code[after].isalnum() and code[after] not in "_,;=)":
                found = _perl_delimited(code, after)
                if found is not None and _PERL_QUOTES[name] == 2:
                    position = found[1]
                    if code[after] in _CLOSE:  # s{…}{…}: the second part has its own brackets
                        while position < size and code[position].isspace():
                            position += 1
                        second = _perl_delimited(code, position)
                    else:  # s/…/…/: the closing delimiter opens the second part
                        second = _perl_delimited(code, position - 1)
                    found = None if second is None or _PERL_CODE_IN_TEXT.search(found[0]) else second
                if found is None or _PERL_CODE_IN_TEXT.search(found[0]):
                    return False
                position = found[1]
                flags = re.match(r"[a-zA-Z]*", code[position:])
                if flags is not None and "e" in flags.group(0) and name == "s":
                    return False
                index = position + (len(flags.group(0)) if flags else 0)
                operand = False
                continue
            if name not in _PERL_WORDS:
                return False
            index, operand = after, name not in ("STDIN", "STDOUT", "STDERR", "ARGV")
            continue
        if char in "$@%" and index + 1 < size:
            variable = re.match(r"[$@%]#?(\w+|[_.&0-9/\\,;!@]|\^\w)", code[index:])
            if variable is None:
                return False
            index += len(variable.group(0))
            operand = False
            continue
        if char in "\"'":
            found = _perl_delimited(code, index)
            if found is None or (char == '"' and _PERL_CODE_IN_TEXT.search(found[0])):
                return False
            index, operand = found[1], False
            continue
        if char == "/" and operand:
            found = _perl_delimited(code, index)
            if found is None or _PERL_CODE_IN_TEXT.search(found[0]):
                return False
            index = found[1]
            flags = re.match(r"[a-z]*", code[index:])
            index += len(flags.group(0)) if flags else 0
            operand = False
            continue
        if code.startswith(("->", "::", "&{", "`"), index) or char == "&" and not code.startswith("&&", index):
            return False
        if char.isdigit():
            number = re.match(r"\d+(\.\d+)?", code[index:])
            index += len(number.group(0)) if number else 1
            operand = False
            continue
        if char in "=!~<>+-*/.,;:?()[]{}|^":
            if code.startswith("<", index) and (angle := re.match(r"<(\$?\w*)>", code[index:])):
                index += len(angle.group(0))
                operand = False
                continue
            index += 1
            operand = char not in ")]}"
            continue
        return False
    return True


_RUBY = re.compile(r"\s*(?:puts|print|p|pp)\s*\(?\s*(?:'[^'\\]*'|\"[^\"#`\\]*\"|RUBY_VERSION|RUBY_PLATFORM"
                   r"|RUBY_ENGINE|Gem::VERSION|-?\d+)\s*\)?\s*;?\s*")
_PHP = re.compile(r"\s*(?:(?:echo|print)\s+(?:PHP_VERSION|PHP_OS(?:_FAMILY)?|phpversion\(\)|'[^'\\]*'|\"[^\"$\\{]*\")"
                  r"(?:\s*\.\s*(?:PHP_EOL|\"\\n\"))?|print_r\(get_loaded_extensions\(\)\)"
                  r"|var_dump\(extension_loaded\('[\w-]+'\)\))\s*;?\s*")


def judge_code(language: str, code: str, scope: Scope, part: str, *, printed: bool = False) -> None:
    """Code `part` (`python3 -c`, `node -e` …) runs, in `language`."""
    if language == "python":
        judge_python(code, scope, part)
        return
    harmless = {"js": lambda: harmless_js(code, printed), "perl": lambda: harmless_perl(code),
                "ruby": lambda: _RUBY.fullmatch(code) is not None,
                "php": lambda: _PHP.fullmatch(code) is not None}.get(language)
    if harmless is None or not harmless():
        scope.cannot_tell(f"{part}: {clip(code, 30)}")
