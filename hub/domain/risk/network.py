"""Programs that reach other machines: downloads are medium and name the host; uploads, remote commands, raw
connections and copies to or from another machine are high and name the host."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from hub.domain.risk.options import abbreviates, parse
from hub.domain.risk.scope import Call, Scope, Stream
from hub.domain.risk.words import Word, names

_URL = re.compile(r"^[A-Za-z][\w+.-]*://(?:[^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)")
_BARE = re.compile(r"^(?:[^/?#@:]*@)?((?:[\w-]+\.)+[A-Za-z]{2,}|localhost|\d+\.\d+\.\d+\.\d+)(?::\d+)?(?:/|$)")
_LOOPBACK = re.compile(r"^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0|[\w.-]+\.localhost)$", re.IGNORECASE)


def host_of(value: str) -> str | None:
    """The host a URL (or curl's bare `example.com/x`) names."""
    match = _URL.match(value) or _BARE.match(value)
    return match.group(1).lower() if match and match.group(1) else None


def first_host(values: Sequence[str | None]) -> str | None:
    for value in values:
        if value is not None and not value.startswith("-") and (host := host_of(value)):
            return host
    return None


def loopback(host: str | None) -> bool:
    return host is not None and _LOOPBACK.match(host) is not None


_CURL_VALUES = frozenset({
    "-o", "--output", "-d", "--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "-F",
    "--form", "--form-string", "-T", "--upload-file", "-X", "--request", "-H", "--header", "-u", "--user", "-A",
    "--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar", "-D", "--dump-header", "-K",
    "--config", "--url", "-x", "--proxy", "-m", "--max-time", "--connect-timeout", "--retry", "-w", "--write-out",
    "--output-dir", "--json", "--trace", "--trace-ascii", "--stderr", "--libcurl", "-r", "--range", "-C",
    "--continue-at", "--cacert", "--cert", "--key", "-E", "--resolve", "--connect-to", "-Y", "-y", "-z",
    "--max-filesize", "--retry-delay", "--retry-max-time", "-U", "--proxy-user", "--limit-rate", "--oauth2-bearer",
    "--aws-sigv4", "-t", "--telnet-option", "--interface", "--dns-servers", "-Q", "--quote", "--variable",
    "--expand-url"})


def curl(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _CURL_VALUES)
    urls = [w.value for w in parsed.operands + parsed.values("--url")]
    for url in urls:
        if url is not None and url.lower().startswith("file:"):  # curl reads a local file as well as it downloads
            scope.read(Word.literal(re.sub(r"^file:(//[^/]*)?", "", url, flags=re.IGNORECASE) or "/"))
    host = first_host(urls) or "the network"
    near = loopback(host)
    if parsed.has("-K", "--config") or any(u is None for u in urls) or parsed.has("-Q", "--quote"):
        scope.cannot_tell(call.part)
    files = parsed.values("-T", "--upload-file")
    for name in ("-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "-F", "--form"):
        for value in parsed.values(name):
            text = value.value or ""
            if text.startswith("@") or re.search(r"=[@<]", text):
                files.append(Word.literal(re.split(r"[@<]", text, maxsplit=1)[1]))
    data = parsed.has("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--data-ascii", "--json",
                      "-F", "--form", "--form-string")
    method = (parsed.value("-X", "--request") or Word.literal("GET")).value or ""
    for file in files:
        scope.read(file)
    if files:
        scope.raise_to("medium" if near else "high", "sends_files", host)
    elif data or method.upper() not in ("GET", "HEAD"):
        scope.raise_to("medium" if near else "high", "sends_data", host)
    for name in ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
                 "--stderr", "--libcurl", "--output-dir"):
        for target in parsed.values(name):
            if target.value != "-":
                scope.write(target)
                if name in ("-o", "--output"):
                    scope.remember(target, Stream(True, None, host, "curl"))
    if parsed.has("-O", "--remote-name"):
        for url in urls:
            name = (url or "").split("?")[0].rstrip("/").rpartition("/")[2]
            if name:
                scope.write(Word.literal(name))
                scope.remember(Word.literal(name), Stream(True, None, host, "curl"))
    scope.raise_to("medium", "downloads", host)


_WGET_VALUES = frozenset({"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P",
                          "--directory-prefix", "--post-data", "--post-file", "--body-data", "--body-file",
                          "--method", "-i", "--input-file", "-e", "--execute", "--header", "-U", "--user-agent",
                          "-t", "--tries", "-T", "--timeout", "--user", "--password", "--use-askpass", "-l",
                          "--level", "--load-cookies", "--save-cookies", "-B", "--base", "--config"})


def wget(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _WGET_VALUES)
    host = first_host([w.value for w in parsed.operands]) or "the network"
    near = loopback(host)
    if parsed.has("-e", "--execute", "--use-askpass", "--config") or any(w.value is None for w in parsed.operands) \
            or any(abbreviates(n, "--execute", "--use-askpass", "--config") for n, _ in parsed.options):
        scope.cannot_tell(call.part)
    for file in parsed.values("--post-file", "--body-file"):
        scope.read(file)
        scope.raise_to("medium" if near else "high", "sends_files", host)
    if parsed.has("--post-data", "--body-data") or (parsed.value("--method") or Word.literal("GET")).value not in (
            "GET", "HEAD", "get", "head"):
        scope.raise_to("medium" if near else "high", "sends_data", host)
    for name in ("-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P",
                 "--directory-prefix", "--save-cookies"):
        for target in parsed.values(name):
            if target.value != "-":
                scope.write(target)
                if name in ("-O", "--output-document"):
                    scope.remember(target, Stream(True, None, host, "wget"))
    if not parsed.values("-O", "--output-document"):  # the file is named after the URL, in the current folder
        for operand in parsed.operands:
            name = (operand.value or "").split("?")[0].rstrip("/").rpartition("/")[2]
            if name:
                folder = parsed.value("-P", "--directory-prefix")
                target = Word.literal(f"{folder.value}/{name}" if folder is not None and folder.value else name)
                scope.write(target)
                scope.remember(target, Stream(True, None, host, "wget"))
    scope.raise_to("medium", "downloads", host)


_SSH_VALUES = names("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B")


def ssh(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, _SSH_VALUES, first_operand_stops=True)
    if not parsed.operands:
        if parsed.has("-V"):
            return
        scope.cannot_tell(call.part)
        return
    host = parsed.operands[0].value or "a machine chosen at run time"
    host = host.rpartition("@")[2]
    _ssh_options(call, scope, parsed.values("-o"), parsed.values("-F"))
    scope.raise_to("high", "remote", host)


# ssh settings that run a program or load code on this machine (`-o ProxyCommand=…`), or read more settings.
_SSH_RUNS = re.compile(r"^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|pkcs11provider"
                       r"|securitykeyprovider|include|match|sshaskpass|remotecommand)\b", re.IGNORECASE)


def _ssh_options(call: Call, scope: Scope, settings: list[Word], files: list[Word]) -> None:
    if files or any(o.value is None or _SSH_RUNS.match(o.value) for o in settings):
        scope.cannot_tell(call.part)


def _remote(value: str | None) -> str | None:
    """The machine of an scp/rsync operand `host:path` or `rsync://host/…`."""
    if value is None:
        return None
    if value.startswith("rsync://"):
        return host_of(value)
    match = re.match(r"^(?:[^/@:]+@)?([^/:]+):", value)
    return match.group(1) if match else None


def scp(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, names("-c -F -i -J -l -o -P -S -D -X -s -R -B"))
    if parsed.has("-S", "-D"):  # the program scp/sftp runs instead of ssh, or as the sftp server
        scope.cannot_tell(call.part)
    _ssh_options(call, scope, parsed.values("-o"), parsed.values("-F"))
    remotes = [r for w in parsed.operands if (r := _remote(w.value))]
    if remotes:
        scope.raise_to("high", "copies_remote", remotes[0])
    elif len(parsed.operands) >= 2:
        scope.write(parsed.operands[-1])


def rsync(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-e", "--rsh", "--rsync-path", "--exclude", "--include", "--filter", "-f",
                                          "--files-from", "--exclude-from", "--include-from", "--log-file",
                                          "--password-file", "-T", "--temp-dir", "--backup-dir", "--suffix",
                                          "--chmod", "--port", "--bwlimit", "--timeout", "-M", "--remote-option"}))
    if parsed.has("-e", "--rsh", "--rsync-path", "-M", "--remote-option") or any(
            abbreviates(name, "--rsh", "--rsync-path", "--remote-option", "--config", "--early-input")
            for name, _ in parsed.options):
        scope.cannot_tell(call.part)
    remotes = [r for w in parsed.operands if (r := _remote(w.value))]
    if remotes:
        scope.raise_to("high", "copies_remote", remotes[0])
        return
    if len(parsed.operands) >= 2:
        for source in parsed.operands[:-1]:
            scope.read(source)
        scope.write(parsed.operands[-1])
        if any(name.startswith("--delete") or name == "--remove-source-files" for name, _ in parsed.options):
            scope.delete(parsed.operands[-1] if not parsed.has("--remove-source-files") else parsed.operands[0])


_HOST = re.compile(r"^(\d+\.\d+\.\d+\.\d+|localhost|\[?[0-9a-fA-F:]*:[0-9a-fA-F:]+\]?|[\w-]+(\.[\w-]+)+)$")
_SOCAT = re.compile(r"(?:tcp|udp|ssl|openssl|sctp)[46]?(?:-connect|-listen)?:([^:,]+)", re.IGNORECASE)


def connection(call: Call, scope: Scope) -> None:
    """nc, socat, telnet, ftp: a raw connection (or a listener) to wherever their operands say."""
    values = [w.value for w in call.words if w.value]
    target = next((m.group(1) for v in values if (m := _SOCAT.search(v))), None)
    target = target or next((v for v in values if _HOST.match(v)), None)
    scope.raise_to("high", "connects", target or call.part)


def httpie(call: Call, scope: Scope) -> None:
    parsed = parse(call.words, frozenset({"-a", "--auth", "-o", "--output", "--session", "--verify", "--cert"}))
    operands = [w.value or "" for w in parsed.operands]
    method = operands[0] if operands and operands[0].isupper() else "GET"
    rest = operands[1:] if method != "GET" or (operands and operands[0] == "GET") else operands
    host = first_host(rest) or (rest[0].split("/")[0].split(":")[0] if rest else "the network")
    near = loopback(host) or (rest and rest[0].startswith(":"))
    items = rest[1:]
    if any("@" in item and re.search(r"[=:]@", item) for item in items):
        scope.raise_to("medium" if near else "high", "sends_files", host)
    elif method not in ("GET", "HEAD") or any(re.search(r"[^:]=|:=", item) for item in items):
        scope.raise_to("medium" if near else "high", "sends_data", host)
    for target in parsed.values("-o", "--output"):
        scope.write(target)
    scope.raise_to("medium", "downloads", host)


_DOCUMENTS = re.compile(r"\.(html?|pdf|png|jpe?g|gif|svg|webp|md|txt|json|csv|log|xml|ya?ml|toml)$", re.IGNORECASE)


def opener(call: Call, scope: Scope) -> None:
    """open / xdg-open: a web page or a document is medium; an app or anything else may run code."""
    parsed = parse(call.words, frozenset({"-a", "-b", "--args"}))
    if parsed.has("-a", "-b", "--args") or not parsed.operands:
        scope.cannot_tell(call.part)
        return
    for operand in parsed.operands:
        value = operand.value
        if value is not None and (re.match(r"^https?://", value) or _DOCUMENTS.search(value)
                                  or PurePosixPath(value).suffix == "" and value in (".", "..")):
            scope.raise_to("medium", "opens", value)
        else:
            scope.cannot_tell(call.part)


PROGRAMS = {
    "curl": curl, "wget": wget, "ssh": ssh, "scp": scp, "sftp": scp, "rsync": rsync,
    "nc": connection, "ncat": connection, "netcat": connection, "socat": connection, "telnet": connection,
    "ftp": connection, "tftp": connection, "nmap": connection, "websocat": connection, "wscat": connection,
    "http": httpie, "https": httpie, "xh": httpie, "xhs": httpie,
    "open": opener, "xdg-open": opener,
}
