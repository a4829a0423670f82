// What an approval approves, built whole for the card (docs/protocol.md#what-an-approval-approves; the Python SDK's
// hub/sdk/approvals.py). A command is sent as it will run; a file change as the file's new content or the edits,
// with a unified diff made from the file on disk where it can be read, so the person sees exactly what changes.
// Nothing is cut: what does not fit in a question (`fits`) is not offered as a card at all.

import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

import { unifiedDiff } from "./diff.js";
import type { ApprovalSubject, ApprovedEdit } from "./protocol.js";

/** The hub's limit for one question (docs/security.md). */
export const MAX_QUESTION_BYTES = 64 * 1024;
/** What `approves` may take of it, leaving room for the title, options and details. */
export const CARD_BUDGET_BYTES = 60 * 1024;
/** A bigger file is not read for a diff (the edits are still shown whole). */
export const MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024;

export function commandApproval(command: string, cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "command", command };
  if (cwd) subject.cwd = cwd;
  return subject;
}

/** A file written whole: its new content, and the diff against what the file holds now (if it exists). */
export function writeApproval(path: string, content: string, cwd?: string): ApprovalSubject {
  const subject: ApprovalSubject = { kind: "write", path, content };
  if (cwd) subject.cwd = cwd;
  const before = read(path, cwd);
  const diff = makeDiff(path, before ?? "", content, cwd, before === null);
  if (diff) subject.diff = diff;
  return subject;
}

/** Replacements in a file (`{old, new, replaceAll?}` each): the edits, and the diff they make to the file. */
export function editApproval(path: string, edits: Array<{ old: string; new: string; replaceAll?: boolean }>,
  cwd?: string): ApprovalSubject {
  const clean: ApprovedEdit[] = edits.map((e) => ({ old: String(e.old ?? ""), new: String(e.new ?? ""),
    ...(e.replaceAll ? { replaceAll: true } : {}) }));
  const subject: ApprovalSubject = { kind: "edit", path, edits: clean };
  if (cwd) subject.cwd = cwd;
  const before = read(path, cwd);
  if (before !== null) {
    let after: string | null = before;
    for (const edit of clean) {
      if (after === null || !edit.old || !after.includes(edit.old)) {
        after = null;
        break;
      }
      after = edit.replaceAll ? after.split(edit.old).join(edit.new) : after.replace(edit.old, () => edit.new);
    }
    if (after !== null) {
      const diff = makeDiff(path, before, after, cwd, false);
      if (diff) subject.diff = diff;
    }
  }
  return subject;
}

function size(subject: ApprovalSubject): number {
  return Buffer.byteLength(JSON.stringify(subject), "utf8");
}

/** `subject` within the card's budget: without its diff if only that is too much; null if even the command or
 * content alone is (then ask where the agent runs, not on a card that would have to cut it). */
export function fits(subject: ApprovalSubject): ApprovalSubject | null {
  if (size(subject) <= CARD_BUDGET_BYTES) return subject;
  if (subject.diff && (subject.kind !== "edit" || subject.edits?.length)) {
    const { diff: _diff, ...lean } = subject;
    if (size(lean) <= CARD_BUDGET_BYTES) return lean;
  }
  return null;
}

/** Characters of what is approved (what the card says it shows). */
export function sizeOf(subject: ApprovalSubject): number {
  if (subject.kind === "command") return (subject.command ?? "").length;
  if (subject.kind === "write") return (subject.content ?? "").length;
  const edits = (subject.edits ?? []).reduce((total, e) => total + e.old.length + e.new.length + 1, 0);
  return edits || (subject.diff ?? "").length;
}

function read(path: string, cwd?: string): string | null {
  const target = !isAbsolute(path) && cwd ? join(cwd, path) : path;
  try {
    const stat = statSync(target);
    if (!stat.isFile() || stat.size > MAX_DIFF_SOURCE_BYTES) return null;
    return new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(target));
  } catch {
    return null;
  }
}

function makeDiff(path: string, before: string, after: string, cwd: string | undefined, newFile: boolean): string {
  let name = path;
  if (cwd && isAbsolute(path)) {
    const inside = relative(cwd, path);
    if (inside && !inside.startsWith("..") && !isAbsolute(inside)) name = inside;
  }
  return unifiedDiff(before, after, newFile ? "/dev/null" : `a/${name}`, `b/${name}`);
}
