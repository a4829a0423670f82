// The OpenClaw runtime handed to the plugin at registration (`setRuntime`), and the hub connection of each running
// account, for the outbound adapter (OpenClaw sending on its own: a follow-up, the message tool).

import type { OpenClawConfig, PluginRuntime } from "openclaw/plugin-sdk/channel-core";
import { createPluginRuntimeStore } from "openclaw/plugin-sdk/runtime-store";

import type { HubLink } from "./link.js";

export const runtimeStore = createPluginRuntimeStore<PluginRuntime>({
  pluginId: "lineup",
  errorMessage: "The LineUp channel's OpenClaw runtime is not set yet (the plugin is not fully loaded).",
});

export const links = new Map<string, HubLink>();

/** The config each running account started with (to tell the Gateway "deny" as it stops: src/approvals.ts). */
export const configs = new Map<string, OpenClawConfig>();
