// The plugin's version (package.json) and the OpenClaw it is built and tested with: its plugin SDK changes quickly.
export const VERSION = "0.1.0";
export const OPENCLAW_VERSION = "2026.9.6";
