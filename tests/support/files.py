"""Files for the upload tests: real PNGs of a chosen size (noise, so they do not compress), and the like."""

from __future__ import annotations

import random
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, seed: int = 1) -> bytes:
    """An RGB PNG of `width`×`height` pixels of noise: about 3 × width × height bytes (noise does not compress)."""
    rng = random.Random(seed)
    rows = b"".join(b"\0" + rng.randbytes(width * 3) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 1))
            + _chunk(b"IEND", b""))


def png_of_size(size: int, seed: int = 1) -> bytes:
    """A PNG of noise of about `size` bytes (square)."""
    side = max(1, int((size / 3) ** 0.5))
    return png(side, side, seed)
