"""Private sheet codes: a batch made with the teacher's secret, whose sheets only that secret redraws.

A private code wraps the public code of the same options and sheet index, with a *tag* in the
seed's place: the batch's numbers are drawn from HMAC(secret, tag), so the printed code names
the shape but not the numbers. Without the secret no one (a student with the public tool
included) can rebuild the key; with it, `attnsheet key CODE --secret-file FILE` does.

Layout: version 5 (3 bits), 16 check bits (HMAC(secret, tag)'s first two bytes: a wrong secret
file is said as such, not silently used), then the inner public code's symbols, 5 bits each, without its
check symbol (the private code carries its own).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.draw.codes import _VALUE, ALPHABET, BitWriter, CodeError, _check_symbol, pack, unpack
from generator.draw.options import MAX_SEED
from generator.draw.sheetcodes import PRIVATE_VERSION, Decoded, coder, decode_code

SECRET_BYTES = 32
"""A secret's length: 256 bits, as HMAC-SHA256 wants."""
CHECK_BITS = 16
"""Bits of a private code that name its secret: another secret file passes one time in 65,536."""
MAX_TAG = 2**40 - 1
"""Largest tag: the seed's place in the inner code (a batch's own, or the --seed given)."""


class SecretError(CodeError):
    """A private code without its secret, or with another one."""


@dataclass(frozen=True)
class Secret:
    """A teacher's (or a server's) secret: it alone draws the numbers behind its private codes."""

    key: bytes
    """SECRET_BYTES random bytes."""

    def _mac(self, purpose: bytes, tag: int) -> bytes:
        return hmac.new(self.key, b"attnsheet/" + purpose + b"\0" + str(tag).encode(), hashlib.sha256).digest()

    def seed(self, tag: int) -> int:
        """The draw seed of the batch tagged `tag`."""
        return int.from_bytes(self._mac(b"seed", tag), "big") % (MAX_SEED + 1)

    def check(self, tag: int) -> int:
        """CHECK_BITS bits that tell this secret's codes from another's."""
        return int.from_bytes(self._mac(b"check", tag)[:2], "big")


def new_secret() -> Secret:
    """A fresh random secret."""
    return Secret(secrets.token_bytes(SECRET_BYTES))


def secret_text(secret: Secret) -> str:
    """A secret as its file holds it: one line of hex."""
    return secret.key.hex() + "\n"


def read_secret(path: Path) -> Secret:
    """The secret in a secret file (one line of 64 hex digits), or one line on why not."""
    try:
        text = path.read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        why = getattr(error, "strerror", None) or "not a secret file (64 hex digits)"
        raise SecretError(f"{path}: {why}") from None
    if len(key) != SECRET_BYTES:
        raise SecretError(f"{path}: not a secret file (64 hex digits, got {len(text)} characters)")
    return Secret(key)


def guard_secret(path: Path) -> Optional[str]:
    """A secret file others could read made readable by its owner alone: the words that say so
    (None when it was private already); a SecretError when it cannot be made private."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # reading it says why
    if not mode & 0o077:
        return None
    try:
        os.chmod(path, 0o600)
    except OSError as error:
        raise SecretError(
            f"{path} can be read by others and cannot be made private "
            f"({error.strerror or error}): run chmod 600 on it, or use another"
        ) from None
    return (
        f"{path} could be read by other users of this machine; it is now readable by its owner alone. "
        "Whoever read it can rebuild this secret's keys: make a new secret for the next batches if that worries you"
    )


def write_secret(path: Path) -> Secret:
    """A new secret, in a new file only its owner can read: never over an existing one (that is
    FileExistsError), and never seen half-written (written aside, then linked into place)."""
    secret = new_secret()
    aside = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secret_text(secret))
            f.flush()
            os.fsync(f.fileno())
        os.link(aside, path)  # atomic, and fails where a file already is
    finally:
        aside.unlink(missing_ok=True)
    return secret


def private_coder(options, tag: int, secret: Secret):
    """Private codes for the sheets of one batch: index -> code."""
    if not 0 <= tag <= MAX_TAG:
        raise CodeError(f"a private batch's seed must be 0 to {MAX_TAG}, got {tag}")
    inner = coder(options, tag)
    check = secret.check(tag)

    def code(index: int) -> str:
        symbols = "".join(inner(index).split("-"))[:-1]  # the inner code without its check symbol
        w = BitWriter()
        w.uint(PRIVATE_VERSION, 3)
        w.uint(check, CHECK_BITS)
        for ch in symbols:
            w.uint(_VALUE[ch], 5)
        return pack(w.bits)

    return code


@dataclass(frozen=True)
class PrivateCode:
    """What a private code says without its secret: the shape, the tag and the index, not the numbers."""

    inner: Decoded
    """The inner public code: options, tag (as its seed), index."""
    check: int
    """The secret's check bits."""
    code: str
    """The private code, as printed."""


def is_private(code: str) -> bool:
    """Whether `code` is a private code (a mistyped code is not: decoding it says why)."""
    try:
        return unpack(code).uint(3) == PRIVATE_VERSION
    except CodeError:
        return False


def read_private(code: str) -> Optional[PrivateCode]:
    """A private code's parts; None for any other code."""
    r = unpack(code)
    if r.uint(3) != PRIVATE_VERSION:
        return None
    check = r.uint(CHECK_BITS)
    values = []
    while len(r.bits) - r.pos >= 5:
        values.append(r.uint(5))
    r.finish()
    inner = "".join(ALPHABET[v] for v in values + [_check_symbol(values)])
    decoded = decode_code(inner)
    canonical = private_coder(decoded.options, decoded.seed, _Fixed(check))(decoded.index)
    return PrivateCode(decoded, check, canonical)


@dataclass(frozen=True)
class _Fixed:
    """A stand-in secret that only repeats a code's own check bits (to spell the code back)."""

    value: int

    def check(self, tag: int) -> int:
        return self.value


def private_problem(code: str, secret: Optional[Secret]):
    """The problem of a private code, drawn again with `secret`; a SecretError without it, or with another."""
    from dataclasses import replace

    from generator.draw.search import draw

    parts = read_private(code)
    if secret is None:
        raise SecretError(
            f"sheet {parts.code} has a private code: its key needs the teacher's secret file (--secret-file FILE)"
        )
    if secret.check(parts.inner.seed) != parts.check:
        raise SecretError(f"sheet {parts.code} was not made with this secret file")
    problem = draw(parts.inner.options, secret.seed(parts.inner.seed), count=1, start=parts.inner.index)[0]
    return replace(problem, code=parts.code)
