"""The ACP client: drives an Agent Client Protocol agent (Gemini CLI, claude-code-acp, codex-acp) over stdio.

It is the hub's own, below the plugins: the built-in `acp` runtime (plugins/runtimes/) registers it, and sessions
from the phone (hub/sessions/) drive it directly. An agent configured with the `acp` runtime:

```toml
[[agents]]
name = "Gemini"
runtime = "acp"
command = ["gemini", "--experimental-acp"]
cwd = "~/code/my-project"      # the sessions' working directory (default: the hub's data folder)
fs = false                     # offer fs/read_text_file and fs/write_text_file (inside `cwd` only; needs `cwd`)
terminal = false               # offer terminal/* (commands run in `cwd`)
init_timeout_s = 60            # for `initialize`, `session/new` and `session/load`
cancel_grace_s = 10            # after `session/cancel`, how long the turn may take to end before it is left
kill_grace_s = 5               # on stop: SIGTERM to the process group, SIGKILL after this
max_reply_chars = 200000       # a longer reply is cut with a note
permission_timeout_s = 60      # the agent stops waiting for a permission answer after this (Hermes: 60); unset: never
unavailable_hint = "..."       # said after a failed start: what the agent needs (OpenClaw: its Gateway running)
```

One agent process serves the agent: started at `start()`, stopped at `stop()`, and started again for the next
task or message when it died (the tasks it was running fail with `agent_exited`). Each LineUp conversation has
one ACP session, made on first use with `session/new` (a task without a conversation gets its own), and its
turns run one at a time:

- a task is accepted when its turn starts and is one `session/prompt` with its text; a person's message in the
  conversation (`message.delivered`) is a prompt too, its reply posted as a message;
- `agent_message_chunk` updates stream into the conversation (`message.delta`, then the whole message); thoughts
  are not shown; plan entries become child tasks (pending → queued, in_progress → running, completed →
  succeeded) and the parent's progress is completed / total; tool calls are reported as progress summaries,
  which land in the task's timeline;
- `session/request_permission` becomes an approval card offering the agent's options (allow once / for this
  session / always, reject once / always, with the agent's labels; an "always" or "for this session" option whose
  width LineUp cannot state is left out beside an "allow once", and said so when it is the only yes:
  hub/acp/permission.py) and carrying what it approves whole (the command, the file edit as a diff); the chosen
  option goes back as `selected`, anything else (declined without an option, expired, cancelled) as `cancelled`.
  When the agent stops waiting (its own timeout, `permission_timeout_s`, whose deadline the card shows from the
  start; the tool call finishing or failing without the answer; the turn ending or being cancelled, its process
  ending) the card is withdrawn, saying why, and can no longer be approved;
  what a process that ended with the hub left waiting is withdrawn at the next start by the runtime's driver (the
  supervisor, the session host: hub/runtimes/orphans.py). ACP's answer carries no note: a note the person wrote with
  the answer becomes the session's next prompt once the turn is over (the card says `notes: "next_message"`);
- the stop reason ends the task: `end_turn` → succeeded, `cancelled` → cancelled, `refusal`, `max_tokens`,
  `max_turn_requests` → failed with that code; a cancel request sends `session/cancel`. A turn in which the agent
  denied by itself what nobody answered in time (its own timeout, `permission_timeout_s`; the tool call failing or
  the request cancelled while its card waited) fails with `approval_timed_out`, naming what did not run, even when
  the agent ends it with `end_turn` (Hermes does, after it denies at 60 s); allowed when asked again, it does not.
- a bridge whose service is gone (OpenClaw's `openclaw acp` and its Gateway, `scheduler.py` NOT_SENT and LINK_LOST)
  is replaced by a fresh process: a prompt it never sent ("gateway not connected", for seconds after a Gateway
  restart) is sent again on the new one, once; a turn whose link dropped midway ("Gateway disconnected: …") is
  cancelled where it may still run and fails as `agent_disconnected`, and its conversation goes on in a new ACP
  session (the Gateway reruns the interrupted turn of the old one by itself).

File-system and terminal requests are refused unless `fs` / `terminal` are set. Which session each
conversation has is kept in `<data dir>/agents/<name>.acp-sessions.json`: after a hub restart an agent that
offers `session/load` continues the conversation, and a message delivered again after a crash is not prompted twice.
The history a load replays is not shown; an agent that answers the load before its replay is over (Gemini CLI
0.61) has the next prompt wait, at most 5 s, until the replay reaches the session's last reply (`replay.py`).
"""

from __future__ import annotations

from hub.acp.errors import TurnError
from hub.acp.runtime import AcpRuntime

__all__ = ["AcpRuntime", "TurnError"]
