// @lineup-agents/openclaw-channel: LineUp as an OpenClaw channel (README.md). OpenClaw loads this entry in the
// Gateway; `setup-entry.ts` is its light twin for setup flows.

import { defineChannelPluginEntry } from "openclaw/plugin-sdk/channel-core";

import { lineupPlugin, onGatewayStopping } from "./channel.js";
import { runtimeStore } from "./runtime.js";

export default defineChannelPluginEntry({
  id: "lineup",
  name: "LineUp",
  description: "LineUp as an OpenClaw channel: conversations and exec approvals on your phone.",
  plugin: lineupPlugin,
  setRuntime: runtimeStore.setRuntime,
  // The Gateway says it stops before it drains its work (the typed `gateway_stop` comes only after the drain).
  registerFull: (api) => api.registerHook("gateway:shutdown", onGatewayStopping, {
    name: "lineup-gateway-stopping",
    description: "LineUp: end the approval cards still waiting, and tell OpenClaw deny, as the Gateway stops.",
  }),
});
