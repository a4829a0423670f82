"""docs/security.md#files-at-rest: the database files are the owner's alone even in a folder others may read, a
`lineup.toml` holding secrets that others may read is reported (and refused by the packaged app), and `lineup export`
leaves the secret hashes out unless asked."""

from __future__ import annotations

import hashlib
import json
import logging
import stat
import sys
from pathlib import Path

import pytest

from hub.filemodes import check_config_file
from tests.security.support import ServedHub
from tests.support.hubproc import run_cli

GENESIS = "0" * 64
COLUMNS = ["sequence", "id", "type", "workspace_id", "conversation_id", "task_id", "correlation_id", "actor",
           "occurred_at", "recorded_at", "payload"]
MAIL_PASSWORD = "smtp-pa55-do-not-leak"
CONFIG = f'[notify.mail]\nhost = "127.0.0.1"\nport = 2525\nusername = "me"\npassword = "{MAIL_PASSWORD}"\nto = ["a@b.c"]\n'


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def database_files(data: Path) -> list[Path]:
    return [data / name for name in ("lineup.db", "lineup.db-wal", "lineup.db-shm")]


def test_the_database_files_are_0600_in_a_folder_others_can_read(tmp_path: Path) -> None:
    data = tmp_path / "shared"
    data.mkdir(mode=0o755)
    data.chmod(0o755)  # whatever the umask: a folder others may enter and list
    hub = ServedHub(data).start()
    try:
        hub.token()  # writes: the WAL and its index exist while the hub runs
        files = database_files(data)
        assert all(f.exists() for f in files)
        assert {f.name: oct(mode(f)) for f in files} == {f.name: "0o600" for f in files}
    finally:
        hub.stop()
    # Files an older hub left readable by others are corrected at the next start.
    for f in database_files(data):
        if f.exists():
            f.chmod(0o644)
    hub = ServedHub(data).start()
    try:
        hub.token()
        assert {f.name: oct(mode(f)) for f in database_files(data) if f.exists()} == \
            {f.name: "0o600" for f in database_files(data) if f.exists()}
    finally:
        hub.stop()


def test_a_new_data_folder_and_its_tls_folder_are_the_owners_alone(tmp_path: Path) -> None:
    """Seen by hand: the hub made its self-signed certificate's folder first, with the default mode, so a new data
    folder (and the folder of the private key) came out 0755."""
    data = tmp_path / "new-data"
    hub = ServedHub(data, args=["--tls-self-signed"], tls=True).start()
    try:
        hub.token()
        assert (data / "tls" / "key.pem").exists()
        assert (oct(mode(data)), oct(mode(data / "tls"))) == ("0o700", "0o700")
    finally:
        hub.stop()


def test_a_config_file_with_secrets_readable_by_others_is_reported_at_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "lineup.toml").write_text(CONFIG)
    (data / "lineup.toml").chmod(0o644)
    hub = ServedHub(data, process=True).start()  # the password is searched in all the process writes
    hub.stop()
    log = hub.log()
    assert "lineup.toml holds secrets (notify.mail.password)" in log and "chmod 600" in log, log
    assert MAIL_PASSWORD not in log + hub.banner()

    # Its owner's alone: nothing to say.
    quiet = ServedHub(tmp_path / "quiet")
    quiet.data_dir.mkdir(mode=0o700)
    (quiet.data_dir / "lineup.toml").write_text(CONFIG)
    (quiet.data_dir / "lineup.toml").chmod(0o600)
    quiet.start()
    quiet.stop()
    assert "holds secrets" not in quiet.log()


def test_the_packaged_app_refuses_a_config_file_with_secrets_readable_by_others(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch,
                                                                                caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "lineup.toml").write_text(CONFIG + '[relay]\nmanager_token = "mt"\n')
    (tmp_path / "lineup.toml").chmod(0o640)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with pytest.raises(SystemExit) as refused:
        check_config_file(tmp_path)
    assert "notify.mail.password, relay.manager_token" in str(refused.value) and "mt\"" not in str(refused.value)
    # Without secrets in it, a readable config file is fine.
    (tmp_path / "lineup.toml").write_text('[hub]\nport = 9600\n')
    with caplog.at_level(logging.WARNING):
        check_config_file(tmp_path)
    assert not caplog.records


def check_links(records: list[dict[str, object]]) -> tuple[int, int]:
    """(links recomputed, records taken as given): every record must follow from the one before, except a
    redacted one, whose payload is not what its chain covers."""
    previous, checked, given = GENESIS, 0, 0
    for number, record in enumerate(records, start=1):
        assert record["sequence"] == number
        if record.get("redacted"):
            given += 1
        else:
            canonical = json.dumps([record[c] for c in COLUMNS], ensure_ascii=False, separators=(",", ":"))
            assert hashlib.sha256(f"{previous}\n{canonical}".encode()).hexdigest() == record["chain"], number
            checked += 1
        previous = str(record["chain"])
    return checked, given


def test_export_leaves_secret_hashes_out_unless_asked(tmp_path: Path) -> None:
    hub = ServedHub(tmp_path / "data").start()
    try:
        token = hub.token()
        run_cli(hub.data_dir, "pair")  # a pairing code: its hash is a secret too
        assert token
    finally:
        hub.stop()

    plain = [json.loads(line) for line in run_cli(hub.data_dir, "export").stdout.splitlines()]
    full = [json.loads(line) for line in run_cli(hub.data_dir, "export", "--with-secrets").stdout.splitlines()]
    assert len(plain) == len(full) >= 3
    secret_keys = {k for r in full for k in json.loads(str(r["payload"])) if k.startswith("_")}
    assert secret_keys  # the log does hold secret hashes ...
    for record in plain:  # ... and the plain export holds none of them
        assert not [k for k in json.loads(str(record["payload"])) if k.startswith("_")], record
    secret_values = {str(v) for r in full for k, v in json.loads(str(r["payload"])).items() if k.startswith("_")}
    text = "\n".join(json.dumps(r) for r in plain)
    assert not [v for v in secret_values if v in text]
    redacted = [r for r in plain if r.get("redacted")]
    assert redacted and {k for r in redacted for k in r["redacted"]} == secret_keys

    # With the hashes every link checks; without them every link but the redacted records' does.
    assert check_links(full) == (len(full), 0)
    assert check_links(plain) == (len(plain) - len(redacted), len(redacted))
