"""User text as data: names, titles and codes cleaned before they reach a sheet or a terminal."""

from __future__ import annotations

import unicodedata

MAX_FIELD = 200
"""Longest name, id or group kept: a sheet's line holds about 40 characters anyway."""

MAX_TITLE = 120
"""Longest title: two lines across the top of a sheet (a longer one is refused)."""

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Marks, embeddings, overrides and isolates that reorder text on screen (a name could hide in them)."""


def clean_text(value: str, limit: int = MAX_FIELD) -> str:
    """User text as plain text: control characters, bidi controls and lone surrogates dropped,
    spaces folded. Zero-width joiners stay: emoji and Persian and Indic spellings need them."""
    kept = []
    for ch in value:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs") or ch in BIDI_CONTROLS:
            kept.append(" " if ch in "\t\r\n" else "")
        else:
            kept.append(ch)
    text = " ".join("".join(kept).split())
    return text[:limit]
