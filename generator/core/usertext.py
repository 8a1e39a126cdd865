"""User text as data: names, titles and codes cleaned before they reach a sheet or a terminal."""

from __future__ import annotations

import codecs
import unicodedata
from typing import Optional

from generator.core.errors import InputError

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


def decode(data: bytes, label: str, encoding: Optional[str] = None) -> str:
    """Bytes as text: UTF-16 with a byte-order mark, UTF-8 (with or without one), or `encoding`."""
    if encoding is not None:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as error:
            raise InputError(f"cannot read {label}: not {encoding} text (byte {error.start})") from None
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as error:
            raise InputError(f"cannot read {label}: not UTF-16 text (byte {error.start})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"cannot read {label}: not UTF-8 text (byte {error.start}); a spreadsheet's export may be in "
            f"another encoding: try --encoding cp1252 (Windows) or --encoding latin-1"
            if encoding is None and label != "stdin"
            else f"cannot read {label}: not UTF-8 text (byte {error.start})"
        ) from None
