"""The random streams of the table draws, each derived from the tournament's seed and a label."""

from __future__ import annotations

import hashlib


def derived(seed: bytes | int, *labels: str) -> int:
    """A 64-bit integer from ``seed`` (a public seed or a secret) and ``labels`` (SHA-256), the same everywhere."""
    raw = seed if isinstance(seed, bytes) else str(seed).encode()
    text = b"".join(b"\0" + label.encode() for label in labels)
    return int.from_bytes(hashlib.sha256(raw + text).digest()[:8], "little")
