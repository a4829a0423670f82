// A unified diff of two texts, as Python's difflib.unified_diff writes one (hub/sdk/approvals.py uses it): `--- a/x`,
// `+++ b/x`, hunks with 3 lines of context and difflib's ranges, `\ No newline at end of file` after a last line
// without one. The matching lines come from Myers' algorithm on what is left between the common start and end; a
// middle so different that it would take more than MAX_EDITS edits is shown as removed and added whole (still a
// correct diff, only a longer one).

type Tag = "equal" | "replace" | "delete" | "insert";
type Opcode = [Tag, number, number, number, number];

const MAX_EDITS = 2000;

/** The text's lines, each with its line ending ("\n"), as Python's splitlines(keepends=True) for \n files. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Blocks of equal lines [i, j, length] between a[lo..] and b[lo..], by Myers' O(ND) algorithm, or null past maxD. */
function myers(a: string[], b: string[], aLo: number, aHi: number, bLo: number, bHi: number, maxD: number):
  Array<[number, number, number]> | null {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, maxD); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) { x++; y++; }
      v[offset + k] = x;
      if (x >= n && y >= m) { found = d; break; }
    }
    if (found >= 0) break;
  }
  if (found < 0) return null;
  // Walk back through the saved frontiers, collecting the diagonal runs (equal lines).
  const blocks: Array<[number, number, number]> = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const saved = trace[d]!; // v[k] for k in [-d-1, d+1] at the start of step d
    const at = (k: number): number => saved[k + d + 1]!;
    const k = x - y;
    let prevK: number;
    if (d === 0) prevK = 0;
    else prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    const startX = d === 0 ? 0 : (prevK === k + 1 ? prevX : prevX + 1);
    const startY = startX - k;
    if (x > startX) blocks.push([aLo + startX, bLo + startY, x - startX]);
    x = prevX;
    y = prevY;
  }
  return blocks.reverse();
}

function opcodes(a: string[], b: string[]): Opcode[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix
    && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const blocks: Array<[number, number, number]> = [];
  if (prefix) blocks.push([0, 0, prefix]);
  const middle = myers(a, b, prefix, a.length - suffix, prefix, b.length - suffix, MAX_EDITS) ?? [];
  blocks.push(...middle);
  if (suffix) blocks.push([a.length - suffix, b.length - suffix, suffix]);
  blocks.push([a.length, b.length, 0]);
  // difflib's get_opcodes from the matching blocks.
  const codes: Opcode[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj, size] of blocks) {
    const tag: Tag | null = i < ai && j < bj ? "replace" : i < ai ? "delete" : j < bj ? "insert" : null;
    if (tag) codes.push([tag, i, ai, j, bj]);
    i = ai + size;
    j = bj + size;
    if (size) codes.push(["equal", ai, i, bj, j]);
  }
  return codes;
}

function grouped(codes: Opcode[], n: number): Opcode[][] {
  if (!codes.length) codes = [["equal", 0, 1, 0, 1]];
  const first = codes[0]!;
  if (first[0] === "equal") codes[0] = ["equal", Math.max(first[1], first[2] - n), first[2], Math.max(first[3], first[4] - n), first[4]];
  const last = codes[codes.length - 1]!;
  if (last[0] === "equal") codes[codes.length - 1] = ["equal", last[1], Math.min(last[2], last[1] + n), last[3], Math.min(last[4], last[3] + n)];
  const groups: Opcode[][] = [];
  let group: Opcode[] = [];
  for (let [tag, i1, i2, j1, j2] of codes) {
    if (tag === "equal" && i2 - i1 > 2 * n) {
      group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length && !(group.length === 1 && group[0]![0] === "equal")) groups.push(group);
  return groups;
}

function range(start: number, stop: number): string {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1) return String(beginning);
  if (!length) beginning -= 1;
  return `${beginning},${length}`;
}

/** The unified diff from `before` to `after` ("" when they are equal). */
export function unifiedDiff(before: string, after: string, fromFile: string, toFile: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const lines: string[] = [];
  for (const group of grouped(opcodes(a, b), context)) {
    if (!lines.length) lines.push(`--- ${fromFile}\n`, `+++ ${toFile}\n`);
    const first = group[0]!;
    const last = group[group.length - 1]!;
    lines.push(`@@ -${range(first[1], last[2])} +${range(first[3], last[4])} @@\n`);
    for (const [tag, i1, i2, j1, j2] of group) {
      if (tag === "equal") {
        for (const line of a.slice(i1, i2)) lines.push(` ${line}`);
        continue;
      }
      if (tag === "replace" || tag === "delete") for (const line of a.slice(i1, i2)) lines.push(`-${line}`);
      if (tag === "replace" || tag === "insert") for (const line of b.slice(j1, j2)) lines.push(`+${line}`);
    }
  }
  return lines.map((line) => (line.endsWith("\n") ? line : `${line}\n\\ No newline at end of file\n`)).join("");
}
