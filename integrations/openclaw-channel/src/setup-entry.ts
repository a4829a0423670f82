import { defineSetupPluginEntry } from "openclaw/plugin-sdk/channel-core";

import { lineupPlugin } from "./channel.js";

export default defineSetupPluginEntry(lineupPlugin);
