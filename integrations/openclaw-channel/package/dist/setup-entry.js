import { createRequire as __lineupCreateRequire } from "node:module";
const require = __lineupCreateRequire(import.meta.url);
import {
  lineupPlugin
} from "./chunks/chunk-E4I2K6RF.js";
import "./chunks/chunk-WKF5EYHC.js";

// src/setup-entry.ts
import { defineSetupPluginEntry } from "openclaw/plugin-sdk/channel-core";
var setup_entry_default = defineSetupPluginEntry(lineupPlugin);
export {
  setup_entry_default as default
};
