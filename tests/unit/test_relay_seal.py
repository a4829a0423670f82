"""hub/relay/seal.py: the agreement, sealing and opening, and every way a payload is refused."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from hub.relay import seal
from hub.relay.seal import TO_DEVICE, TO_HUB, DeviceKeys, SealError

IDS: dict[str, Any] = {"hub_id": "hub-1", "uid": "alice", "device_id": "dev-1"}


def pair(**ids: str) -> tuple[DeviceKeys, DeviceKeys]:
    """(the hub's keys, the device's keys), each end computing its own, as the page and the hub do."""
    ids = {**IDS, **ids}
    device = ec.generate_private_key(ec.SECP256R1())
    device_public = seal.public_raw(device)
    hub_keys, hub_public_b64 = seal.agree(seal.b64(device_public), **ids)
    hub_public = seal.unb64(hub_public_b64)
    shared = device.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), hub_public))
    return hub_keys, seal.derive(shared, device_public, hub_public, kid=hub_keys.kid, **ids)


def test_both_ends_derive_the_same_keys_and_each_direction_has_its_own() -> None:
    hub, device = pair()
    assert (hub.to_device, hub.to_hub, hub.kid) == (device.to_device, device.to_hub, device.kid)
    assert hub.to_device != hub.to_hub and len(hub.to_device) == 32
    other, _ = pair()
    assert other.to_device != hub.to_device and other.kid != hub.kid  # a fresh pair each time


def test_a_sealed_payload_opens_at_the_other_end_and_shows_nothing_of_itself() -> None:
    hub, device = pair()
    payload = {"type": 5201, "envelope": {"type": "message.created", "payload": {"content": "tangerine-42"}}}
    sealed = seal.seal(hub, TO_DEVICE, payload, 7)
    assert set(sealed) == {"type", "v", "kid", "n", "iv", "ct"} and sealed["type"] == 5203 and sealed["n"] == 7
    assert "tangerine" not in str(sealed) and "message.created" not in str(sealed)
    assert seal.open_sealed(device, TO_DEVICE, sealed, 6) == (payload, 7)
    back = seal.seal(device, TO_HUB, {"type": 5202, "op": "resume"}, 1)
    assert seal.open_sealed(hub, TO_HUB, back, 0) == ({"type": 5202, "op": "resume"}, 1)
    assert seal.seal(hub, TO_DEVICE, payload, 8)["iv"] != seal.seal(hub, TO_DEVICE, payload, 8)["iv"]  # fresh nonce


def refusal(keys: DeviceKeys | None, sealed: dict[str, object], last: int = 0, direction: str = TO_DEVICE) -> str:
    with pytest.raises(SealError) as refused:
        seal.open_sealed(keys, direction, sealed, last)
    return refused.value.reason


def test_tampered_replayed_reordered_and_foreign_payloads_are_refused() -> None:
    hub, device = pair()
    sealed = seal.seal(hub, TO_DEVICE, {"type": 5201, "envelope": {}}, 10)
    flipped = seal.unb64(str(sealed["ct"]))
    flipped = bytes([flipped[0] ^ 1]) + flipped[1:]
    assert refusal(device, {**sealed, "ct": seal.b64(flipped)}) == "tampered"
    assert refusal(device, {**sealed, "n": 11}) == "tampered"  # the counter is bound: it cannot be moved up
    assert refusal(device, {**sealed, "iv": seal.b64(b"\0" * 12)}) == "tampered"
    assert refusal(device, sealed, direction=TO_HUB) == "tampered"  # reflected back to its sender
    assert refusal(device, sealed, last=10) == "replayed"  # seen
    assert refusal(device, sealed, last=12) == "replayed"  # behind a later one: reordered
    assert refusal(device, {**sealed, "kid": "other"}) == "unknown_key"
    assert refusal(None, sealed) == "unknown_key"
    assert refusal(device, {**sealed, "v": 2}) == "malformed"
    assert refusal(device, {**sealed, "n": "10"}) == "malformed"
    assert refusal(device, {**sealed, "ct": 5}) == "tampered"


def test_keys_are_bound_to_the_hub_the_uid_and_the_device() -> None:
    device = ec.generate_private_key(ec.SECP256R1())
    hub_private = ec.generate_private_key(ec.SECP256R1())
    shared = device.exchange(ec.ECDH(), hub_private.public_key())
    raw = (seal.public_raw(device), seal.public_raw(hub_private))
    base = seal.derive(shared, *raw, kid="k", **IDS)
    for change in ({"hub_id": "hub-2"}, {"uid": "bob"}, {"device_id": "dev-2"}):
        assert seal.derive(shared, *raw, kid="k", **{**IDS, **change}).to_device != base.to_device
    bob = DeviceKeys("k", "bob", base.to_device, base.to_hub)  # the same key, another uid in the associated data
    assert refusal(bob, seal.seal(base, TO_DEVICE, {"type": 5201}, 1)) == "tampered"


def test_a_public_key_that_is_not_a_p256_point_is_refused_and_keys_never_print() -> None:
    for bad in ("", "not base64!", seal.b64(b"\x04" + b"\1" * 64), seal.b64(b"\x04" * 10)):
        with pytest.raises(ValueError):
            seal.agree(bad, **IDS)
    hub, _ = pair()
    assert hub.to_device.hex() not in repr(hub) and str(hub.to_device) not in repr(hub)
    with pytest.raises(ValueError):
        seal.seal(hub, TO_DEVICE, {}, 0)
