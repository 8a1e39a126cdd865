"""Translations: gettext catalogs (Babel .po files) shipped with the templates."""

from __future__ import annotations

import functools
import gettext
import io

from generator.core.errors import AttnsheetError

SOURCE_LANGUAGE = "en"
"""The language the templates are written in; it needs no catalog."""
DOMAIN = "attnsheet"


def _locale_dir():
    from generator.sheet.assets import (
        templates_dir,  # one place knows where templates live
    )

    return templates_dir() / "locale"


def languages() -> tuple[str, ...]:
    """Every language a sheet can be printed in: English plus one per catalog."""
    found = sorted(p.parent.parent.name for p in _locale_dir().glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (SOURCE_LANGUAGE, *[lang for lang in found if lang != SOURCE_LANGUAGE])


@functools.lru_cache(maxsize=None)
def translations(lang: str) -> gettext.NullTranslations:
    """The translations for `lang`, compiled from its .po catalog on first use."""
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    path = _locale_dir() / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        raise AttnsheetError(f"--lang: no catalog for {lang!r} (available: {', '.join(languages())})")
    # Babel reads the .po and writes the compiled form in memory: no build step, no binaries in git.
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)
