// Served at /plugins/everyhook/static/everyhook.js by the hub (a package plugin's static/ folder).
export const EVERYHOOK = "everyhook static module";
