// Bundles the plugin (its TypeScript, the LineUp TypeScript SDK and `ws`) into the folder OpenClaw installs:
// package/ beside src/ (package.json, openclaw.plugin.json, README.md, dist/*.js), committed, which the Python package
// carries (pyproject.toml [tool.lineup.carried]) and `lineup connect openclaw` installs with `openclaw plugins install`. Only
// `openclaw/*` stays an import: the Gateway links its own copy into the installed plugin (a peer dependency).
//
//   node scripts/build.mjs           write the folder
//   node scripts/build.mjs --check   build into a temporary folder and fail if the committed one differs

import { build } from "esbuild";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const target = resolve(root, "package");
const check = process.argv.includes("--check");
const out = check ? mkdtempSync(join(tmpdir(), "openclaw-channel-")) : target;

const source = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// What OpenClaw reads of the installed package: no scripts, no development or file: dependencies (all bundled).
const installed = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: "module",
  peerDependencies: source.peerDependencies,
  openclaw: source.openclaw,
};

rmSync(join(out, "dist"), { recursive: true, force: true });
mkdirSync(join(out, "dist"), { recursive: true });
await build({
  entryPoints: { index: join(root, "src/index.ts"), "setup-entry": join(root, "src/setup-entry.ts") },
  outdir: join(out, "dist"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node24",
  external: ["openclaw", "openclaw/*", "bufferutil", "utf-8-validate"],
  chunkNames: "chunks/[name]-[hash]",
  // `ws` is CommonJS and requires Node's modules: an ES module bundle needs a `require` of its own.
  banner: { js: "import { createRequire as __lineupCreateRequire } from \"node:module\";\n" +
    "const require = __lineupCreateRequire(import.meta.url);" },
  legalComments: "none",
  logLevel: "warning",
});
writeFileSync(join(out, "package.json"), `${JSON.stringify(installed, null, 2)}\n`);
cpSync(join(root, "openclaw.plugin.json"), join(out, "openclaw.plugin.json"));
cpSync(join(root, "README.md"), join(out, "README.md"));
// The repository ignores dist/ folders; this one is the bundle the Python package carries: committed.
writeFileSync(join(out, ".gitignore"), "!dist/\n");

if (check) {
  const list = (dir) => readdirSync(dir, { recursive: true }).map(String)
    .filter((p) => statSync(join(dir, p)).isFile() && p !== "__init__.py" && !p.includes("__pycache__")).sort();
  const built = list(out);
  let have = [];
  try { have = list(target); } catch { have = []; }
  const differ = [...new Set([...built, ...have])].filter((p) => {
    try {
      return !readFileSync(join(out, p)).equals(readFileSync(join(target, p)));
    } catch {
      return true;
    }
  });
  rmSync(out, { recursive: true, force: true });
  if (differ.length) {
    console.error(`${relative(process.cwd(), target)} is not what the sources build (${differ.join(", ")}): run ` +
      "`npm run build` in integrations/openclaw-channel and commit the result");
    process.exit(1);
  }
  console.log("the committed plugin bundle is what the sources build");
}
