import { createRequire as __lineupCreateRequire } from "node:module";
const require = __lineupCreateRequire(import.meta.url);
import {
  lineupPlugin,
  onGatewayStopping,
  runtimeStore
} from "./chunks/chunk-E4I2K6RF.js";
import "./chunks/chunk-WKF5EYHC.js";

// src/index.ts
import { defineChannelPluginEntry } from "openclaw/plugin-sdk/channel-core";
var src_default = defineChannelPluginEntry({
  id: "lineup",
  name: "LineUp",
  description: "LineUp as an OpenClaw channel: conversations and exec approvals on your phone.",
  plugin: lineupPlugin,
  setRuntime: runtimeStore.setRuntime,
  // The Gateway says it stops before it drains its work (the typed `gateway_stop` comes only after the drain).
  registerFull: (api) => api.registerHook("gateway:shutdown", onGatewayStopping, {
    name: "lineup-gateway-stopping",
    description: "LineUp: end the approval cards still waiting, and tell OpenClaw deny, as the Gateway stops."
  })
});
export {
  src_default as default
};
