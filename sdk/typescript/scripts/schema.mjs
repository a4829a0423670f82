#!/usr/bin/env node
// Generates src/protocol.ts from the hub's own JSON Schema (`lineup schema`, hub/protocol/schema.py), so this SDK, the
// Python SDK and the hub cannot drift: the TypeScript types of every payload an agent sends and receives, the maps
// from event type to payload type per direction, and the schema of the frames an agent exchanges (src/validate.ts
// checks every frame from the hub against it before the SDK uses it).
//
//   node scripts/schema.mjs                  run `python -m hub schema` and write src/protocol.ts
//   node scripts/schema.mjs --check          exit 1 (saying where) when src/protocol.ts is not what the schema makes
//   ... --schema FILE                        read the schema from FILE ("-": standard input) instead of the hub
//
// The hub's Python: $LINEUP_PYTHON, else the repository's .venv/bin/python, else python3, run in the repository (or
// $LINEUP_HUB_DIR), so `hub` imports from the checkout. tests/unit/test_typescript_schema.py and `npm test` run the check.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPOSITORY = resolve(PACKAGE, "..", "..");
const TARGET = join(PACKAGE, "src", "protocol.ts");

// The directions an agent takes part in (events.<direction> in the schema).
const DIRECTIONS = {
  handshake: "Handshake",
  agentToHub: "AgentToHub",
  hubToClient: "HubToClient",
  hubToAgent: "HubToAgent",
};
// The frames the SDK validates (frames.<direction>).
const FRAMES = ["handshake", "agentToHub", "hubToAgent"];
// Every keyword src/validate.ts implements or deliberately ignores; a schema using another one fails the generation,
// so a new kind of rule in the hub's schema is never silently skipped by the validator.
const KNOWN_KEYWORDS = new Set([
  "$ref", "type", "properties", "required", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
  "items", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
  "title", "description", "default",
]);

export function hubPython() {
  if (process.env.LINEUP_PYTHON) return process.env.LINEUP_PYTHON;
  const venv = join(REPOSITORY, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

function readSchema(source) {
  if (source === "-") return JSON.parse(readFileSync(0, "utf8"));
  if (source) return JSON.parse(readFileSync(source, "utf8"));
  const out = execFileSync(hubPython(), ["-m", "hub", "schema"], { cwd: process.env.LINEUP_HUB_DIR || REPOSITORY, encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(out);
}

// ---- which definitions an agent needs ------------------------------------------------------------------------------

// Definitions whose schema name is a global of JavaScript get a suffix, so the SDK can still say `Error`.
const GLOBALS = new Set(["Error", "Event", "Object", "Function", "Symbol", "Map", "Set", "Date", "Promise", "Record"]);

function typeName(name) {
  return GLOBALS.has(name) ? `${name}Payload` : name;
}

function schemaName(ref) {
  const match = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!match) throw new Error(`unsupported $ref ${ref}: only #/$defs/<Name>`);
  return match[1];
}

function refName(ref) {
  return typeName(schemaName(ref));
}

function collectRefs(node, found) {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, found);
  } else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref") found.add(schemaName(value));
      else collectRefs(value, found);
    }
  }
}

function reachable(schema, roots) {
  const defs = schema.$defs;
  const seen = new Set();
  const queue = [];
  const start = new Set();
  collectRefs(roots, start);
  for (const name of start) queue.push(name);
  while (queue.length) {
    const name = queue.pop();
    if (seen.has(name)) continue;
    if (!(name in defs)) throw new Error(`$ref to a missing definition ${name}`);
    seen.add(name);
    const inner = new Set();
    collectRefs(defs[name], inner);
    for (const next of inner) if (!seen.has(next)) queue.push(next);
  }
  return [...seen].sort();
}

function checkKeywords(node, path) {
  if (Array.isArray(node)) {
    node.forEach((item, i) => checkKeywords(item, `${path}[${i}]`));
    return;
  }
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (!KNOWN_KEYWORDS.has(key)) {
      throw new Error(`${path} uses the JSON Schema keyword ${JSON.stringify(key)}, which src/validate.ts does not ` +
        "implement: teach it there and add it to KNOWN_KEYWORDS in scripts/schema.mjs");
    }
    if (key === "properties") {
      for (const [name, sub] of Object.entries(value)) checkKeywords(sub, `${path}.properties.${name}`);
    } else if (key === "enum" || key === "const" || key === "default" || key === "required") {
      // values, not schemas
    } else if (value && typeof value === "object") {
      checkKeywords(value, `${path}.${key}`);
    }
  }
}

// ---- TypeScript from JSON Schema -----------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function literal(value) {
  return JSON.stringify(value);
}

function union(types) {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length ? unique.join(" | ") : "never";
}

function comment(text, indent) {
  if (!text) return "";
  const lines = String(text).replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

function tsType(schema, indent) {
  if (schema === true || schema === undefined) return "unknown";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf || schema.oneOf) {
    return union((schema.anyOf || schema.oneOf).map((s) => tsType(s, indent)));
  }
  if (schema.enum) return union(schema.enum.map(literal));
  if ("const" in schema) return literal(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return "unknown";
  return union(types.map((type) => {
    switch (type) {
      case "string": return "string";
      case "integer": case "number": return "number";
      case "boolean": return "boolean";
      case "null": return "null";
      case "array": {
        const item = tsType(schema.items, indent);
        return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case "object": return schema.properties ? objectType(schema, indent) : "JsonObject";
      default: throw new Error(`unsupported type ${type}`);
    }
  }));
}

function objectType(schema, indent) {
  const inner = indent + "  ";
  const required = new Set(schema.required || []);
  let body = "{\n";
  for (const [name, sub] of Object.entries(schema.properties || {})) {
    body += comment(sub.description, inner);
    const key = IDENTIFIER.test(name) ? name : literal(name);
    body += `${inner}${key}${required.has(name) ? "" : "?"}: ${tsType(sub, inner)};\n`;
  }
  return body + `${indent}}`;
}

function definition(schemaKey, schema) {
  const name = typeName(schemaKey);
  let out = "";
  const notes = [];
  if (schema.title && schema.title !== name) notes.push(schema.title);
  if (schema.description) notes.push(schema.description);
  for (const rule of schema.allOf || []) if (rule.description) notes.push(`Rule: ${rule.description}`);
  out += comment(notes.join("\n"), "");
  if (schema.type === "object" && schema.properties) {
    out += `export interface ${name} ${objectType(schema, "")}\n`;
  } else {
    out += `export type ${name} = ${tsType(schema, "")};\n`;
  }
  return out;
}

function directionMap(schema, direction, interfaceName) {
  let out = `/** events.${direction}: each event type and its payload. */\nexport interface ${interfaceName} {\n`;
  for (const [type, payload] of Object.entries(schema.events[direction])) {
    out += `  ${literal(type)}: ${tsType(payload, "  ")};\n`;
  }
  return out + "}\n";
}

export function generate(schema) {
  const roots = {};
  for (const direction of Object.keys(DIRECTIONS)) {
    if (!schema.events?.[direction]) throw new Error(`the schema has no events.${direction}`);
    roots[direction] = schema.events[direction];
  }
  for (const direction of FRAMES) {
    if (!schema.frames?.[direction]) throw new Error(`the schema has no frames.${direction}`);
    roots[`frame:${direction}`] = schema.frames[direction];
  }
  roots.envelope = schema.envelope;
  const names = reachable(schema, roots);
  const defs = Object.fromEntries(names.map((name) => [name, schema.$defs[name]]));
  for (const [name, def] of Object.entries(defs)) checkKeywords(def, `$defs.${name}`);
  for (const direction of FRAMES) checkKeywords(schema.frames[direction], `frames.${direction}`);

  let out = "";
  out += "// Generated by scripts/schema.mjs from the hub's `lineup schema` (hub/protocol/schema.py). Do not edit:\n";
  out += "// run `npm run schema`. `npm test` and tests/unit/test_typescript_schema.py fail when this file and the\n";
  out += "// hub's schema disagree.\n";
  out += "/* eslint-disable */\n\n";
  out += `/** The protocol version every envelope carries. */\nexport const PROTOCOL_VERSION = ${literal(schema.$defs.Envelope.properties.version.const)};\n\n`;
  out += "/** A JSON object whose fields the schema leaves open. */\nexport type JsonObject = { [key: string]: unknown };\n\n";
  for (const name of names) out += definition(name, schema.$defs[name]) + "\n";
  for (const [direction, interfaceName] of Object.entries(DIRECTIONS)) {
    out += directionMap(schema, direction, interfaceName) + "\n";
  }
  out += "/** The JSON Schema of the frames an agent exchanges with the hub (frames.<direction> and the $defs they use),\n";
  out += " * as `lineup schema` has them: src/validate.ts checks each frame from the hub against `frames.hubToAgent`. */\n";
  out += "export const FRAME_SCHEMA: {\n  frames: { handshake: JsonObject; agentToHub: JsonObject; hubToAgent: JsonObject };\n";
  out += "  $defs: { [name: string]: JsonObject };\n} = ";
  // One line per frame schema and per definition: a change in the hub's schema is a change of the lines it touches.
  out += "{\n  frames: {\n";
  out += FRAMES.map((d) => `    ${d}: ${JSON.stringify(schema.frames[d])}`).join(",\n");
  out += "\n  },\n  $defs: {\n";
  out += names.map((name) => `    ${name}: ${JSON.stringify(defs[name])}`).join(",\n");
  out += "\n  },\n};\n";
  return out;
}

function differences(committed, generated) {
  // The lines only one side has (up to ten each), after the first line where they part.
  const left = committed.split("\n");
  const right = generated.split("\n");
  let first = 0;
  while (first < left.length && first < right.length && left[first] === right[first]) first++;
  const count = (lines) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map());
  const inLeft = count(left.slice(first));
  const inRight = count(right.slice(first));
  const only = (mine, theirs) => [...mine].filter(([l, n]) => n > (theirs.get(l) ?? 0)).map(([l]) => l).slice(0, 10);
  const show = (lines) => lines.map((l) => `    ${l.length > 200 ? `${l.slice(0, 200)}…` : l}`).join("\n") || "    (none)";
  return `from line ${first + 1}:\n  only in src/protocol.ts:\n${show(only(inLeft, inRight))}\n` +
    `  only in what the schema makes:\n${show(only(inRight, inLeft))}`;
}

function main(argv) {
  const check = argv.includes("--check");
  const at = argv.indexOf("--schema");
  const source = at >= 0 ? argv[at + 1] : undefined;
  const generated = generate(readSchema(source));
  if (check) {
    const committed = existsSync(TARGET) ? readFileSync(TARGET, "utf8") : "";
    if (committed !== generated) {
      process.stderr.write("src/protocol.ts does not match the hub's schema (`lineup schema`); run `npm run schema` " +
        `in sdk/typescript and commit the result. They differ ${differences(committed, generated)}\n`);
      process.exit(1);
    }
    process.stdout.write("src/protocol.ts matches the hub's schema\n");
    return;
  }
  writeFileSync(TARGET, generated);
  process.stdout.write(`wrote ${TARGET}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
