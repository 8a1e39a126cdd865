"""Which characters this machine can print: the bundled fonts and the system's, through fontconfig."""

from __future__ import annotations

import bisect
import functools
import shutil
import subprocess
import unicodedata
from typing import Optional

from generator.sheet.assets import templates_dir

TEXT_FONTS = ("Inter-Regular.subset.otf", "Inter-SemiBold.subset.otf")
"""The bundled fonts names and titles are set in; WeasyPrint falls back to fontconfig beyond them."""


@functools.lru_cache(maxsize=1)
def _bundled() -> frozenset[int]:
    from fontTools.ttLib import TTFont  # only when a name needs checking

    chars: set[int] = set()
    for name in TEXT_FONTS:
        chars.update(TTFont(templates_dir() / "fonts" / name, lazy=True).getBestCmap())
    return frozenset(chars)


@functools.lru_cache(maxsize=1)
def _system() -> Optional[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The installed fonts' characters as sorted, merged ranges (starts, ends); None when
    fontconfig's tools are missing (then nothing can be said)."""
    tool = shutil.which("fc-list")
    if tool is None:
        return None
    try:
        listing = subprocess.run(
            [tool, "--format", "%{charset}\n"], capture_output=True, text=True, timeout=20, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    ranges = []
    for part in listing.split():
        lo, _, hi = part.partition("-")
        try:
            ranges.append((int(lo, 16), int(hi or lo, 16)))
        except ValueError:
            continue
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple(r[0] for r in merged), tuple(r[1] for r in merged)


def unprintable(text: str) -> str:
    """The characters of `text` that no bundled or installed font has (spaces and invisible
    format characters, such as joiners, need none); empty when that cannot be known."""
    system = _system()
    if system is None:
        return ""
    starts, ends = system
    missing = []
    for ch in dict.fromkeys(text):
        code = ord(ch)
        if ch.isspace() or unicodedata.category(ch) in ("Cf", "Mn") or code in _bundled():
            continue
        at = bisect.bisect_right(starts, code) - 1
        if at < 0 or code > ends[at]:
            missing.append(ch)
    return "".join(missing)
