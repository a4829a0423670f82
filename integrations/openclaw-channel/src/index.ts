// @lineup-agents/openclaw-channel: LineUp as an OpenClaw channel (README.md). OpenClaw loads this entry in the
// Gateway; `setup-entry.ts` is its light twin for setup flows.

import { defineChannelPluginEntry } from "openclaw/plugin-sdk/channel-core";

import { lineupPlugin } from "./channel.js";
import { runtimeStore } from "./runtime.js";

export default defineChannelPluginEntry({
  id: "lineup",
  name: "LineUp",
  description: "LineUp as an OpenClaw channel: conversations and exec approvals on your phone.",
  plugin: lineupPlugin,
  setRuntime: runtimeStore.setRuntime,
});
