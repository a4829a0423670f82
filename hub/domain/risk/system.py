"""Programs that change the machine itself: stopping processes, services, scheduled jobs, mounts, firewalls,
users, kernel settings. Their read-only forms (`systemctl status`, `crontab -l`, `kill -l`) are low."""

from __future__ import annotations

import re

from hub.domain.risk.scope import Call, Scope

_SERVICE_READS = re.compile(r"^(status|is-active|is-enabled|is-failed|list-units|list-unit-files|list-timers"
                            r"|list-sockets|list-dependencies|show|cat|help|--version|list|print|blame|time"
                            r"|critical-chain|get-default)$")


def kill(call: Call, scope: Scope) -> None:
    values = [v for v in call.values]
    if any(v in ("-l", "-L", "--list", "-0") for v in values) or not values:
        return
    scope.raise_to("high", "stops_processes", call.part)


def service(call: Call, scope: Scope) -> None:
    verbs = [v for v in call.values if v is not None and not v.startswith("-")]
    if call.name in ("journalctl", "launchctl") and (call.name == "journalctl" or (verbs[:1] in (["list"],
                                                                                                   ["print"]))):
        return
    if verbs and _SERVICE_READS.match(verbs[0] if call.name != "service" else (verbs[-1] if len(verbs) > 1 else
                                                                              "status")):
        return
    scope.raise_to("high", "changes_system", call.part)


def crontab(call: Call, scope: Scope) -> None:
    if "-l" in call.values:
        return
    scope.raise_to("high", "write_schedule", "crontab")


def _reads_settings(name: str, values: list[str]) -> bool:
    first = values[0] if values else ""
    if name == "sysctl":
        return not any("=" in v or v == "-w" for v in values)
    if name == "defaults":
        return first in ("read", "domains", "find", "read-type", "export")
    if name == "ip":
        return len(values) < 2 or values[1] in ("show", "list", "ls", "get") or first in ("-br", "-c", "-j", "-s")
    if name == "ifconfig":
        return len(values) <= 1 or values[-1] == "-a"
    if name == "timedatectl":
        return first in ("", "status", "show", "list-timezones")
    if name == "diskutil":
        return first in ("list", "info", "activity")
    if name == "scutil":
        return "--set" not in values
    if name == "networksetup":
        return all(not v.startswith("-set") for v in values)
    if name == "pmset":
        return first == "-g"
    if name == "loginctl":
        return first == "" or first.startswith(("list", "show", "session-status"))
    return name == "mount" and not values


def settings(call: Call, scope: Scope) -> None:
    """sysctl, defaults, ip, ifconfig, timedatectl …: reading low, setting high."""
    if not _reads_settings(call.name, [v for v in call.values if v is not None]):
        scope.raise_to("high", "changes_system", call.part)


def changes(call: Call, scope: Scope) -> None:
    if call.values[:1] in (["--version"], ["--help"]):
        return
    scope.raise_to("high", "changes_system", call.part)


PROGRAMS = {
    **{name: kill for name in ("kill", "pkill", "killall", "skill", "xkill", "fuser")},
    **{name: service for name in ("systemctl", "service", "launchctl", "journalctl", "rc-service", "sv")},
    "crontab": crontab, "at": crontab, "batch": crontab,
    **{name: settings for name in ("sysctl", "defaults", "ip", "ifconfig", "timedatectl", "diskutil", "scutil",
                                   "networksetup", "pmset", "loginctl", "mount")},
    **{name: changes for name in ("shutdown", "reboot", "halt", "poweroff", "umount", "iptables", "ip6tables", "nft",
                                  "ufw", "firewall-cmd", "modprobe", "insmod", "rmmod", "mkfs", "mkfs.ext4",
                                  "mkfs.vfat", "fdisk", "sfdisk", "parted", "wipefs", "mkswap", "swapon", "swapoff",
                                  "useradd", "userdel", "usermod", "groupadd", "groupdel", "adduser", "deluser",
                                  "passwd", "chpasswd", "chsh", "visudo", "dscl", "tccutil", "csrutil", "spctl",
                                  "update-alternatives", "ldconfig", "setcap", "hostnamectl", "update-grub",
                                  "grub-install", "efibootmgr", "kextload", "kextunload", "nvram",
                                  "launchd", "cryptsetup", "losetup", "lvremove", "vgremove", "pvremove", "zpool",
                                  "zfs", "btrfs", "xattr", "chflags", "systemd-tmpfiles", "tune2fs", "e2fsck",
                                  "fsck", "mdadm", "killall5", "telinit", "init", "runlevel", "pfctl", "route")},
}
