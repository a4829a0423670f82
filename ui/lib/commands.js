// The commands the app shows, written with the program the hub was really started with (README's install puts
// `lineup` in .venv/bin, not on PATH) and its --data-dir when it is not the default (/-/plugins.json "cli").

/** `lineup ARGS` as this hub's person would type it; `dataDir` adds --data-dir for commands that open the hub's
 *  folder (serve, agents add); `port` adds --port for `serve` on another port than 9527. Before the hub has said (or
 *  through the relay), plain `lineup`. */
export function hubCommand(state, args, { dataDir = false, port = false } = {}) {
  const cli = state?.hubCli;
  const program = typeof cli?.program === 'string' && cli.program ? cli.program : 'lineup';
  // `lineup serve` only: --port when the hub is not on the default one (a restart must come back on the same port).
  const onPort = port && typeof cli?.portArgs === 'string' && cli.portArgs ? ` ${cli.portArgs}` : '';
  const extra = dataDir && typeof cli?.dataDirArgs === 'string' && cli.dataDirArgs ? ` ${cli.dataDirArgs}` : '';
  return `${program} ${args}${onPort}${extra}`;
}

/** A command the hub wrote as `lineup …` (the agent presets): the same with this hub's program and folder. */
export function localCommand(state, command) {
  const text = String(command || '');
  return text.startsWith('lineup ') ? hubCommand(state, text.slice('lineup '.length), { dataDir: true }) : text;
}
