// What an approval approves, built whole for the card (docs/protocol.md#what-an-approval-approves; the Python SDK's
// hub/sdk/approvals.py). An approval carries one item or a list of them: a command (its text, or its argv), a file
// written whole or edited, a tool's whole input. A file change comes with a unified diff made from the file on disk
// where the file may be read for it (./oldfile.ts: inside the working folder, not a secret, small text), so the
// person sees exactly what changes. Nothing is cut: what does not fit in a question (`fits`) is not offered at all.

import { statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

import { unifiedDiff } from "./diff.js";
import { MAX_DIFF_SOURCE_BYTES, type OldFile, isSecret, readOld } from "./oldfile.js";
import type { ApprovalSubject, ApprovedEdit, InteractionSpec } from "./protocol.js";

export { MAX_DIFF_SOURCE_BYTES, isSecret, readOld };
export type { OldFile };

/** The hub's limit for one question (docs/security.md). */
export const MAX_QUESTION_BYTES = 64 * 1024;
/** What `approves` may take of it, as the hub counts it (an argv also shell-quoted as `command`). */
export const CARD_BUDGET_BYTES = 60 * 1024;
/** Items in one approval. */
export const MAX_ITEMS = 50;

/** A command a shell runs, its whole text. */
export function commandApproval(command: string, cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "command", command };
  if (cwd) subject.cwd = cwd;
  return subject;
}

/** A program and its arguments, run without a shell; the hub shows it shell-quoted (`sh -c 'eval "$0"'`). */
export function argvApproval(argv: string[], cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "command", argv: argv.map(String) };
  if (cwd) subject.cwd = cwd;
  return subject;
}

/** A tool without a command or file change (an MCP tool, a web fetch): its name and its whole input. */
export function toolApproval(tool: string, input: unknown, cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "tool", tool, input };
  if (cwd) subject.cwd = cwd;
  return subject;
}

function hide(subject: ApprovalSubject, old: OldFile): void {
  if (old.hidden) {
    subject.oldHidden = old.hidden;
    if (old.size !== null) subject.oldSize = old.size;
  }
}

/** A file written whole: its new content, and the diff against what the file holds now where it may be read; else
 * (`oldHidden`, `oldSize`) the card says the whole file is replaced, without its current content. */
export function writeApproval(path: string, content: string, cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "write", path, content };
  if (cwd) subject.cwd = cwd;
  const old = readOld(path, cwd);
  hide(subject, old);
  if (!old.hidden) {
    const diff = makeDiff(path, old.text ?? "", content, cwd, !old.exists);
    if (diff) subject.diff = diff;
  }
  return subject;
}

/** Replacements in a file (`{old, new, replaceAll?}` each): the edits, and the diff they make to the file where it
 * may be read (the edits alone otherwise). */
export function editApproval(path: string, edits: Array<{ old: string; new: string; replaceAll?: boolean }>,
  cwd?: string): ApprovalSubject {
  const clean: ApprovedEdit[] = edits.map((e) => ({ old: String(e.old ?? ""), new: String(e.new ?? ""),
    ...(e.replaceAll ? { replaceAll: true } : {}) }));
  const subject: ApprovalSubject = { kind: "edit", path, edits: clean };
  if (cwd) subject.cwd = cwd;
  const old = readOld(path, cwd);
  hide(subject, old);
  if (old.text !== null) {
    let after: string | null = old.text;
    for (const edit of clean) {
      if (after === null || !edit.old || !after.includes(edit.old)) {
        after = null;
        break;
      }
      after = edit.replaceAll ? after.split(edit.old).join(edit.new) : after.replace(edit.old, () => edit.new);
    }
    if (after !== null) {
      const diff = makeDiff(path, old.text, after, cwd, false);
      if (diff) subject.diff = diff;
    }
  }
  return subject;
}

/** The items of `approves`: one object is a list of one. */
export function itemsOf(approves: ApprovalSubject | ApprovalSubject[]): ApprovalSubject[] {
  return Array.isArray(approves) ? approves : [approves];
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** Python's shlex.quote: a word a POSIX shell reads back as itself. */
export function shellQuote(word: string): string {
  if (word === "") return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\"'\"'")}'`;
}

function asTheHubCounts(subject: ApprovalSubject): ApprovalSubject {
  if (subject.kind === "command" && Array.isArray(subject.argv) && subject.command == null) {
    return { ...subject, command: subject.argv.map(shellQuote).join(" ") };
  }
  return subject;
}

/** The size of `approves` as JSON, as the hub counts it against CARD_BUDGET_BYTES. */
export function approvesBytes(approves: ApprovalSubject | ApprovalSubject[]): number {
  return size(itemsOf(approves).map(asTheHubCounts));
}

function fileSize(subject: ApprovalSubject): number | null {
  const path = String(subject.path ?? "");
  const target = !isAbsolute(path) && subject.cwd ? join(subject.cwd, path) : path;
  try {
    return statSync(target).size;
  } catch {
    return null;
  }
}

/** The item with less to show and nothing hidden: a write of an existing file shown by its diff alone (an edit of
 * the file) or by its new content alone (the card then says the old content is not shown), whichever is smaller; an
 * edit by its edits alone. Null when nothing can go. */
function leaner(subject: ApprovalSubject): ApprovalSubject | null {
  if (!subject.diff || (subject.kind === "edit" && !subject.edits?.length)) return null; // its diff is all it shows
  const { diff: _diff, ...lean } = subject;
  if (subject.kind !== "write" || subject.diff.startsWith("--- /dev/null")) return lean;
  lean.oldHidden = "too_large";
  const known = fileSize(subject);
  if (known !== null) lean.oldSize = known;
  const { content: _content, ...rest } = subject;
  const asEdit: ApprovalSubject = { ...rest, kind: "edit" };
  return size(asEdit) <= size(lean) ? asEdit : lean;
}

/** `approves` within the card's budget, in the shape given: the largest items made leaner first (a diff instead of a
 * whole new content, or the content without a diff); null if even then it is too much, or there are more than
 * MAX_ITEMS (then ask where the agent runs, not on a card that would have to cut it). */
export function fits(approves: ApprovalSubject): ApprovalSubject | null;
export function fits(approves: ApprovalSubject[]): ApprovalSubject[] | null;
export function fits(approves: ApprovalSubject | ApprovalSubject[]): ApprovalSubject | ApprovalSubject[] | null;
export function fits(approves: ApprovalSubject | ApprovalSubject[]): ApprovalSubject | ApprovalSubject[] | null {
  const items = itemsOf(approves).map((item) => ({ ...item }));
  if (!items.length || items.length > MAX_ITEMS) return null;
  while (approvesBytes(items) > CARD_BUDGET_BYTES) {
    const order = items.map((_, i) => i).sort((a, b) => size(asTheHubCounts(items[b]!)) - size(asTheHubCounts(items[a]!)));
    const index = order.find((i) => leaner(items[i]!) !== null);
    if (index === undefined) return null;
    items[index] = leaner(items[index]!)!;
  }
  return Array.isArray(approves) ? items : items[0]!;
}

/** The whole question within MAX_QUESTION_BYTES: its description shortened if need be (what it approves, its title
 * and options never); null when even without a description it is too large. */
export function fitQuestion(spec: InteractionSpec): InteractionSpec | null {
  let card = spec;
  let description = card.description ?? "";
  while (size(card) > MAX_QUESTION_BYTES) {
    if (!description) return null;
    const over = size(card) - MAX_QUESTION_BYTES;
    description = description.slice(0, Math.max(0, description.length - over - 1));
    card = { ...card, description: description ? `${description}…` : "" };
  }
  return card;
}

/** Characters of what is approved (what the card says it shows), over every item. */
export function sizeOf(approves: ApprovalSubject | ApprovalSubject[]): number {
  let total = 0;
  for (const subject of itemsOf(approves)) {
    if (subject.kind === "command") {
      total += (subject.command ?? (subject.argv ?? []).map(shellQuote).join(" ")).length;
    } else if (subject.kind === "write") {
      total += (subject.content ?? "").length;
    } else if (subject.kind === "tool") {
      total += (JSON.stringify(subject.input, null, 2) ?? "").length;
    } else {
      const edits = (subject.edits ?? []).reduce((sum, e) => sum + e.old.length + e.new.length + 1, 0);
      total += edits || (subject.diff ?? "").length;
    }
  }
  return total;
}

function makeDiff(path: string, before: string, after: string, cwd: string | undefined, newFile: boolean): string {
  let name = path;
  if (cwd && isAbsolute(path)) {
    const inside = relative(cwd, path);
    if (inside && !inside.startsWith("..") && !isAbsolute(inside)) name = inside;
  }
  return unifiedDiff(before, after, newFile ? "/dev/null" : `a/${name}`, `b/${name}`);
}
