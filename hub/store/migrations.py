"""Schema migrations as named functions, applied in order; applied names are recorded and never edited."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable

from hub.protocol.envelope import now_iso


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run DDL statement by statement: `executescript` would COMMIT the migration's transaction first."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending!r}")


def m001_create_event_log(conn: sqlite3.Connection) -> None:
    _run_script(conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- The log is the truth. `sequence` is assigned by the one writer: gap-free, insert order = commit order.
        CREATE TABLE events (
            sequence        INTEGER PRIMARY KEY,
            id              TEXT NOT NULL UNIQUE,   -- the envelope id: the idempotency key
            type            TEXT NOT NULL,
            workspace_id    TEXT,
            conversation_id TEXT,
            task_id         TEXT,
            correlation_id  TEXT,
            actor           TEXT NOT NULL,          -- 'user:<id>', 'agent:<id>' or 'hub'
            occurred_at     TEXT NOT NULL,          -- as the sender said
            recorded_at     TEXT NOT NULL,          -- when the hub stored it
            payload         TEXT NOT NULL,          -- JSON; keys starting with '_' never leave the hub
            request_hash    TEXT                    -- digest of what the sender sent, to tell a re-send from a conflict
        );
        CREATE INDEX events_by_workspace ON events (workspace_id, sequence);
        CREATE INDEX events_by_task ON events (task_id, sequence) WHERE task_id IS NOT NULL;
        -- Which agents an event is addressed to (docs/protocol.md#what-each-receiver-sees).
        CREATE TABLE event_recipients (
            agent_id TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            PRIMARY KEY (agent_id, sequence)
        ) WITHOUT ROWID;
        """
    )


def m002_create_projections(conn: sqlite3.Connection) -> None:
    _run_script(conn,
        """
        CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
        CREATE TABLE users (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, username TEXT NOT NULL UNIQUE,
            display_name TEXT NOT NULL, role TEXT NOT NULL,
            password_hash TEXT NOT NULL,            -- scrypt, see hub/auth/passwords.py
            created_at TEXT NOT NULL
        );
        CREATE TABLE devices (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,        -- sha256 of the device token; the token itself is never stored
            created_at TEXT NOT NULL, revoked_at TEXT
        );
        CREATE TABLE pairing_codes (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, code_hash TEXT NOT NULL UNIQUE,
            name TEXT, created_by TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL,
            used_at TEXT, agent_id TEXT
        );
        CREATE TABLE agents (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, name TEXT NOT NULL, runtime TEXT NOT NULL,
            agent_version TEXT NOT NULL, capabilities TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL DEFAULT 'offline',  -- online | offline | revoked
            status_reason TEXT,
            last_heartbeat_at TEXT,                  -- as of the last stored status change
            created_at TEXT NOT NULL, revoked_at TEXT
        );
        CREATE TABLE credentials (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, agent_id TEXT NOT NULL,
            secret_hash TEXT NOT NULL UNIQUE,        -- sha256 of the agent credential
            created_at TEXT NOT NULL, revoked_at TEXT
        );
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, title TEXT NOT NULL,
            agent_ids TEXT NOT NULL DEFAULT '[]', created_by TEXT NOT NULL,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_sequence INTEGER NOT NULL
        );
        CREATE INDEX conversations_by_workspace ON conversations (workspace_id, last_sequence);
        CREATE TABLE messages (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
            author_kind TEXT NOT NULL, author_id TEXT NOT NULL, target_agent_id TEXT,
            content TEXT NOT NULL, blocks TEXT,
            state TEXT NOT NULL,                     -- streaming | complete
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            first_sequence INTEGER NOT NULL,         -- orders the stream; stable while a message streams
            last_sequence INTEGER NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, first_sequence);
        CREATE TABLE tasks (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, conversation_id TEXT, parent_task_id TEXT,
            agent_id TEXT, title TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL, progress INTEGER, summary TEXT, error TEXT,
            cancel_requested_at TEXT, cancel_reason TEXT,
            connection_lost_at TEXT,                 -- set while its agent is offline: "connection lost since"
            created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            last_sequence INTEGER NOT NULL
        );
        CREATE INDEX tasks_by_workspace ON tasks (workspace_id, status, last_sequence);
        CREATE INDEX tasks_by_agent ON tasks (agent_id, status);
        CREATE INDEX tasks_by_parent ON tasks (parent_task_id);
        CREATE TABLE interactions (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, task_id TEXT, conversation_id TEXT,
            agent_id TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL, risk TEXT NOT NULL,
            spec TEXT NOT NULL,                      -- the request as the agent sent it (JSON)
            status TEXT NOT NULL,                    -- pending | answered | declined | expired | cancelled
            response TEXT, responded_by TEXT, responded_at TEXT,
            expires_at TEXT, created_at TEXT NOT NULL, last_sequence INTEGER NOT NULL
        );
        CREATE INDEX interactions_by_workspace ON interactions (workspace_id, status);
        CREATE INDEX interactions_by_task ON interactions (task_id);
        CREATE TABLE artifacts (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, task_id TEXT, conversation_id TEXT,
            agent_id TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL, mime_type TEXT, summary TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX artifacts_by_task ON artifacts (task_id);
        """
    )


def m003_create_sign_in_links(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        -- One-time links that sign a second device (a phone) in as the person who made them (10 minutes).
        CREATE TABLE sign_in_links (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, user_id TEXT NOT NULL,
            code_hash TEXT NOT NULL UNIQUE,          -- sha256 of the code; the code travels in a URL fragment only
            created_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT, device_id TEXT
        );
        """
    )


def m004_create_tools(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        -- Tools an agent or an app registered (tool.list with tools, or agent.hello tools): replaced as a whole.
        CREATE TABLE tool_registrations (
            owner_kind TEXT NOT NULL, owner_id TEXT NOT NULL,   -- 'agent' + agent id, or 'app' + device id
            workspace_id TEXT NOT NULL, tools TEXT NOT NULL, updated_at TEXT NOT NULL,
            PRIMARY KEY (owner_kind, owner_id)
        );
        -- One row per tool.call; `id` is the call's envelope id, `call_id` the caller's own pairing key.
        CREATE TABLE tool_calls (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, call_id TEXT NOT NULL,
            caller_kind TEXT NOT NULL, caller_id TEXT NOT NULL, name TEXT NOT NULL, action TEXT,
            arguments TEXT NOT NULL,
            target_kind TEXT NOT NULL,               -- hub | interaction | agent | app | none
            target_id TEXT,                          -- the agent, device or interaction that answers
            instance_id TEXT,                        -- for app-type tools: the instance the call works on
            status TEXT NOT NULL,                    -- pending | done | failed
            result TEXT, error TEXT, created_at TEXT NOT NULL, completed_at TEXT, last_sequence INTEGER NOT NULL
        );
        CREATE INDEX tool_calls_by_caller ON tool_calls (caller_id, call_id);
        CREATE INDEX tool_calls_pending ON tool_calls (workspace_id, status);
        -- Live instances of app-type tools (a canvas): their whole state after the last call.
        CREATE TABLE tool_instances (
            id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL,
            status TEXT NOT NULL,                    -- open | closed
            created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_sequence INTEGER NOT NULL
        );
        """
    )


def m005_create_notifications(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        -- The notification outbox: operational state beside the log (not a projection). One row per channel and
        -- subject, so a replay or a restart never notifies twice about the same thing.
        CREATE TABLE notification_outbox (
            id TEXT PRIMARY KEY, channel TEXT NOT NULL, kind TEXT NOT NULL,
            subject_key TEXT NOT NULL,               -- e.g. 'waiting_for_me:int_…'
            event_sequence INTEGER NOT NULL, workspace_id TEXT NOT NULL,
            notification TEXT NOT NULL,              -- what the channel sends (JSON), composed at enqueue time
            status TEXT NOT NULL,                    -- pending | delivered | failed | skipped
            attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at TEXT NOT NULL, last_error TEXT,
            created_at TEXT NOT NULL, delivered_at TEXT,
            UNIQUE (channel, subject_key)
        );
        CREATE INDEX notification_outbox_due ON notification_outbox (status, next_attempt_at);
        -- Single-use, expiring links in notifications that answer an interaction (ntfy action buttons).
        CREATE TABLE action_links (
            id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL,
            interaction_id TEXT NOT NULL, response TEXT NOT NULL, expires_at TEXT NOT NULL,
            created_at TEXT NOT NULL, used_at TEXT
        );
        -- How far the notifier has read the log: events after it are examined again after a crash.
        INSERT INTO meta (key, value) VALUES ('notify_cursor', (SELECT COALESCE(MAX(sequence), 0) FROM events));
        """
    )


def m006_chain_events(conn: sqlite3.Connection) -> None:
    from hub.store.chain import backfill

    # chain = sha256(previous chain + the row): editing, deleting or reordering rows shows (hub/store/chain.py).
    conn.execute("ALTER TABLE events ADD COLUMN chain TEXT")
    backfill(conn)


def _rebuild_table(conn: sqlite3.Connection, table: str, create: str, indexes: str = "") -> None:
    """SQLite cannot change a key in place: create the new table, copy every row, drop, rename, index again.

    `create` is the new CREATE TABLE statement for `<table>_new`; the columns keep their names and order,
    so rows are copied by name and `SELECT *` reads them as before. Dropping the old table drops its indexes.
    """
    columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
    _run_script(conn, create)
    conn.execute(f"INSERT INTO {table}_new ({columns}) SELECT {columns} FROM {table}")
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE {table}_new RENAME TO {table}")
    _run_script(conn, indexes)


def m007_scope_ids_to_workspaces(conn: sqlite3.Connection) -> None:
    # Ids a client may choose (conversation, message, task, interaction, artifact, the envelope id, and so the
    # tool call's id and an instance's) are unique within a workspace, not across the hub: otherwise creating
    # an object with an id another workspace uses answers `conflict` and tells that the id exists there.
    # Keys are (id, workspace_id): unique per workspace, and a lookup by id alone still uses the key's index.
    # Ids the hub generates (workspaces, users, devices, agents, credentials, codes, links) stay global.
    _rebuild_table(conn, "events", """
        CREATE TABLE events_new (
            sequence        INTEGER PRIMARY KEY,
            id              TEXT NOT NULL,          -- the envelope id: the idempotency key, within the workspace
            type            TEXT NOT NULL,
            workspace_id    TEXT,
            conversation_id TEXT,
            task_id         TEXT,
            correlation_id  TEXT,
            actor           TEXT NOT NULL,
            occurred_at     TEXT NOT NULL,
            recorded_at     TEXT NOT NULL,
            payload         TEXT NOT NULL,
            request_hash    TEXT,
            chain           TEXT
        );
        """, """
        CREATE UNIQUE INDEX events_by_id ON events (id, workspace_id);
        CREATE INDEX events_by_workspace ON events (workspace_id, sequence);
        CREATE INDEX events_by_task ON events (task_id, sequence) WHERE task_id IS NOT NULL;
        """)
    _rebuild_table(conn, "conversations", """
        CREATE TABLE conversations_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, title TEXT NOT NULL,
            agent_ids TEXT NOT NULL DEFAULT '[]', created_by TEXT NOT NULL,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, "CREATE INDEX conversations_by_workspace ON conversations (workspace_id, last_sequence);")
    _rebuild_table(conn, "messages", """
        CREATE TABLE messages_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
            author_kind TEXT NOT NULL, author_id TEXT NOT NULL, target_agent_id TEXT,
            content TEXT NOT NULL, blocks TEXT,
            state TEXT NOT NULL,                     -- streaming | complete
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            first_sequence INTEGER NOT NULL,         -- orders the stream; stable while a message streams
            last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, "CREATE INDEX messages_by_conversation ON messages (conversation_id, first_sequence);")
    _rebuild_table(conn, "tasks", """
        CREATE TABLE tasks_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, conversation_id TEXT, parent_task_id TEXT,
            agent_id TEXT, title TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL, progress INTEGER, summary TEXT, error TEXT,
            cancel_requested_at TEXT, cancel_reason TEXT,
            connection_lost_at TEXT,                 -- set while its agent is offline: "connection lost since"
            created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, """
        CREATE INDEX tasks_by_workspace ON tasks (workspace_id, status, last_sequence);
        CREATE INDEX tasks_by_agent ON tasks (agent_id, status);
        CREATE INDEX tasks_by_parent ON tasks (parent_task_id);
        """)
    _rebuild_table(conn, "interactions", """
        CREATE TABLE interactions_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, task_id TEXT, conversation_id TEXT,
            agent_id TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL, risk TEXT NOT NULL,
            spec TEXT NOT NULL,                      -- the request as the agent sent it (JSON)
            status TEXT NOT NULL,                    -- pending | answered | declined | expired | cancelled
            response TEXT, responded_by TEXT, responded_at TEXT,
            expires_at TEXT, created_at TEXT NOT NULL, last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, """
        CREATE INDEX interactions_by_workspace ON interactions (workspace_id, status);
        CREATE INDEX interactions_by_task ON interactions (task_id);
        """)
    _rebuild_table(conn, "artifacts", """
        CREATE TABLE artifacts_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, task_id TEXT, conversation_id TEXT,
            agent_id TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL, mime_type TEXT, summary TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, "CREATE INDEX artifacts_by_task ON artifacts (task_id);")
    _rebuild_table(conn, "tool_calls", """
        CREATE TABLE tool_calls_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, call_id TEXT NOT NULL,
            caller_kind TEXT NOT NULL, caller_id TEXT NOT NULL, name TEXT NOT NULL, action TEXT,
            arguments TEXT NOT NULL,
            target_kind TEXT NOT NULL,               -- hub | interaction | agent | app | none
            target_id TEXT,                          -- the agent, device or interaction that answers
            instance_id TEXT,                        -- for app-type tools: the instance the call works on
            status TEXT NOT NULL,                    -- pending | done | failed
            result TEXT, error TEXT, created_at TEXT NOT NULL, completed_at TEXT, last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """, """
        CREATE INDEX tool_calls_by_caller ON tool_calls (caller_id, call_id);
        CREATE INDEX tool_calls_pending ON tool_calls (workspace_id, status);
        """)
    _rebuild_table(conn, "tool_instances", """
        CREATE TABLE tool_instances_new (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL,
            status TEXT NOT NULL,                    -- open | closed
            created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        """)


def m008_task_checkpoints(conn: sqlite3.Connection) -> None:
    # The named steps an agent finished in a task (`task.checkpoint`): handed back to a restarted agent in its
    # welcome, so it does not do a finished step again (docs/sdk.md "Restart-safe handlers").
    conn.execute("ALTER TABLE tasks ADD COLUMN checkpoints TEXT NOT NULL DEFAULT '{}'")


def m009_relay_tables(conn: sqlite3.Connection) -> None:
    # The WuKongIM uplink's own bookkeeping (hub/relay/store.py), not projections of the log: per-person cursors,
    # the outbox, inbound message ids, the text fallback's numbered questions, and its state (docs/relay.md).
    # `IF NOT EXISTS` only here: before this migration the uplink made these very tables itself on first use, so a
    # database that ran the relay already has them, with this same definition, and keeps their rows.
    _run_script(conn,
        """
        CREATE TABLE IF NOT EXISTS relay_people (
            uid             TEXT PRIMARY KEY,      -- the person's WuKongIM uid
            cursor          INTEGER NOT NULL,      -- last event sequence turned into outbox rows for this person
            synced_seq      INTEGER NOT NULL DEFAULT 0,  -- channel messageSeq reconciled through /channel/messagesync
            conversation_id TEXT,                  -- where their plain text goes: the conversation they last heard from
            next_question   INTEGER NOT NULL DEFAULT 1   -- the #number the next question to them gets
        );
        CREATE TABLE IF NOT EXISTS relay_outbox (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,   -- send order
            person          TEXT NOT NULL,
            client_msg_no   TEXT NOT NULL UNIQUE,  -- WuKongIM's clientMsgNo: how an uncertain send is recognised later
            payload         TEXT NOT NULL,         -- the message payload (JSON object)
            red_dot         INTEGER NOT NULL,      -- counts as unread in IM clients (text yes, LineUp envelopes no)
            no_persist      INTEGER NOT NULL DEFAULT 0,  -- live only, not stored by WuKongIM (replays asked for)
            event_sequence  INTEGER,               -- the event it carries, if any
            status          TEXT NOT NULL DEFAULT 'pending',     -- pending | sent | failed
            message_id      TEXT, message_seq INTEGER, error TEXT,
            created_at      TEXT NOT NULL, sent_at TEXT
        );
        CREATE INDEX IF NOT EXISTS relay_outbox_pending ON relay_outbox (person, status, id);
        CREATE TABLE IF NOT EXISTS relay_inbound (
            message_id      TEXT PRIMARY KEY,      -- WuKongIM's message id: each inbound message is handled once
            person          TEXT NOT NULL,
            message_seq     INTEGER,
            handled_at      TEXT NOT NULL,
            outcome         TEXT                   -- what became of it (ack, error code, answer, chat, ignored)
        );
        CREATE TABLE IF NOT EXISTS relay_questions (
            person          TEXT NOT NULL,
            number          INTEGER NOT NULL,      -- the #number shown in the text fallback
            interaction_id  TEXT NOT NULL,
            status          TEXT NOT NULL DEFAULT 'open',   -- open | closed
            PRIMARY KEY (person, number), UNIQUE (person, interaction_id)
        );
        CREATE TABLE IF NOT EXISTS relay_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """)


def m010_pairing_code_replaces_agent(conn: sqlite3.Connection) -> None:
    # A code the app made to pair an existing agent again (its credential file lost): pairing with it rotates that
    # agent's credential instead of making a new agent (`pairing_code.created {replacesAgentId}`, docs/protocol.md).
    conn.execute("ALTER TABLE pairing_codes ADD COLUMN replaces_agent_id TEXT")


def m011_files(conn: sqlite3.Connection) -> None:
    # Files uploaded to the hub (`file.stored`, docs/protocol.md "Files"): one row per file of a workspace; the bytes
    # are in <data dir>/files/<sha256[:2]>/<sha256> (hub/files/blobs.py), shared by content. `file_links` says where a
    # file was attached (a message's `attachments`, an artifact's `fileId`): which agents may read it follows from
    # it (hub/store/queries/files.py agent_may_read). A message keeps its attachments as JSON.
    _run_script(conn,
        """
        CREATE TABLE files (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, name TEXT NOT NULL, mime_type TEXT NOT NULL,
            size INTEGER NOT NULL, sha256 TEXT NOT NULL,
            uploaded_by_kind TEXT NOT NULL, uploaded_by_id TEXT NOT NULL,   -- 'agent' | 'user', and its id
            created_at TEXT NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        CREATE INDEX files_by_uploader ON files (workspace_id, uploaded_by_kind, uploaded_by_id);
        CREATE TABLE file_links (
            workspace_id TEXT NOT NULL, file_id TEXT NOT NULL,
            kind TEXT NOT NULL, object_id TEXT NOT NULL,      -- 'message' | 'artifact', and its id
            conversation_id TEXT, task_id TEXT, agent_id TEXT,  -- agent_id: the agent a message was addressed to
            PRIMARY KEY (workspace_id, file_id, kind, object_id)
        ) WITHOUT ROWID;
        ALTER TABLE messages ADD COLUMN attachments TEXT;
        """)


def m012_sessions(conn: sqlite3.Connection) -> None:
    # Sessions started from the phone (docs/sessions.md): one row per session, kept by `session.started`,
    # `session.updated`, `session.ended`, `session.commit_requested` and `session.commit_resolved`. The choices a
    # project remembers (agent, where, mode, model) are its latest session's.
    _run_script(conn,
        """
        CREATE TABLE sessions (
            id TEXT NOT NULL, workspace_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
            agent_key TEXT NOT NULL, agent_id TEXT NOT NULL,
            project TEXT NOT NULL, folder TEXT NOT NULL,
            where_kind TEXT NOT NULL,          -- folder | new_worktree | worktree
            worktree TEXT,                     -- JSON {path, branch, created}
            base_commit TEXT, start_snapshot TEXT, base_ref TEXT,
            mode TEXT, model TEXT, title TEXT NOT NULL,
            status TEXT NOT NULL,              -- idle | running | ended
            usage TEXT,                        -- JSON, as the agent reported it
            pending_commit TEXT,               -- the interaction id of a commit card still waiting
            end_reason TEXT,
            created_by TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, ended_at TEXT,
            last_sequence INTEGER NOT NULL,
            PRIMARY KEY (id, workspace_id)
        );
        CREATE INDEX sessions_by_project ON sessions (workspace_id, project, created_at);
        CREATE INDEX sessions_by_conversation ON sessions (workspace_id, conversation_id);
        CREATE INDEX sessions_unended ON sessions (status) WHERE status != 'ended';
        """)


def m013_push_subscriptions(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        -- Web Push: one subscription per signed-in device (hub/store/queries/push_subscriptions.py). Operational
        -- state beside the log, like the outbox: not a projection. `auth` and `p256dh` are the browser's keys for
        -- the message encryption (RFC 8291); they stay in this file (0600), never in a log line or a URL.
        CREATE TABLE push_subscriptions (
            id TEXT PRIMARY KEY, device_id TEXT NOT NULL UNIQUE, workspace_id TEXT NOT NULL, user_id TEXT NOT NULL,
            endpoint TEXT NOT NULL, p256dh TEXT NOT NULL, auth TEXT NOT NULL,
            created_at TEXT NOT NULL, last_sent_at TEXT, last_error TEXT
        );
        CREATE INDEX push_subscriptions_by_workspace ON push_subscriptions (workspace_id);
        """
    )


def m014_relay_devices(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        -- The device that holds each person's relay access (hub/relay/devices.py): the two keys that seal its
        -- payloads, derived on the LAN (hub/relay/seal.py; the hub's private key is never stored), and the highest
        -- counter sent and accepted each way. `sealed` stays 1 after the keys end (revoked, signed out): nothing
        -- of the app is relayed to that person in clear until a device sets it up again. Operational state beside
        -- the log, like the outbox; the keys stay in this file (0600), never in a log line or a URL.
        CREATE TABLE relay_devices (
            uid TEXT PRIMARY KEY, device_id TEXT NOT NULL, sealed INTEGER NOT NULL, kid TEXT,
            to_device BLOB, to_hub BLOB, sent INTEGER NOT NULL DEFAULT 0, received INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL, ended_at TEXT
        );
        """
    )


def m015_events_that_may_notify(conn: sqlite3.Connection) -> None:
    # The notifier's cursor reads only these rows (hub/store/queries/notifications.py MAY_NOTIFY, the same WHERE):
    # after a million ordinary messages a start no longer reads them all. Few rows, so a small index.
    _run_script(
        conn,
        """
        CREATE INDEX events_may_notify ON events (sequence)
            WHERE (type IN ('interaction.requested', 'task.status_changed', 'agent.status_changed')
                   OR (type = 'message.created' AND instr(payload, '"attention"') > 0));
        """
    )


def m016_message_text_once(conn: sqlite3.Connection) -> None:
    # A message's text is in its event's payload already (hub/store/projections.py _message_written): the copy in
    # the projection goes, ~250 bytes a message of the bench's mix.
    conn.execute("UPDATE messages SET content = '' WHERE content != ''")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_create_event_log, m002_create_projections, m003_create_sign_in_links, m004_create_tools,
    m005_create_notifications, m006_chain_events, m007_scope_ids_to_workspaces, m008_task_checkpoints,
    m009_relay_tables, m010_pairing_code_replaces_agent, m011_files, m012_sessions,
    m013_push_subscriptions, m014_relay_devices, m015_events_that_may_notify,
    m016_message_text_once,
]

# Tables rebuilt from the log by `lineup db rebuild` and compared by `lineup db check`.
PROJECTION_TABLES = (
    "workspaces", "users", "devices", "pairing_codes", "agents", "credentials",
    "conversations", "messages", "tasks", "interactions", "artifacts", "sign_in_links",
    "tool_registrations", "tool_calls", "tool_instances", "files", "file_links", "sessions",
)


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; create the epoch on a new database. Returns names applied."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied = []
    for migration in MIGRATIONS:
        if migration.__name__ in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            migration(conn)
            conn.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (migration.__name__, now_iso()))
            if migration is m001_create_event_log:
                # The epoch names this event log for ever; a client holding a cursor of another epoch resyncs.
                conn.execute("INSERT INTO meta (key, value) VALUES ('epoch', ?)", (uuid.uuid4().hex,))
                conn.execute("INSERT INTO meta (key, value) VALUES ('hub_id', ?)", (uuid.uuid4().hex[:16],))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(migration.__name__)
    return applied


def read_meta(conn: sqlite3.Connection, key: str) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    if row is None:
        raise LookupError(f"meta key {key!r} missing; the database was not migrated")
    return str(row[0])
