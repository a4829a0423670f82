// Files to and from the hub (hub/sdk/files.py): upload a file an agent made, download one the person attached.
// Over HTTP to the hub the credential names (`POST /api/files`, `GET /api/files/{id}`), the credential in the
// Authorization header (never in the URL) and the same TLS pin as the agent's socket. The body is streamed from the
// file and a download to disk streamed with `to`, so neither is held whole in memory.

import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { pipeline } from "node:stream/promises";

import type { Credential } from "./credentials.js";
import { SdkError } from "./errors.js";
import { openRequest, readBody, refusal } from "./http.js";
import type { StoredFile, UploadOptions } from "./tasks.js";

// A download larger than this is refused before it is read, unless `maxBytes` says otherwise.
const DEFAULT_MAX_DOWNLOAD = 1024 * 1024 * 1024;

const TYPES: Readonly<Record<string, string>> = {
  ".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv", ".json": "application/json",
  ".html": "text/html", ".htm": "text/html", ".xml": "application/xml", ".pdf": "application/pdf",
  ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
  ".svg": "image/svg+xml", ".zip": "application/zip", ".gz": "application/gzip", ".tar": "application/x-tar",
  ".log": "text/plain", ".diff": "text/x-diff", ".patch": "text/x-diff", ".js": "text/javascript",
  ".ts": "text/plain", ".py": "text/x-python", ".yaml": "application/yaml", ".yml": "application/yaml",
};

export function guessMimeType(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

function path(credential: Credential, rest: string): string {
  return new URL(credential.hubUrl).pathname.replace(/\/+$/, "") + rest;
}

function origin(credential: Credential): string {
  return new URL(credential.hubUrl).origin;
}

/** Store a file (a path, or the bytes themselves) on the hub: `{fileId, name, mimeType, size, sha256}`. The hub judges
 * the type from the bytes all the same. Rejects with HubError `invalid_payload` (larger than the hub's
 * max_file_bytes) or `rate_limited` (this agent keeps max_agent_file_bytes already; `details.limit` says which). */
export async function uploadFile(credential: Credential, source: string | Uint8Array, options: UploadOptions & {
  timeoutMs?: number } = {}): Promise<StoredFile> {
  const name = options.name ?? (typeof source === "string" ? basename(source) : "file");
  const mimeType = options.mimeType ?? guessMimeType(name);
  const size = typeof source === "string" ? statSync(source).size : source.byteLength;
  const body = typeof source === "string" ? createReadStream(source) : source;
  let response;
  try {
    response = await openRequest(origin(credential) + path(credential, "/api/files"), {
      method: "POST", body, fingerprint: credential.tlsFingerprint, timeoutMs: options.timeoutMs ?? 300_000,
      headers: { Authorization: `Bearer ${credential.credential}`, "Content-Type": mimeType,
        "Content-Length": String(size), "X-File-Name": encodeURIComponent(name) },
    });
  } catch (error) {
    if (error instanceof SdkError) throw error;
    throw new SdkError(`Could not upload ${JSON.stringify(name)} to ${credential.hubUrl}: ${(error as Error).message}`);
  }
  if (response.statusCode !== 201) throw await refusal(response, ["unauthorized"]);
  const answer = JSON.parse((await readBody(response, 1024 * 1024)).toString("utf8")) as StoredFile;
  if (typeof answer?.fileId !== "string") throw new SdkError("The hub's answer to the upload has no fileId.");
  return answer;
}

export interface DownloadOptions {
  /** Write the file here (replaced whole: written beside it, then renamed) and resolve with the path. */
  to?: string;
  maxBytes?: number;
  timeoutMs?: number;
}

/** A file's bytes, or with `to`, the path they were written to. An agent may read the files it uploaded and those
 * attached where it takes part; any other is HubError("not_found"). */
export async function downloadFile(credential: Credential, fileId: string, options: DownloadOptions = {}):
  Promise<Buffer | string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOWNLOAD;
  let response;
  try {
    response = await openRequest(origin(credential) + path(credential, `/api/files/${encodeURIComponent(fileId)}`), {
      method: "GET", fingerprint: credential.tlsFingerprint, timeoutMs: options.timeoutMs ?? 300_000,
      headers: { Authorization: `Bearer ${credential.credential}` },
    });
  } catch (error) {
    if (error instanceof SdkError) throw error;
    throw new SdkError(`Could not download file ${fileId} from ${credential.hubUrl}: ${(error as Error).message}`);
  }
  if (response.statusCode !== 200) throw await refusal(response, ["unauthorized"]);
  const length = Number(response.headers["content-length"] ?? -1);
  if (length > maxBytes) {
    response.destroy();
    throw new SdkError(`File ${fileId} is ${length} bytes, more than maxBytes=${maxBytes}.`);
  }
  if (options.to === undefined) return await readBody(response, maxBytes);
  const to = options.to;
  const temp = join(dirname(to), `.${basename(to)}.${randomBytes(4).toString("hex")}`);
  let written = 0;
  try {
    response.on("data", (chunk: Buffer) => {
      written += chunk.length;
      if (written > maxBytes) response.destroy(new SdkError(`File ${fileId} is more than maxBytes=${maxBytes}.`));
    });
    await pipeline(response, createWriteStream(temp, { mode: 0o600 }));
    renameSync(temp, to);
  } catch (error) {
    try { unlinkSync(temp); } catch { /* not written */ }
    throw error;
  }
  return to;
}
