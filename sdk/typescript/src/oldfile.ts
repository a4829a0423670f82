// Whether a file an approval replaces may be read for its diff (the Python SDK's hub/sdk/oldfile.py). A write or edit
// card shows the file's current content as the diff's removed lines, and that content then sits in the hub's log, on
// the phone and in relay text. So it is read only when its real path (symlinks resolved) lies inside the folder the
// agent works in, is not a key or credential file, and is a regular UTF-8 text file of at most 2 MiB; otherwise the
// card says the whole file is replaced and how large it is, from `stat` alone (docs/security.md#what-an-approval-shows).

import { closeSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** A bigger file is not read for a diff (the change is still shown whole). */
export const MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024;

// Names that hold keys or credentials (case ignored); see isSecret for where each counts.
const SECRET_NAMES = ["id_*", "*.pem", "*.key", "*.p12", "*.pfx", ".netrc", ".npmrc", ".pypirc", ".env", ".env.*",
  "credentials*", "*secret*", ".git-credentials"];
const SECRET_FOLDERS = [".ssh", ".gnupg", ".aws"];
const SECRET_TAILS: Array<[string, string]> = [[".docker", "config.json"], [".kube", "config"]];
const NAME_PATTERNS = SECRET_NAMES.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`, "s"));

/** What the card may show of the file as it is: its text, or why not (`hidden`) and its size in bytes. */
export interface OldFile {
  exists: boolean;
  text: string | null;
  hidden: "secret" | "outside" | "too_large" | "not_text" | null;
  size: number | null;
}

function partsOf(path: string): string[] {
  return path.split(/[\\/]+/).filter(Boolean).map((p) => p.toLowerCase());
}

/** A path whose name or folders say it holds a key or credential (~/.ssh/id_ed25519, .env.local, x.pem...). The key
 * folders count anywhere in the path; the names count for the file and, under `within` (the working folder), for the
 * folders below it only. */
export function isSecret(path: string, within?: string | null): boolean {
  const parts = partsOf(path);
  if (parts.slice(0, -1).some((part) => SECRET_FOLDERS.includes(part))) return true;
  for (let i = 0; i < parts.length - 1; i++) {
    if (SECRET_TAILS.some(([a, b]) => parts[i] === a && parts[i + 1] === b)) return true;
  }
  let named = parts;
  if (within) {
    const inside = relative(within, path);
    if (inside && !inside.startsWith("..") && !isAbsolute(inside)) named = partsOf(inside);
  }
  return named.some((part) => NAME_PATTERNS.some((pattern) => pattern.test(part)));
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The file's UTF-8 text without NUL, read to at most the limit (it may have grown since `stat`), or null. */
function textOf(path: string): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(MAX_DIFF_SOURCE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > MAX_DIFF_SOURCE_BYTES) return null;
    const data = buffer.subarray(0, length);
    if (data.includes(0)) return null;
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The file at `path` (relative to `cwd`) as the card may show it, by the rule above. */
export function readOld(path: string, cwd?: string | null): OldFile {
  // `~` is the home folder, as in the agent's own tools; without `cwd` the working folder is this process's own.
  cwd = cwd || process.cwd();
  const expanded = path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
  const target = isAbsolute(expanded) ? expanded : join(cwd, expanded);
  let info: Stats;
  try {
    info = statSync(target); // follows symlinks: the file the write replaces
  } catch {
    return { exists: false, text: null, hidden: null, size: null };
  }
  const hidden = (why: OldFile["hidden"]): OldFile => ({ exists: true, text: null, hidden: why, size: info.size });
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return hidden("not_text");
  }
  let folder: string | null = null;
  if (cwd) {
    try {
      folder = realpathSync(cwd);
    } catch {
      folder = resolve(cwd);
    }
  }
  if (isSecret(resolve(target), cwd ? resolve(cwd) : null) || isSecret(real, folder)) return hidden("secret");
  if (folder === null || !inside(real, folder)) return hidden("outside");
  if (!info.isFile()) return hidden("not_text");
  if (info.size > MAX_DIFF_SOURCE_BYTES) return hidden("too_large");
  const text = textOf(real);
  if (text === null) return hidden("not_text");
  return { exists: true, text, hidden: null, size: info.size };
}
