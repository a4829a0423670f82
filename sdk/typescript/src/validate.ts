// A JSON Schema check of exactly the keywords `lineup schema` uses (scripts/schema.mjs refuses to generate
// src/protocol.ts from a schema with any other), so every frame from the hub is checked against the hub's own
// schema before the SDK reads a field of it, with no dependency. A hostile or broken hub gets its frame ignored
// and logged, never a crash of the agent.

import { FRAME_SCHEMA, type JsonObject } from "./protocol.js";

type Schema = JsonObject | boolean;

export type Direction = keyof typeof FRAME_SCHEMA.frames;

/** The first way `value` breaks the frames of `direction` ("$.payload.taskId: expected string"), or null. */
export function frameProblem(direction: Direction, value: unknown): string | null {
  return check(FRAME_SCHEMA.frames[direction], value, "$", 0);
}

/** The first way `value` breaks the definition `name` of the schema, or null. */
export function definitionProblem(name: string, value: unknown): string | null {
  const schema = FRAME_SCHEMA.$defs[name];
  if (schema === undefined) throw new Error(`the schema has no definition ${name}`);
  return check(schema, value, "$", 0);
}

const MAX_DEPTH = 64; // the schema's nesting is shallow; a deeper value fails instead of recursing without end

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function isType(value: unknown, type: string): boolean {
  const kind = kindOf(value);
  if (type === "number") return kind === "number" || kind === "integer";
  return kind === type;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => equal((a as JsonObject)[k], (b as JsonObject)[k]));
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolveRef(ref: unknown): Schema {
  const match = typeof ref === "string" ? /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref) : null;
  const schema = match?.[1] !== undefined ? FRAME_SCHEMA.$defs[match[1]] : undefined;
  if (schema === undefined) throw new Error(`unresolvable $ref ${String(ref)}`);
  return schema;
}

function describe(schema: JsonObject, fallback: string): string {
  return typeof schema.description === "string" ? schema.description : fallback;
}

function check(schema: Schema, value: unknown, path: string, depth: number): string | null {
  if (schema === true) return null;
  if (schema === false) return `${path}: not allowed`;
  if (depth > MAX_DEPTH) return `${path}: nested too deeply`;
  if (schema.$ref !== undefined) {
    const problem = check(resolveRef(schema.$ref), value, path, depth + 1);
    if (problem) return problem;
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => isType(value, type))) return `${path}: expected ${types.join(" or ")}, got ${kindOf(value)}`;
  }
  if (schema.const !== undefined && !equal(value, schema.const)) {
    return `${path}: ${describe(schema, `expected ${JSON.stringify(schema.const)}`)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => equal(value, option))) {
    return `${path}: expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}`;
  }
  if (typeof value === "string") {
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength && codePoints(value) > schema.maxLength) {
      return `${path}: longer than ${schema.maxLength} characters`;
    }
    if (typeof schema.minLength === "number" && (value.length < schema.minLength || codePoints(value) < schema.minLength)) {
      return `${path}: shorter than ${schema.minLength} characters`;
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return `${path}: below ${schema.minimum}`;
    if (typeof schema.maximum === "number" && value > schema.maximum) return `${path}: above ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) return `${path}: fewer than ${schema.minItems} items`;
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return `${path}: more than ${schema.maxItems} items`;
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(schema.items as Schema, value[i], `${path}[${i}]`, depth + 1);
        if (problem) return problem;
      }
    }
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const name of schema.required as string[]) {
        if (!Object.prototype.hasOwnProperty.call(value, name)) return `${path}: ${describe(schema, `missing ${name}`)}`;
      }
    }
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (Object.prototype.hasOwnProperty.call(value, name)) {
          const problem = check(sub as Schema, value[name], `${path}.${name}`, depth + 1);
          if (problem) return problem;
        }
      }
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf as Schema[]) {
      const problem = check(sub, value, path, depth + 1);
      if (problem) return isObject(sub) && typeof sub.description === "string" ? `${path}: ${sub.description}` : problem;
    }
  }
  if (Array.isArray(schema.anyOf)) {
    const problems = (schema.anyOf as Schema[]).map((sub) => check(sub, value, path, depth + 1));
    if (!problems.includes(null)) return `${path}: ${describe(schema, problems[0] ?? "matches none of anyOf")}`;
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = (schema.oneOf as Schema[]).filter((sub) => check(sub, value, path, depth + 1) === null).length;
    if (matching !== 1) return `${path}: ${describe(schema, `matches ${matching} of oneOf, not exactly one`)}`;
  }
  if (schema.not !== undefined && check(schema.not as Schema, value, path, depth + 1) === null) {
    return `${path}: ${describe(isObject(schema.not) ? schema.not : {}, "matches what is not allowed")}`;
  }
  if (schema.if !== undefined) {
    const branch = check(schema.if as Schema, value, path, depth + 1) === null ? schema.then : schema.else;
    if (branch !== undefined) {
      const problem = check(branch as Schema, value, path, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}
