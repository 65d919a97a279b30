"""Text that came from a bot, made safe to show: control characters escaped, length capped.

Everything a bot wrote that reaches a terminal, a log or a fault's ``detail``
goes through here, so no bot can send a terminal escape sequence (or a
carriage return that hides a line, or a bidirectional override) to a person.
"""

from __future__ import annotations

import re

#: longest fault detail recorded (characters)
DETAIL_LIMIT = 500

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` with control characters (ESC, CR, C1, bidi overrides) shown as ``\\xNN`` / ``\\uNNNN``.

    Newlines and tabs are shown as ``\\n`` and ``\\t``: one bot line stays one line.
    """
    return _CONTROL.sub(_shown, text).replace("\n", "\\n").replace("\t", "\\t")


def cap_detail(text: str) -> str:
    """A fault detail fit for a record, a terminal and a log: escaped, at most ``DETAIL_LIMIT`` characters."""
    text = escape(text)
    if len(text) > DETAIL_LIMIT:
        text = text[:DETAIL_LIMIT] + f"... [{len(text) - DETAIL_LIMIT} more characters]"
    return text
