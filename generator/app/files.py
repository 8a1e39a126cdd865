"""Files as the front ends write them: atomic, never over a file without --force, checked before any work."""

from __future__ import annotations

from generator.output.files import check_free, check_writable, slug, write_atomic
from generator.output.staging import Staging

__all__ = ["Staging", "check_free", "check_writable", "slug", "write_atomic"]
