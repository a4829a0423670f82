"""The page's sealing (ui/lib/relay-seal.js, WebCrypto in Chromium) against the hub's (hub/relay/seal.py).

Both ends derive the same keys from one agreement and open each other's payloads; the page refuses a tampered,
replayed, reordered or foreign one as the hub does; its keys cannot be read out; its counters survive a reload.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser

from hub.relay import seal
from hub.relay.seal import TO_DEVICE, TO_HUB
from tests.support.hubproc import HubProcess

IDS = {"hub_id": "hub-interop", "uid": "alice", "device_id": "dev-phone"}
PAYLOAD = {"type": 5201, "envelope": {"type": "message.created", "payload": {"content": "你好 tangerine"}}}


def test_page_and_hub_agree_and_open_each_others_payloads(hub: HubProcess, browser: Browser) -> None:
    context = browser.new_context(base_url=hub.base, service_workers="block")
    try:
        page = context.new_page()
        page.goto("/-/health")  # the hub's origin: http://127.0.0.1 is a secure context, WebCrypto is there
        public = page.evaluate("""async () => {
            window.S = await import('/lib/relay-seal.js');
            window.start = await S.startAgreement();
            return window.start.publicKey; }""")
        keys, hub_public = seal.agree(public, **IDS)
        page.evaluate("""async (answer) => {
            window.keys = await S.finishAgreement(start, answer, { hubId: 'hub-interop', uid: 'alice' }); }""",
                      {"hubPublicKey": hub_public, "kid": keys.kid, "deviceId": IDS["device_id"]})
        assert page.evaluate("() => [start.privateKey.extractable, keys.toHub.extractable, keys.toDevice.extractable]"
                             ) == [False, False, False]

        sealed = seal.seal(keys, TO_DEVICE, PAYLOAD, 41)
        assert page.evaluate("async (s) => S.openWith(keys, s, 40)", sealed) == [PAYLOAD, 41]
        from_page = page.evaluate("async (p) => S.sealWith(keys, p, 9)", {"type": 5202, "op": "resume"})
        assert set(from_page) == {"type", "v", "kid", "n", "iv", "ct"} and from_page["type"] == 5203
        assert seal.open_sealed(keys, TO_HUB, from_page, 8) == ({"type": 5202, "op": "resume"}, 9)

        body = bytearray(seal.unb64(sealed["ct"]))
        body[-1] ^= 1
        variants: list[tuple[dict[str, Any], int]] = [
            ({**sealed, "ct": seal.b64(bytes(body))}, 0), ({**sealed, "n": 42}, 0), (sealed, 41), (sealed, 50),
            ({**sealed, "kid": "someone-else"}, 0), (from_page, 0)]
        reasons = page.evaluate("""async (variants) => Promise.all(variants.map(([s, last]) =>
            S.openWith(keys, s, last).then(() => 'opened', (e) => e.reason)))""", variants)
        assert reasons == ["tampered", "tampered", "replayed", "replayed", "unknown_key", "tampered"]

        # Kept on the device: the keys in IndexedDB, the counters across a reload, only ever going up.
        first = page.evaluate("""async () => { await S.saveSeal(keys); const c = await S.loadSeal(keys.kid);
            const a = await c.seal({ type: 5202, op: 'resume' }); const b = await c.seal({ type: 5202, op: 'resume' });
            return [a.n, b.n]; }""")
        assert first[0] < first[1]
        page.reload()
        after = page.evaluate(f"""async (s) => {{ const S = await import('/lib/relay-seal.js');
            const c = await S.loadSeal({keys.kid!r}); const n = (await c.seal({{ type: 5202 }})).n;
            const opened = await c.open(s); let again;
            try {{ await c.open(s); again = 'opened'; }} catch (e) {{ again = e.reason; }}
            return [n, opened, again, (await S.loadSeal('other')) === null]; }}""",
                              seal.seal(keys, TO_DEVICE, PAYLOAD, 77))
        assert after[0] > first[1] and after[1] == PAYLOAD and after[2] == "replayed" and after[3] is True
        assert seal.open_sealed(keys, TO_HUB, page.evaluate(f"""async () => {{
            const S = await import('/lib/relay-seal.js'); const c = await S.loadSeal({keys.kid!r});
            return c.seal({{ type: 5201, envelope: {{ id: 'x' }} }}); }}"""), after[0])[0]["envelope"] == {"id": "x"}
        page.evaluate("async () => { const S = await import('/lib/relay-seal.js'); await S.forgetSeal(); }")
        assert page.evaluate(f"async () => (await import('/lib/relay-seal.js')).loadSeal({keys.kid!r})") is None
    finally:
        context.close()
