"""Where the bundled templates, stylesheets, fonts and catalogs are."""

from __future__ import annotations

from pathlib import Path


def templates_dir() -> Path:
    """Where the templates live: inside the installed package, or at the repository's top."""
    package = Path(__file__).resolve().parent.parent  # generator/
    packaged = package / "templates"  # where the wheel puts them
    return packaged if packaged.is_dir() else package.parent / "templates"
