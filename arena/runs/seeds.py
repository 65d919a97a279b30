"""A run's secret, and the deal and bot seeds derived from it with a keyed hash.

Every seed of a tournament or comparison follows from one secret:

- without a ``seed`` in the file (or ``--seed``), the first run draws 128 bits
  from the operating system and keeps them in the store (never printed,
  exported or sent to a bot), so reruns give the same games and nobody can
  compute a deal;
- with a ``seed``, the secret is that public number: anyone holding the file
  can compute every deal (reproducible by design, not for contests).

Seeds are keyed BLAKE2b of the secret, with a *personalisation* per domain
(``deal`` and ``bot``), so a bot's seed says nothing about any deal, and one
deal's seed (which records carry after the game) says nothing about another's.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

SECRET_BYTES = 16
DEAL_DOMAIN = "arena-deal"
BOT_DOMAIN = "arena-bot"


def draw_secret() -> bytes:
    """A fresh 128-bit secret from the operating system."""
    return os.urandom(SECRET_BYTES)


def public_secret(seed: int) -> bytes:
    """The secret of a run whose seed is public: the seed itself, in a form no drawn secret takes."""
    return b"arena public seed " + str(seed).encode()


def derive(secret: bytes, domain: str, *parts: Any) -> int:
    """A 63-bit seed for ``parts`` in ``domain`` under ``secret``; unpredictable without the secret."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8, key=secret,
                             person=domain.encode()[:16]).digest()
    return int.from_bytes(digest, "big") >> 1


def deal_seed(secret: bytes, *parts: Any) -> int:
    """The seed that shuffles a deal named by ``parts``."""
    return derive(secret, DEAL_DOMAIN, *parts)


def bot_seed(secret: bytes, *parts: Any) -> int:
    """The seed handed to a bot in ``start`` for the game position named by ``parts``."""
    return derive(secret, BOT_DOMAIN, *parts)
