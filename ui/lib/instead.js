// What the agent should do instead, offered as replies in the head's Reject box: one for each kind of danger the
// hub's reasons name (push a branch instead of force-pushing main, stay inside the project …) and always "show me
// your plan first". A person who says no usually says what they want instead; tapping one rejects at once with the
// reasons and the reply in the note, so telling the agent is one tap, not typing on a phone.

// The hub's reason codes (hub/domain/command_risk.py REASONS) grouped by the alternative a person would ask for.
const KINDS = {
  branch: ['force_push', 'push_main', 'push_delete'],
  inside: ['delete_everything', 'delete_home', 'delete_home_all', 'delete_system', 'delete_keys', 'delete_startup',
    'delete_settings', 'delete_outside', 'write_outside', 'write_keys', 'write_startup', 'write_system',
    'write_authorized_keys', 'link_home', 'link_keys', 'link_outside', 'chmod_outside'],
  keepProject: ['delete_git', 'delete_project_all'],
  readable: ['cannot_tell', 'unknown_program', 'unparsed', 'too_long', 'too_many_commands', 'nested_too_deep'],
  noDownload: ['runs_download', 'runs_package'],
  noRoot: ['as_root'],
  noSend: ['sends_files', 'sends_data', 'secret_plain', 'publishes', 'copies_remote', 'remote'],
};
const KIND_OF = Object.fromEntries(Object.entries(KINDS).flatMap(([kind, codes]) => codes.map((c) => [c, kind])));
const MOST = 3;  // besides "plan": a row of replies that fits a phone's width twice at most

/** The replies for these reasons (objects with `code`, high ones first), as string keys: each kind once, at most
 * MOST of them, then the plan. */
export function insteadKeys(reasons) {
  const kinds = [];
  for (const reason of reasons) {
    const kind = KIND_OF[reason.code];
    if (kind && !kinds.includes(kind)) kinds.push(kind);
  }
  return [...kinds.slice(0, MOST), 'plan'].map((kind) => `card.instead.${kind}`);
}

/** The note with `reply` added, after the reasons line `why` when that is not in it yet. */
export function withReply(note, why, reply) {
  const lines = note.trim() ? [note.trim()] : [];
  if (why && !note.includes(why)) lines.push(why);
  if (!note.includes(reply)) lines.push(reply);
  return lines.join('\n');
}
