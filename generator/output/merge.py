"""Several PDF files, page after page, as one: how combined files are built from parts.

A combined file is rendered in parts (a few sheets each) so that every job process can work
on it and no process holds the layout of hundreds of pages. The parts are then written out
one after another, each read with pikepdf (qpdf) and its objects copied under new numbers,
then let go: a file of any size is written with the memory of one part. What qpdf writes is
what we write (every object is qpdf's own serialisation); we only renumber the references.
"""

from __future__ import annotations

import hashlib
import io
import re
from typing import Iterable, Iterator

import pikepdf

from generator.output.paint import FONT_KEY

INHERITED = ("/MediaBox", "/CropBox", "/Resources", "/Rotate")
"""Page attributes a part may keep on its page tree rather than on each page."""

CATALOG, PAGES = 1, 2
"""The object numbers of the combined file's catalog and page tree, written last."""

_TOKEN = re.compile(rb"\(|<<|>>|<|(\d+) (\d+) R\b")
"""What matters while renumbering: a string's start (skipped whole) or a reference."""


def merge(parts: Iterable[bytes]) -> bytes:
    """The pages of `parts`, in order, as one PDF (see `merge_chunks`)."""
    return b"".join(merge_chunks(parts))


def merge_chunks(parts: Iterable[bytes]) -> Iterator[bytes]:
    """The pages of `parts` (PDF files), in order, as one PDF written a piece at a time, with
    the first part's metadata and language, every part's bookmarks, and one copy of each panel
    font subset (their names are tagged from a hash of the font program, so the same name is the
    same font; WeasyPrint's own subsets differ from part to part and stay)."""
    out = _Writer()
    yield out.emit(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    pages: list[int] = []
    marks: list[tuple[str, int]] = []
    fonts: dict[str, int] = {}  # a panel font's BaseFont -> its number in the combined file
    info, lang = None, None
    for k, data in enumerate(parts):
        with pikepdf.open(io.BytesIO(data)) as source:
            if k == 0:
                info = {key: value.unparse(resolved=True) for key, value in source.docinfo.items()}
                lang = source.Root.get("/Lang")
                lang = None if lang is None else lang.unparse(resolved=True)
            marks += [(title, len(pages) + index) for title, index in _bookmarks(source)]
            for chunk in _part(source, out, pages, fonts):
                yield chunk
    yield from out.finish(pages, marks, info, lang)


class _Writer:
    """Numbers and places of the objects written so far, and the bytes' hash (for /ID)."""

    def __init__(self) -> None:
        self.offsets: dict[int, int] = {}
        self.at = 0
        self.next = PAGES + 1
        self.digest = hashlib.md5(usedforsecurity=False)

    def emit(self, data: bytes) -> bytes:
        self.at += len(data)
        self.digest.update(data)
        return data

    def number(self) -> int:
        self.next += 1
        return self.next - 1

    def obj(self, number: int, body: bytes) -> bytes:
        self.offsets[number] = self.at
        return self.emit(b"%d 0 obj\n%s\nendobj\n" % (number, body))

    def finish(self, pages: list[int], marks: list[tuple[str, int]], info, lang) -> Iterator[bytes]:
        kids = b" ".join(b"%d 0 R" % p for p in pages)
        yield self.obj(PAGES, b"<< /Type /Pages /Kids [ %s ] /Count %d >>" % (kids, len(pages)))
        catalog = b"/Type /Catalog /Pages %d 0 R" % PAGES
        if marks:
            outline, first = self.number(), self.next
            items = list(range(first, first + len(marks)))
            self.next += len(marks)
            for i, (title, page) in enumerate(marks):
                links = b"".join(
                    [
                        b" /Prev %d 0 R" % items[i - 1] if i else b"",
                        b" /Next %d 0 R" % items[i + 1] if i + 1 < len(items) else b"",
                    ]
                )
                yield self.obj(
                    items[i],
                    b"<< /Title %s /Parent %d 0 R /Dest [ %d 0 R /Fit ]%s >>"
                    % (pikepdf.String(title).unparse(), outline, pages[page], links),
                )
            yield self.obj(
                outline,
                b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (items[0], items[-1], len(items)),
            )
            catalog += b" /Outlines %d 0 R" % outline
        if lang is not None:
            catalog += b" /Lang " + lang
        yield self.obj(CATALOG, b"<< " + catalog + b" >>")
        trailer = b"/Root %d 0 R" % CATALOG
        if info:
            number = self.number()
            yield self.obj(number, b"<< " + b" ".join(k.encode() + b" " + v for k, v in info.items()) + b" >>")
            trailer += b" /Info %d 0 R" % number
        size = self.next
        table = [b"xref\n0 %d\n0000000000 65535 f \n" % size]
        table += [
            b"%010d 00000 n \n" % self.offsets[n] if n in self.offsets else b"0000000000 65535 f \n"
            for n in range(1, size)
        ]
        ident = self.digest.hexdigest().encode()  # from the content: the same parts, the same bytes
        start = self.at
        yield b"".join(table) + b"trailer\n<< /Size %d %s /ID [ <%s> <%s> ] >>\nstartxref\n%d\n%%%%EOF\n" % (
            size,
            trailer,
            ident,
            ident,
            start,
        )


def _part(source: pikepdf.Pdf, out: _Writer, pages: list[int], fonts: dict[str, int]) -> Iterator[bytes]:
    """Every object a part's pages use, renumbered, and its pages added to `pages`."""
    numbers: dict[tuple[int, int], int] = {}  # the part's (number, generation) -> the combined file's
    todo: list[pikepdf.Object] = []

    def ref(objgen: tuple[int, int]) -> int:
        if objgen not in numbers:
            numbers[objgen] = out.number()
            todo.append(source.get_object(objgen))
        return numbers[objgen]

    for page in source.pages:
        for key in INHERITED:  # kept on the page itself: the part's page tree is not copied
            node = page.obj
            while key not in node and "/Parent" in node:
                node = node.Parent
            if key in node and node is not page.obj and key not in page.obj:
                page.obj[key] = node[key]
        for name, font in page.obj.get("/Resources", {}).get("/Font", {}).items():
            if name.startswith(f"/{FONT_KEY}") and font.is_indirect:
                base = str(font.BaseFont)
                if base in fonts:
                    numbers.setdefault(font.objgen, fonts[base])  # written with an earlier part
                else:
                    fonts[base] = ref(font.objgen)
        del page.obj["/Parent"]
        pages.append(ref(page.obj.objgen))
    while todo:
        obj = todo.pop(0)
        number = numbers[obj.objgen]
        if isinstance(obj, pikepdf.Stream):
            raw = obj.read_raw_bytes()
            obj.stream_dict.Length = len(raw)
            body = renumbered(obj.stream_dict.unparse(resolved=True), ref) + b"\nstream\n" + raw + b"\nendstream"
        else:
            body = renumbered(obj.unparse(resolved=True), ref)
            if number in pages[-len(source.pages) :]:
                body = body[: body.rindex(b">>")] + b" /Parent %d 0 R >>" % PAGES
        yield out.obj(number, body)


def renumbered(text: bytes, ref) -> bytes:
    """`text` (one object, as qpdf writes it) with each reference renumbered by `ref`; strings,
    literal or hexadecimal, are copied as they are."""
    pieces, at = [], 0
    while (match := _TOKEN.search(text, at)) is not None:
        token = match.group(0)
        if token == b"(":
            end = _string_end(text, match.start())
            pieces.append(text[at:end])
            at = end
        elif token == b"<":
            end = text.index(b">", match.end()) + 1
            pieces.append(text[at:end])
            at = end
        elif token in (b"<<", b">>"):
            pieces.append(text[at : match.end()])
            at = match.end()
        else:
            number = ref((int(match.group(1)), int(match.group(2))))
            pieces.append(text[at : match.start()] + b"%d 0 R" % number)
            at = match.end()
    pieces.append(text[at:])
    return b"".join(pieces)


def _string_end(text: bytes, start: int) -> int:
    """Just past the literal string that starts at `start`: balanced parentheses, backslash escapes."""
    depth, i = 0, start
    while True:
        ch = text[i]
        if ch == 0x5C:  # a backslash escapes the next byte
            i += 2
            continue
        if ch == 0x28:
            depth += 1
        elif ch == 0x29:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def _bookmarks(source: pikepdf.Pdf) -> list[tuple[str, int]]:
    """A file's top-level bookmarks (one per sheet title) as (title, page index)."""
    pages = {page.objgen: index for index, page in enumerate(source.pages)}
    found = []
    with source.open_outline() as outline:
        for item in outline.root:
            target = item.destination
            if isinstance(target, pikepdf.Array) and len(target) and target[0].objgen in pages:
                found.append((str(item.title), pages[target[0].objgen]))
    return found
