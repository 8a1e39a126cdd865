"""A teacher's secret file, for private codes: read (made private where others could read it), or made on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from generator.core.errors import InputError


def load_secret(path: Optional[Path], make: bool = False) -> tuple[object, list[str]]:
    """The secret in `path` (None without one) and what to say of it: with `make`, a missing file
    is made, and said; one others could read is made private, and said."""
    from generator.draw.private import guard_secret, read_secret, write_secret

    if path is None:
        return None, []
    if make and not path.exists():
        try:
            secret = write_secret(path)
        except OSError as error:
            raise InputError(f"cannot make the secret file {path}: {error.strerror or error}") from None
        return secret, [
            f"made a new secret file {path} (readable by you alone): keep it, and keep it private — "
            "without it no key of this batch can be rebuilt, and with it anyone can"
        ]
    warning = guard_secret(path)
    return read_secret(path), [f"warning: {warning}"] if warning else []
