"""Where a path goes, judged against the working folder: the home folder, a start-up file, keys, hooks, a system
folder, a cache, a temporary folder, the project or somewhere else outside it.

Writes and deletions are judged by their target whatever program makes them (`tee -a ~/.bashrc` is a write to the
start-up file as much as `>> ~/.bashrc` is). Paths are resolved without touching the disk: `..` lexically, `~` as
the home folder, a relative path against the folder the command is in (`cd` moves it; hub/domain/risk/shell.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

# Where the project is when the item names no working folder: relative paths are inside it, absolute ones are not.
NO_CWD = PurePosixPath("/\u2063project")
NO_HOME = PurePosixPath("/\u2063home")
TEMPORARY = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm")  # noqa: S108 - compared, never opened
DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random",
                     "/dev/urandom", "/dev/full"})
SYSTEM_TOP = frozenset({"etc", "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt", "boot", "var", "srv",
                        "sys", "proc", "dev", "System", "Library", "Applications", "private", "snap", "root", "home",
                        "Users", "mnt", "media", "Volumes", "nix", "cores"})

# (category, pattern over the path with the home folder written `~`): the first that matches decides.
SENSITIVE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("authorized_keys", re.compile(r"/\.ssh/authorized_keys2?$")),
    ("startup", re.compile(
        r"(^|/)\.(bashrc|bash_profile|bash_login|bash_logout|bash_aliases|aliases|zsh_aliases|profile|zshrc|zprofile"
        r"|zshenv|zlogin|zlogout|kshrc"
        r"|mkshrc|cshrc|tcshrc|inputrc|vimrc|exrc|gvimrc|emacs|xinitrc|xprofile|xsession|tmux\.conf|screenrc)$"
        r"|(^|/)\.(config/fish|config/nvim|emacs\.d|vim/plugin|config/autostart|config/environment\.d)(/|$)"
        r"|^/etc/(profile|bash\.bashrc|bashrc|zshrc|zsh/|profile\.d/|environment$)")),
    ("keys", re.compile(
        r"(^|/)\.(ssh|gnupg|aws|azure|kube|password-store|docker)(/|$)|(^|/)\.config/(gh|gcloud|hub|op|git/credentials)"
        r"(/|$)|(^|/)\.(netrc|_netrc|git-credentials|npmrc|pypirc|yarnrc|yarnrc\.yml|gem/credentials|pgpass|my\.cnf"
        r"|vault-token|terraformrc)$|(^|/)id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$|(^|/)\.cargo/credentials(\.toml)?$"
        r"|^/etc/(shadow|gshadow|sudoers|master\.passwd)$|^/etc/ssh/ssh_host_\w+_key$")),
    ("agent", re.compile(
        r"(^|/)\.claude/(settings(\.local)?\.json|hooks/|commands/|agents/)|(^|/)\.claude\.json$|(^|/)\.codex/"
        r"|(^|/)\.gemini/settings\.json$|(^|/)\.mcp\.json$|(^|/)\.cursor/(mcp\.json|rules)|(^|/)\.vscode/tasks\.json$")),
    ("hooks", re.compile(r"(^|/)\.git/hooks(/|$)|(^|/)\.husky(/|$)|(^|/)\.githooks(/|$)")),
    ("gitconfig", re.compile(r"(^|/)\.git/config$|(^|/)\.gitattributes$|(^|/)\.gitconfig$|(^|/)\.config/git/"
                             r"|(^|/)\.git/info/attributes$|^/etc/gitconfig$")),
    ("schedule", re.compile(
        r"^/var/spool/cron|^/etc/(cron|crontab|anacrontab|systemd/|init\.d/|rc\.local|xdg/autostart)|/\.config/systemd/"
        r"|(^|/)Library/(LaunchAgents|LaunchDaemons)(/|$)|^/usr/lib/systemd/|^/lib/systemd/")),
    ("path_bin", re.compile(
        r"^/(usr/local/|usr/|opt/homebrew/|opt/local/)?s?bin(/|$)|^~/(\.local/bin|bin|\.cargo/bin|go/bin|\.npm-global/bin"
        r"|\.bun/bin|\.deno/bin|\.volta/bin|\.pyenv/shims|\.rbenv/shims)(/|$)")),
    ("secrets", re.compile(r"(^|/)\.env(\.(?!example$|sample$|template$|dist$)[\w.-]+)?$|(^|/)\.envrc$")),
    # CI workflows run, once pushed, with the repository's secrets.
    ("ci", re.compile(r"(^|/)\.(github|gitea|forgejo)/workflows/|(^|/)\.gitlab-ci\.ya?ml$|(^|/)\.circleci/"
                      r"|(^|/)Jenkinsfile$|(^|/)azure-pipelines\.ya?ml$|(^|/)\.travis\.ya?ml$"
                      r"|(^|/)bitbucket-pipelines\.ya?ml$|(^|/)\.buildkite/|(^|/)\.drone\.ya?ml$")),
)
CACHE = re.compile(r"^~/(\.cache|Library/Caches|\.npm/_cacache|\.npm/_npx|\.pnpm-store|\.yarn/cache|\.bun/install/cache"
                   r"|\.cargo/registry|\.cargo/git|\.gradle/caches|\.m2/repository|go/pkg/mod|\.nuget/packages"
                   r"|\.deno/cache|\.cache/pip|\.local/share/pnpm/store)(/|$)")


@dataclass(frozen=True)
class Place:
    """Where a path is: `kind` (everything, home, home_all, system, sensitive, temp, cache, device, git, project_all,
    project, workdir_all, workdir, outside), `category` for a sensitive path, `shown` the path as a reason names it.
    `workdir` is a folder a command without a known project went into (`cd ~/code/app`): its files are judged as the
    project's, and named by their path ("deletes ~/code/app/build"), never "outside the project"."""

    kind: str
    category: str | None
    shown: str

    @property
    def inside(self) -> bool:
        """In the project (or the folder a command without one works in)."""
        return self.kind in ("project", "project_all", "git", "workdir", "workdir_all")


def home_of(cwd: PurePosixPath) -> PurePosixPath:
    """The home folder the working folder is in (`/home/me/p` → `/home/me`); a stand-in when it is in none."""
    parts = cwd.parts
    if len(parts) >= 3 and parts[1] in ("home", "Users"):
        return PurePosixPath(*parts[:3])
    if len(parts) >= 2 and parts[1] == "root":
        return PurePosixPath("/root")
    return NO_HOME


def normalize(path: PurePosixPath) -> PurePosixPath:
    """`..` and `.` removed without touching the disk (`/a/b/../c` → `/a/c`; never above `/`)."""
    parts: list[str] = []
    for part in path.parts[1:]:
        if part == "..":
            if parts:
                parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return PurePosixPath("/", *parts)


@dataclass(frozen=True)
class Folders:
    """The project (the item's working folder), the home folder, and the folder a command is in now."""

    project: PurePosixPath
    home: PurePosixPath
    here: PurePosixPath | None  # None: a folder chosen at run time (`cd "$DIR"`)
    known: bool = True  # False: the item named no working folder; relative paths are the project's until a `cd`
    workdir: PurePosixPath | None = None  # unknown project: the folder a `cd` went into

    @staticmethod
    def of(cwd: str | None) -> Folders:
        if not cwd or not cwd.replace("\\", "/").startswith("/"):
            return Folders(NO_CWD, NO_HOME, NO_CWD, known=False)
        project = normalize(PurePosixPath(cwd.replace("\\", "/")))
        return Folders(project, home_of(project), project)

    def moved(self, here: PurePosixPath | None) -> Folders:
        """The folders after `cd here`. Without a known project, a folder the hub cannot otherwise place becomes the
        one the command works in (`cd ~/code/app && rm -rf build` deletes ~/code/app/build, not "outside")."""
        workdir = self.workdir
        if not self.known and here is not None and not here.is_relative_to(self.project):
            place = replace(self, workdir=None).place(str(here))
            if place is not None and place.kind == "outside":
                workdir = here
            elif workdir is not None and not here.is_relative_to(workdir):
                workdir = None
        return replace(self, here=here, workdir=workdir)

    def inside(self, path: PurePosixPath | None) -> bool:
        """Whether `path` is in the project (or in the folder a command without one works in)."""
        return path is not None and (path.is_relative_to(self.project) or (
            self.workdir is not None and path.is_relative_to(self.workdir)))

    def resolve(self, value: str) -> PurePosixPath | None:
        """An absolute path for `value` as the shell would open it from `here`; None when that cannot be known."""
        if value == "~" or value.startswith("~/"):
            return normalize(PurePosixPath(str(self.home) + value[1:]))
        if value.startswith("~"):  # another user's home
            return normalize(PurePosixPath("/home", value[1:]))
        if value.startswith("/"):
            return normalize(PurePosixPath(value))
        if self.here is None:
            return None
        return normalize(self.here / value)

    def shown(self, path: PurePosixPath) -> str:
        """The path as a person reads it: `~/…` in the home folder, relative inside the project."""
        if path == self.project:
            return "."
        if path.is_relative_to(self.project):
            return str(path.relative_to(self.project))
        if path == self.home:
            return "~"
        if path.is_relative_to(self.home):
            return "~/" + str(path.relative_to(self.home))
        return str(path)

    def place(self, value: str | None, globby: bool = False) -> Place | None:
        """Where `value` is; None when it is chosen at run time. A glob is judged by the folder it spreads over:
        `~/*` is everything in the home folder, `*.log` files in the project."""
        if value is None:
            return None
        path = self.resolve(value)
        if path is None:
            return None
        spread = globby and bool(path.parts) and re.fullmatch(r"[.*?\[\]]+|\.\[!.\]\*", path.name or "")
        folder = path.parent if spread else path
        text = str(path)
        home_text = "~" + text[len(str(self.home)):] if path.is_relative_to(self.home) else text
        shown = value if not value.startswith("/") and len(value) <= 60 else self.shown(path)
        if text in DEVICES or text.startswith("/dev/fd/") or text.startswith("/proc/self/fd/"):
            return Place("device", None, shown)
        if folder == PurePosixPath("/"):
            return Place("everything", None, shown)
        if folder == self.home:
            return Place("home_all" if spread else "home", None, shown)
        for category, pattern in SENSITIVE:
            if pattern.search(home_text) or pattern.search(text):
                return Place("sensitive", category, shown)
        if folder == self.project:
            return Place("project_all", None, shown)
        if self.workdir is not None and path.is_relative_to(self.workdir):
            return Place("workdir_all" if folder == self.workdir else "workdir", None, self.shown(path))
        if path.is_relative_to(self.project):  # before temporary folders: a project may live in /tmp
            inside = path.relative_to(self.project).parts
            if inside[:1] == (".git",) and len(inside) <= 2 and (len(inside) == 1 or inside[1] in ("objects", "refs")):
                return Place("git", None, shown)
            return Place("project", None, shown)
        if self.project.is_relative_to(folder):  # a folder the project is in: deleting it deletes the project
            return Place("outside", None, shown)
        if any(text == t or text.startswith(t + "/") for t in TEMPORARY):
            return Place("temp", None, shown)
        if CACHE.search(home_text):
            return Place("cache", None, shown)
        if len(path.parts) >= 2 and path.parts[1] in SYSTEM_TOP and not path.is_relative_to(self.home) and (
                len(path.parts) <= 2 or path.parts[1] not in ("home", "Users", "mnt", "media", "Volumes", "root")):
            return Place("system", None, shown)
        return Place("outside", None, shown)
