"""Each student's way to their own sheet: an unguessable link, or the code and a short PIN."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
from urllib.parse import urlsplit
from dataclasses import dataclass
from typing import Iterable

from generator.draw.private import Secret
from generator.output.manifest import code_key


@dataclass(frozen=True)
class StudentLink:
    """How a student reaches their own sheet: a link, or the code and a PIN typed in."""

    index: int
    """The sheet's 1-based index in its batch."""
    code: str
    """The sheet's code."""
    token: str
    """The unguessable part of the link /s/<token>."""
    pin: str
    """A short PIN printed on the sheet, for a student without a phone."""


PIN_DIGITS = 6
"""A PIN's length: with the code, one chance in a million to guess a sheet."""


def _mac(secret: Secret, purpose: str, batch: str, code: str) -> bytes:
    message = f"attnsheet/{purpose}\0{batch}\0{code_key(code)}".encode()
    return hmac.new(secret.key, message, hashlib.sha256).digest()


def token(secret: Secret, batch: str, code: str) -> str:
    """The link's token of sheet `code` of `batch`: 128 bits of HMAC(secret, batch and code), 26
    letters and digits (the same code printed in two batches has two links)."""
    return base64.b32encode(_mac(secret, "student", batch, code)[:16]).decode().rstrip("=").lower()


def pin(secret: Secret, batch: str, code: str) -> str:
    """The PIN of sheet `code` of `batch`, printed on it."""
    return f"{int.from_bytes(_mac(secret, 'pin', batch, code)[:8], 'big') % 10**PIN_DIGITS:0{PIN_DIGITS}d}"


def student_links(secret: Secret, batch: str, sheets: Iterable[tuple[int, str]]) -> list[StudentLink]:
    """Every sheet's link and PIN, from a batch's name and its sheets' (index, code)."""
    return [
        StudentLink(int(index), code_key(code), token(secret, batch, code), pin(secret, batch, code))
        for index, code in sheets
    ]


def manifest_sheets(manifest: dict) -> list[tuple[int, str]]:
    """A manifest's sheets as (index, code)."""
    return [(int(s["index"]), str(s["code"])) for s in manifest["sheets"]]


def opens_only_here(url: str) -> bool:
    """Whether links under `url` open only on the server's own computer (localhost, a loopback
    address): printed in a QR code, no student's phone can open them."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: another computer may well resolve it
        return False
