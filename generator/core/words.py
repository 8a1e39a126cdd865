"""Words marked for the catalog where they are declared and translated where they are shown."""


def N_(text: str) -> str:
    """Mark `text` for the catalog (`make messages`); it is translated where it is shown."""
    return text
