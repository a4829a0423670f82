"""The reasons a risk is what it is: each a code and its English text, and the assessment that collects them.

Reasons say what the command does to what ("deletes your home folder (~)", "force-pushes over main"), never only
which program it uses. `{part}` is the part of the command, the path or the host it is about; the app shows each
code in the person's language (ui/lib/strings-*.js `risk.reason.<code>`) and the English text goes to chat relays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hub.protocol.vocabulary import RISK_LEVELS, RiskLevel

MAX_REASONS = 12
CANNOT_TELL = "LineUp cannot tell what this runs"

REASONS: dict[str, str] = {
    # What the hub cannot read: always high.
    "cannot_tell": CANNOT_TELL + " ({part})",
    "unknown_program": CANNOT_TELL + ": it does not know the program {part}",
    "unparsed": CANNOT_TELL + ": parts of it do not parse ({part})",
    "too_long": CANNOT_TELL + ": it is too long to read fully",
    "too_many_commands": CANNOT_TELL + ": it has more than {part} commands",
    "nested_too_deep": CANNOT_TELL + ": it nests shells too deep to follow",
    # Deleting, by where it is.
    "delete_everything": "deletes everything on the machine ({part})",
    "delete_home": "deletes your home folder ({part})",
    "delete_home_all": "deletes everything in your home folder ({part})",
    "delete_system": "deletes system files ({part})",
    "delete_keys": "deletes your keys or credentials ({part})",
    "delete_startup": "deletes your shell’s start-up file {part}",
    "delete_settings": "deletes settings of git or an agent ({part})",
    "delete_git": "deletes the project’s git history ({part})",
    "delete_project_all": "deletes the whole project ({part})",
    "delete_outside": "deletes {part}, outside the project",
    "delete_cache": "deletes a cache ({part})",
    "delete_temp": "deletes temporary files ({part})",
    "delete_project": "deletes {part} in the project",
    "delete_path": "deletes {part}",
    "delete_ci": "deletes a CI workflow ({part})",
    # Writing, by where it goes.
    "write_startup": "writes to your shell’s start-up file {part}",
    "write_authorized_keys": "adds a key to {part}",
    "write_keys": "writes to your keys or credentials ({part})",
    "write_agent": "changes an agent’s permissions ({part})",
    "write_hooks": "changes git hooks ({part})",
    "write_gitconfig": "changes git settings that can run programs ({part})",
    "write_schedule": "changes scheduled or start-up jobs ({part})",
    "write_path_bin": "installs a program on your PATH ({part})",
    "write_secrets": "writes to the secrets file {part}",
    "write_system": "writes to system files ({part})",
    "write_outside": "writes to {part}, outside the project",
    "write_project": "writes {part} in the project",
    "write_path": "writes {part}",
    "write_ci": "changes a CI workflow ({part}), which runs with the repository’s secrets",
    "link_home": "links {part} to your home folder",
    "link_keys": "links {part} to your keys or credentials",
    "link_outside": "links {part}, outside the project",
    "link_path": "links {part}",
    "chmod_outside": "changes the permissions of {part}, outside the project",
    "chmod_project": "changes the permissions of {part} in the project",
    "chmod_path": "changes the permissions of {part}",
    "read_keys": "reads your keys or credentials ({part})",
    "read_secrets": "reads the secrets file {part}",
    # Running code.
    "runs_project": "runs the project’s own code ({part})",
    "runs_script": "runs the project’s script {part}",
    "runs_outside": "runs {part}, a program outside the project",
    "runs_path": "runs {part}",
    "runs_download": "runs code downloaded from {part}",
    "runs_package": "downloads and runs a package ({part})",
    "runs_program": "runs a program from inside another program ({part})",
    "runs_written": "runs code this same command writes ({part})",
    "runs_changed": "runs code this approval also changes ({part})",
    "loads_code": "sets {part}, a variable that makes programs load other code",
    "as_root": "runs as root ({part})",
    # Packages.
    "installs": "installs packages ({part})",
    "installs_from": "installs packages from {part}",
    "installs_program": "installs a program on your machine ({part})",
    "installs_local": "installs a package from the local file {part}",
    "installs_local_folder": "installs a package from the local folder {part}",
    "publishes": "publishes to a package registry ({part})",
    "package_settings": "changes a package manager’s settings ({part})",
    # The network.
    "downloads": "downloads from {part}",
    "sends_files": "sends files to {part}",
    "sends_data": "sends data to {part}",
    "connects": "opens a network connection to {part}",
    "remote": "runs commands on {part}",
    "copies_remote": "copies files to or from {part}",
    "serves": "starts a server ({part})",
    "secret_plain": "sends a secret unencrypted to {part}",
    # git.
    "force_push": "force-pushes over {part}",
    "push_main": "pushes to the main branch ({part})",
    "push_delete": "deletes {part} on the remote",
    "push_branch": "pushes {part} to the remote",
    "discards_work": "discards uncommitted work ({part})",
    "rewrites_history": "rewrites the repository’s history ({part})",
    "git_runs_program": "sets git to run a program ({part})",
    "git_changes": "changes the repository ({part})",
    "git_remote": "downloads from the repository’s remote ({part})",
    "git_outside": "changes the repository {part}, outside the project",
    "remote_url": "points a remote at {part}",
    # The machine, containers and clusters.
    "stops_processes": "stops processes ({part})",
    "changes_system": "changes the system ({part})",
    "containers": "runs or changes containers ({part})",
    "cluster": "changes a cluster or cloud resources ({part})",
    "opens": "opens {part} in another program",
    # Databases.
    "sql_drop_table": "drops the table {part}",
    "sql_drop": "drops {part}",
    "sql_truncate": "empties the table {part}",
    "sql_delete_all": "deletes every row of {part}",
    "sql_update_all": "changes every row of {part}",
    "sql_alter_drop": "drops columns or constraints of {part}",
    "sql_access": "changes who may use the database ({part})",
    "sql_program": "runs a program from the database client ({part})",
    "sql_server_files": "reads or writes files on the database server ({part})",
    "sql_writes": "changes data in the database ({part})",
    # Inline code.
    "code_network": "runs code that reaches the network ({part})",
    "code_unknown": "LineUp cannot tell what this code does ({part})",
    # Kept for the approval's other items (hub/domain/approvals.py).
    "hidden_characters": "contains invisible or direction-changing characters ({part})",
    "long_gap": "pushes text out of sight with a run of {part} blanks inside a line",
    "runs_hooks": "runs the repository’s hooks ({part}), programs an agent could have written",
    "tool_sql": "{part} is given SQL that drops, empties or changes every row",
}


# The order reasons of one level are listed in: the most destructive first (docs/security.md "How the hub judges the
# risk"); a code not named here comes after these, in the order it was found.
SEVERITY: tuple[str, ...] = (
    "delete_everything", "delete_home", "delete_home_all", "force_push", "runs_download", "write_startup",
    "write_authorized_keys", "write_keys", "delete_keys", "delete_system", "push_main", "push_delete",
    "runs_written", "runs_changed", "runs_package", "installs_from", "write_agent", "write_hooks", "write_gitconfig",
    "write_schedule", "write_path_bin", "write_ci", "link_home", "link_keys", "link_outside", "read_keys",
    "discards_work", "rewrites_history", "sql_drop_table", "sql_drop", "sql_truncate", "sql_delete_all",
    "sql_update_all", "sql_program", "remote", "sends_files", "sends_data", "secret_plain", "connects",
    "copies_remote", "as_root", "loads_code", "remote_url", "git_runs_program", "runs_program", "runs_outside",
    "delete_outside", "write_outside", "write_system", "runs_path", "delete_path", "write_path", "link_path",
)
_SEVERITY = {code: index for index, code in enumerate(SEVERITY)}


def rank(level: RiskLevel, code: str) -> tuple[int, int]:
    """Where a reason is listed: higher levels first, then the most destructive (SEVERITY)."""
    return -RISK_LEVELS.index(level), _SEVERITY.get(code, len(SEVERITY))


@dataclass(frozen=True)
class Written:
    """A file an item writes in the project with content it chooses (`path` absolute, `shown` as a reason names it,
    `origin` the host it came from when downloaded)."""

    path: str
    shown: str
    origin: str | None = None


@dataclass(frozen=True)
class Ran:
    """The project's own code an item runs (`part` as a reason names it) and the files it may read: `reads` holds
    absolute paths without their extension (a module `json` reads json.py, json/…); None: any file of the project."""

    part: str
    reads: frozenset[str] | None = None



def _keys(path: str) -> list[str]:
    """What a run's `reads` may name of a file written at `path`: the path, the path without its extensions (a module
    `json` is json.py or json.cpython-311-x86_64-linux-gnu.so) and the folders it is in (json/__init__.py)."""
    keys = [path]
    folder, _, name = path.rpartition("/")
    bare = name.lstrip(".")
    if "." in bare:  # json.py → json, .pre-commit-config.yaml → .pre-commit-config
        keys.append(f"{folder}/{name[:len(name) - len(bare)]}{bare.split('.')[0]}")
    while folder and len(keys) < 40:
        keys.append(folder)
        folder = folder.rpartition("/")[0]
    return keys


@dataclass
class Assessment:
    """A risk level and the reasons for it, each naming the part of the command it comes from: `reasons` in English,
    `codes` the same reasons as {"code", "part"?} for the app to show in the person's language (REASONS)."""

    level: RiskLevel = "low"
    reasons: list[str] = field(default_factory=list)
    codes: list[dict[str, str]] = field(default_factory=list)
    # Each reason's level, so that the reasons for "high" can be listed first (`sort`).
    levels: list[RiskLevel] = field(default_factory=list, repr=False, compare=False)
    # What the item writes in the project and the project code it runs: an approval whose items write what another
    # runs is judged by that (hub/domain/approvals.py `combined`).
    writes: list[Written] = field(default_factory=list, repr=False, compare=False)
    runs: list[Ran] = field(default_factory=list, repr=False, compare=False)
    # Their indexes, so that a command of 2,000 writes and runs is matched in linear time.
    _written: dict[str, Written] = field(default_factory=dict, repr=False, compare=False)
    _stems: dict[str, Ran] = field(default_factory=dict, repr=False, compare=False)
    _any: Ran | None = field(default=None, repr=False, compare=False)
    _ran: set[Ran] = field(default_factory=set, repr=False, compare=False)
    _folders: set[str] = field(default_factory=set, repr=False, compare=False)

    def note_write(self, written: Written) -> Ran | None:
        """Keep a file written in the project; the project code that may read it, if any runs."""
        if written.path in self._written and self._written[written.path].path == written.path:
            return None
        self.writes.append(written)
        keys = _keys(written.path)
        for key in keys:
            self._written.setdefault(key, written)
        self._folders.add(written.path)
        if self._any is not None:
            return self._any
        found = next((self._stems[key] for key in keys if key in self._stems), None)
        if found is None and self._stems:  # a folder written whole (`tar -x`, `cp -r`): what is in it may be read
            found = next((run for stem, run in self._stems.items() if stem.startswith(written.path + "/")), None)
        return found

    def note_run(self, run: Ran) -> list[Written]:
        """Keep the project's code run; the files written in the project it may read (a few, the first written)."""
        if run in self._ran:
            return []
        self._ran.add(run)
        self.runs.append(run)
        if run.reads is None:
            first = self._any is None
            self._any = self._any or run
            return self.writes[:3] if first else []
        found = []
        for stem in run.reads:
            self._stems.setdefault(stem, run)
            if stem in self._written:
                found.append(self._written[stem])
            else:  # in a folder written whole
                folder = stem.rpartition("/")[0]
                while folder and folder not in self._folders:
                    folder = folder.rpartition("/")[0]
                if folder:
                    found.append(self._written[folder])
        return found[:3]

    def read_by(self, other: Assessment) -> tuple[Written, Ran] | None:
        """A file this item writes that `other` runs, if any (an approval's items: hub/domain/approvals.py)."""
        for written in self.writes:
            if other._any is not None:
                return written, other._any
            for key in _keys(written.path):
                if key in other._stems:
                    return written, other._stems[key]
            for stem, run in other._stems.items():
                if stem.startswith(written.path + "/"):
                    return written, run
        return None

    def raise_to(self, level: RiskLevel, code: str | None = None, part: str | None = None) -> None:
        if RISK_LEVELS.index(level) > RISK_LEVELS.index(self.level):
            self.level = level
        if code is None:
            return
        reason = REASONS[code].replace("{part}", part or "")
        self._add(reason, {"code": code, "part": part} if part is not None else {"code": code}, level)

    def _add(self, reason: str, code: dict[str, str], level: RiskLevel) -> None:
        """Keep `reason`; when MAX_REASONS are kept already, it takes the place of the least severe one below it, so
        that a long command's many medium reasons never crowd out the one that makes it high."""
        if len(self.levels) != len(self.reasons):
            self.levels = [self.level] * len(self.reasons)
        if reason in self.reasons:
            index = self.reasons.index(reason)
            if RISK_LEVELS.index(level) > RISK_LEVELS.index(self.levels[index]):
                self.levels[index] = level
            return
        if len(self.reasons) >= MAX_REASONS:
            worst = max(range(len(self.reasons)), key=lambda i: (rank(self.levels[i], self.codes[i]["code"]), i))
            if rank(level, code["code"]) >= rank(self.levels[worst], self.codes[worst]["code"]):
                return
            del self.reasons[worst], self.codes[worst], self.levels[worst]
        self.reasons.append(reason)
        self.codes.append(code)
        self.levels.append(level)

    def merge(self, other: Assessment) -> None:
        """Take on `other`'s level and reasons (an approval of several items: the highest of them)."""
        if RISK_LEVELS.index(other.level) > RISK_LEVELS.index(self.level):
            self.level = other.level
        levels = other.levels if len(other.levels) == len(other.reasons) else [other.level] * len(other.reasons)
        for reason, code, level in zip(other.reasons, other.codes, levels, strict=True):
            self._add(reason, code, level)
        for written in other.writes:
            self.note_write(written)
        for run in other.runs:
            self.note_run(run)

    def sort(self) -> None:
        """The reasons for the highest level first, the most destructive of them first (SEVERITY), otherwise in the
        order found: the card leads with what makes it high."""
        if len(self.levels) != len(self.reasons):
            return
        order = sorted(range(len(self.reasons)), key=lambda i: rank(self.levels[i], self.codes[i]["code"]))
        self.reasons[:] = [self.reasons[i] for i in order]
        self.codes[:] = [self.codes[i] for i in order]
        self.levels[:] = [self.levels[i] for i in order]

    def stored_codes(self) -> list[dict[str, str]]:
        """`codes` as an approval stores them (riskReasonCodes): each with its level, for the app to show the high
        ones prominently."""
        if len(self.levels) != len(self.codes):
            return [dict(code) for code in self.codes]
        return [{**code, "level": level} for code, level in zip(self.codes, self.levels, strict=True)]


def higher(a: RiskLevel, b: RiskLevel) -> RiskLevel:
    return a if RISK_LEVELS.index(a) >= RISK_LEVELS.index(b) else b


def clip(text: str, size: int = 60) -> str:
    """A part as a reason shows it: one line, at most `size` characters."""
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"
