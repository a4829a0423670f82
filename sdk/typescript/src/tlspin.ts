// Certificate pinning for hubs with a self-signed certificate: trust exactly the fingerprint the hub showed
// (`lineup serve` prints "TLS certificate SHA-256 fingerprint: AB:CD:…", the SHA-256 of the DER certificate; the
// pairing command carries it as --fingerprint). As hub/sdk/tlspin.py: the pin is checked on the very connection
// that then carries the request, right after the TLS handshake and before a byte of it is sent.

import { createHash } from "node:crypto";
import { isIP } from "node:net";
import * as tls from "node:tls";

import { PinMismatch, SdkError } from "./errors.js";

/** `AB:CD:…` (64 hex digits in pairs, upper case) from any spelling the hub or a person writes. */
export function normaliseFingerprint(fingerprint: string): string {
  const hex = fingerprint.replace(/[:\s]/g, "").toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new SdkError("A TLS fingerprint is 64 hex digits (SHA-256), as the hub prints it.");
  }
  return hex.match(/../g)!.join(":");
}

/** The fingerprint of a DER certificate, as the hub prints it. */
export function fingerprintOf(der: Uint8Array): string {
  return normaliseFingerprint(createHash("sha256").update(der).digest("hex"));
}

/** A TLS connection to `host:port` whose certificate has the pinned fingerprint (no CA check: the pin is the trust),
 * or PinMismatch / SdkError. Nothing is written on it before the check. */
export async function pinnedSocket(host: string, port: number, fingerprint: string, timeoutMs = 10_000,
  alpn?: string[]): Promise<tls.TLSSocket> {
  const pin = normaliseFingerprint(fingerprint);
  const socket = tls.connect({
    host, port, rejectUnauthorized: false,
    ...(isIP(host) ? {} : { servername: host }),
    ...(alpn ? { ALPNProtocols: alpn } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SdkError(`No TLS handshake with ${host}:${port} within ${timeoutMs} ms.`)),
        timeoutMs);
      socket.once("secureConnect", () => { clearTimeout(timer); resolve(); });
      socket.once("error", (error) => { clearTimeout(timer); reject(error); });
    });
  } catch (error) {
    socket.destroy();
    throw error;
  }
  const certificate = socket.getPeerCertificate(false);
  const der = certificate && "raw" in certificate ? certificate.raw : undefined;
  if (!der || fingerprintOf(der) !== pin) {
    socket.destroy();
    throw new PinMismatch("The hub's TLS certificate does not match the pinned fingerprint: someone may be " +
      "intercepting the connection, or the hub's certificate changed. Check the fingerprint the hub prints and " +
      "pair again.");
  }
  socket.on("error", () => {}); // later errors reach the request or socket that takes it over
  return socket;
}
