import { createRequire as __lineupCreateRequire } from "node:module";
const require = __lineupCreateRequire(import.meta.url);
import {
  lineupPlugin,
  runtimeStore
} from "./chunks/chunk-6FZVGJN3.js";
import "./chunks/chunk-WKF5EYHC.js";

// src/index.ts
import { defineChannelPluginEntry } from "openclaw/plugin-sdk/channel-core";
var src_default = defineChannelPluginEntry({
  id: "lineup",
  name: "LineUp",
  description: "LineUp as an OpenClaw channel: conversations and exec approvals on your phone.",
  plugin: lineupPlugin,
  setRuntime: runtimeStore.setRuntime
});
export {
  src_default as default
};
