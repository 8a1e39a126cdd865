"""Scans in, answers out: every page found and identified, every box read and verified.

A page is located (its marks and QR code), identified (the code and page its QR code says,
checked against the manifest, never against printed or handwritten text), mapped upright,
and every answer box on it read beside the same box of the sheet's own blank render. Once
all pages are in, each sheet's boxes are verified step by step (scan/verify.py). Pages that
cannot be placed are reported with their file, page and why; they are never assigned.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Optional, Sequence

import cv2
import numpy as np

from generator.core.registry import solve
from generator.core.student import Student
from generator.output.boxes import worksheet_boxes
from generator.output.manifest import code_key
from generator.scan.locate import LIKE_BLANK, PX_PT, Located, NotFound, is_blank, likeness, locate, placed
from generator.scan.pages import ScanPage
from generator.scan.printed import Footer
from generator.scan.recognize import Model, find, model, read_parts
from generator.scan.adapt import in_own_hand, strays
from generator.scan.blank import blank_pages
from generator.scan.verify import CellRead, Decision, Key, packed, verify
from generator.sheet.boxes import AnswerBox, PageBoxes
from generator.sheet.marks import QrIdentity, registration_marks
from generator.sheet.model import LARGE_PAPERS, Settings, for_student
from generator.sheet.style import MARGINS_MM, margins_of

CROP_PAD = 6
"""Pixels of the page kept around a box's crop, for a person to see it whole."""
UNSEEN = ("not identified", "not assigned")
"""How a page's why begins where it went to no sheet though it may be one, for a person to say which."""


@dataclass(frozen=True)
class Source:
    """A sheet the scans may hold: its code, its place in the batch, its problem and student."""

    code: str
    index: int
    problem: object
    student: Student = Student()


@dataclass(frozen=True)
class PageReport:
    """What became of one input page (pages.json)."""

    file: str
    page: int
    code: str = ""
    sheet_page: int = 0
    why: str = ""
    """Empty when the page was read; else why it was not assigned, or a warning."""
    turned: int = 0

    @property
    def identified(self) -> bool:
        return bool(self.code) and not self.why.startswith("not ")

    def json(self) -> dict:
        out = {"file": self.file, "page": self.page}
        if self.code:
            out.update(code=self.code, sheet_page=self.sheet_page, turned=self.turned)
        if self.why:
            out["why"] = self.why
        return out


def unidentified_picture(file: str, page: int) -> str:
    """The name a page not identified is kept under (beside the identified pages' pictures)."""
    stem = re.sub(r"[^0-9A-Za-z_.-]", "_", Path(file).name)[:80]
    return f"unidentified-{stem}-{page}.jpg"


@dataclass
class SheetScan:
    """One sheet's pages as read so far: each box's read, and which input page each page came from."""

    source: Source
    pages: int
    reads: dict[Key, CellRead] = field(default_factory=dict)
    crops: dict[Key, tuple[int, int, int]] = field(default_factory=dict)
    """Each written box's crop, raw grey pixels in the scanner's spool: (offset, height, width)."""
    boxes: dict[Key, int] = field(default_factory=dict)
    """Each box's page."""
    seen: dict[int, int] = field(default_factory=dict)
    """Sheet page → index of the input page it was read from."""
    marks: bool = False
    """Read for a phone's marks: its boxes of digits not all of one writing found (`in_hand`)."""


class Catalogue:
    """What the scanned pages may be: a manifest's sheets (by code, and by student link), or any
    sheet a drawn code rebuilds."""

    def __init__(
        self,
        sources: Iterable[Source],
        settings: Settings,
        links: Optional[dict[str, str]] = None,
        rebuild: Optional[Callable[[str], Source]] = None,
    ) -> None:
        self.sources, self.settings = {code_key(s.code): s for s in sources}, settings
        self.links = links or {}
        """A student link's token → its sheet's code key."""
        self.rebuild = rebuild
        self.rebuilt: dict[str, Source] = {}
        large = {for_student(settings, s.student).paper for s in self.sources.values()} - {settings.paper}
        self.papers = (settings.paper,) + tuple(
            page for sizes in LARGE_PAPERS.values() for page in sizes.values() if page in large
        )
        """The pages its sheets are laid out on: the batch's paper, and each large print a sheet prints in."""

    def find(self, qr: QrIdentity) -> Source:
        """The sheet a QR code names; NotFound when none of these."""
        identity = qr.identity
        if "/s/" in identity:  # a student's link: its token names the sheet through the batch
            token = identity.rstrip("/").rsplit("/", 1)[-1].lower()
            key = self.links.get(token)
            if key is None or key not in self.sources:
                raise NotFound("not identified: its QR code is a student's link of another batch (or no --data)")
            return self.sources[key]
        key = code_key(identity)
        if key in self.sources:
            return self.sources[key]
        if self.rebuild is not None and not self.sources:
            if key not in self.rebuilt:
                try:
                    self.rebuilt[key] = self.rebuild(identity)
                except Exception as error:  # a code no draw makes: reported, never guessed
                    raise NotFound(f"not identified: code {identity[:40]!r} ({str(error)[:80]})") from None
            return self.rebuilt[key]
        raise NotFound(f"not identified: code {identity[:40]!r} is not in the manifest")

    def named(self, footer: Footer) -> Optional[QrIdentity]:
        """The page a footer names, read where its QR code could not be: of the manifest's codes it
        fits (5 and S alike, and so on), or with no manifest of its readings whose check
        character agrees, the one its glyphs say clearly; None when not one alone."""
        codes = (
            [s.code for s in self.sources.values()]
            if self.sources
            else footer.readings()
            if self.rebuild is not None
            else []
        )
        code = footer.best(codes)
        if code is None:
            return None
        counts = {m for _, m in footer.pages}
        if len(counts) == 1:
            count = counts.pop()
        else:  # its page count read two ways (3 and 8): the sheet's own says which
            try:
                count = len(self.geometry(code_key(self.find(QrIdentity(code)).code))[0])
            except NotFound:
                return None
        number = footer.page_of(count)
        return QrIdentity(code, number, count) if number is not None else None

    @functools.lru_cache(maxsize=8)  # a sheet's pages come together, or nearly
    def geometry(self, key: str) -> tuple[tuple[PageBoxes, ...], tuple[np.ndarray, ...]]:
        """A sheet's boxes and its blank pages rendered upright at PX_PT."""
        source = self.sources.get(key) or self.rebuilt[key]
        solution = solve(source.problem)
        printed = Student(print_size=source.student.print_size)  # as it prints: the name aside, its size
        pages = worksheet_boxes(source.problem, solution, printed, self.settings)
        return pages, tuple(blank_pages(source.problem, solution, self.settings, printed))


def _rect(x: float, y: float, w: float, h: float) -> tuple[int, int, int, int]:
    return round(x * PX_PT), round(y * PX_PT), round((x + w) * PX_PT), round((y + h) * PX_PT)


def read_boxes(page: np.ndarray, blank: np.ndarray, boxes: Sequence[AnswerBox], net: Model) -> list[CellRead]:
    """The boxes of a page, each its parts read (the page's characters by one pass of the network)."""
    found, spans = [], []
    for box in boxes:
        parts = box.parts.values() if box.split is not None else [(box.x, box.y, box.w, box.h)]
        start = len(found)
        for x, y, w, h in parts:
            x0, y0, x1, y1 = _rect(x, y, w, h)
            found.append(find(page[y0:y1, x0:x1], blank[y0:y1, x0:x1]))
        spans.append((start, len(found)))
    read = read_parts(found, net)
    # The probabilities kept small, their strings made when verified.
    return [
        CellRead(tuple(packed(p.probabilities) for p in read[a:b]), tuple(p.shapes.tobytes() for p in read[a:b]))
        for a, b in spans
    ]


def in_hand(sheet: SheetScan) -> None:
    """A sheet's reads weighed by the writer's own other characters (scan/adapt.py), for a phone its boxes
    of digits not all of one writing marked (`strays`), the shapes let go (else kept to the pile's end);
    reads whose shapes are gone are in hand already (a page scanned again brings its own)."""
    if any(read.looks for read in sheet.reads.values()):
        odd, was = strays(sheet.reads) if sheet.marks else frozenset(), sheet.reads
        sheet.reads = {
            key: CellRead(read.parts, stray=key in odd or (not was[key].looks and was[key].stray))
            for key, read in in_own_hand(sheet.source.problem, was).items()
        }


def crop_name(source: Source, page: int, key: Key) -> str:
    head, step, row, col = key
    return f"{source.index:03d}-{code_key(source.code)}-p{page}-{'h' + str(head) if head else 'out'}-{step}-r{row + 1}-c{col + 1}.png"


class Scanner:
    """Reads pages one at a time into the sheets they belong to."""

    def __init__(
        self,
        catalogue: Catalogue,
        spool: Optional[BinaryIO] = None,
        pages: Optional[Path] = None,
        assigned: Optional[dict[tuple[str, int], tuple[str, int]]] = None,
        marks: bool = False,
    ) -> None:
        self.catalogue, self.marks = catalogue, marks  # marks: read for a phone's (`SheetScan.marks`)
        self.assigned = assigned or {}
        """Pages a person has said are which: (file as scanned, its page) → (sheet code, sheet page)."""
        self.pages = pages
        """Where to keep each page upright at half the resolution, for a spot check (None: nowhere)."""
        self.spool = spool
        """Where written boxes' crops wait, one after the other, until the boxes to review are known:
        one file, not a file a box (a box's own file costs more than reading it), never in memory."""
        self.sheets: OrderedDict[str, SheetScan] = OrderedDict()
        self.reports: list[PageReport] = []
        self.net = model()
        self.detector = cv2.QRCodeDetector()

    def add(self, scan: ScanPage) -> PageReport:
        """Reads one input page; its report."""
        report = self._read(scan)
        self.reports.append(report)
        if self.pages is not None and scan.grey is not None and report.why.startswith(UNSEEN):
            self._keep(scan.grey, unidentified_picture(scan.file, scan.number))  # for a person to say which it is
        return report

    def _keep(self, picture: np.ndarray, name: str, scale: float = 0.5) -> None:
        """A page's picture kept for the spot check or the review, written whole or not at all."""
        shown = cv2.resize(picture, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(self.pages / f".{name}.part.jpg"), shown, [cv2.IMWRITE_JPEG_QUALITY, 80])
        (self.pages / f".{name}.part.jpg").replace(self.pages / name)

    def _read(self, scan: ScanPage) -> PageReport:
        if scan.grey is None:
            return PageReport(scan.file, scan.number, why=f"not read: {scan.problem}")
        by_hand = self.assigned.get((scan.file, scan.number))
        if by_hand is not None:
            return self._by_hand(scan, *by_hand)
        try:
            found, size = self._found(scan.grey)
        except NotFound as error:
            if is_blank(scan.grey):
                return PageReport(scan.file, scan.number, why="not a sheet: a blank page (the back of a sheet?)")
            return PageReport(scan.file, scan.number, why=f"not identified: {error}")
        qr = found.qr or self.catalogue.named(found.footer)
        if qr is None:
            return PageReport(
                scan.file,
                scan.number,
                why="not identified: its QR code unreadable, and the code in its footer read as no one sheet's",
                turned=found.turned,
            )
        try:
            source = self.catalogue.find(qr)
        except NotFound as error:
            return PageReport(scan.file, scan.number, why=str(error), turned=found.turned)
        key = code_key(source.code)
        pages, blanks = self.catalogue.geometry(key)
        number = qr.page or 1
        if number > len(pages) or (qr.pages and qr.pages != len(pages)):
            return PageReport(
                scan.file,
                scan.number,
                why=f"not identified: page {number} of {qr.pages} "
                f"but sheet {source.code} has {len(pages)} (printed on other paper?)",
            )
        if (pages[number - 1].width > pages[number - 1].height) != (size[0] > size[1]):
            return PageReport(
                scan.file,
                scan.number,
                why=f"not identified: page {number} of {source.code} was found turned a quarter from how it is printed",
            )
        own = (pages[number - 1].width, pages[number - 1].height)
        if abs(own[0] - size[0]) + abs(own[1] - size[1]) > 1:  # found on a page of its shape but not its size
            try:  # (A4 turned, and twice as large print's page, are both √2 wide over high): placed on its own
                found = self._at(scan.grey, own, margins_of(for_student(self.catalogue.settings, source.student).paper))
            except NotFound as error:
                return PageReport(scan.file, scan.number, why=f"not identified: {error}", turned=found.turned)
        if found.footer and likeness(found.page, blanks[number - 1]) < LIKE_BLANK:
            # Read from its footer alone: it must also look like the page it names.
            return PageReport(
                scan.file,
                scan.number,
                why=f"not identified: its footer reads page {number} of "
                f"{source.code}, but it is not like that page's print",
                turned=found.turned,
            )
        note = "identified by the code printed in its footer (its QR code unreadable)" if found.footer else ""
        return self._take(scan, source, number, found, pages, blanks, note)

    def _found(self, grey: np.ndarray) -> tuple[Located, tuple[float, float]]:
        """`grey` upright as one of the pages the catalogue's sheets print on, and that page's size:
        portrait, else landscape (a concatenation too wide for portrait), on the batch's paper, else
        on its large print where a sheet prints large; NotFound (the first page's reason) where none."""
        from generator.sheet.layout import PAPERS_PT

        first = None
        for paper in self.catalogue.papers:
            portrait = PAPERS_PT[paper]
            for size in (portrait, (portrait[1], portrait[0])):
                try:
                    return self._at(grey, size, margins_of(paper)), size
                except NotFound as error:
                    first = first or error
        raise first

    def _at(self, grey: np.ndarray, size: tuple[float, float], margins=MARGINS_MM) -> Located:
        """`grey` upright as a page `size` points wide and high, its marks where such a page has them."""
        return locate(grey, tuple(m.centre for m in registration_marks(*size)), size, self.detector, margins)

    def _by_hand(self, scan: ScanPage, code: str, number: int) -> PageReport:
        """A page a person said is page `number` of sheet `code`: placed by its marks, the way up
        its blank print says, and read like the others."""
        try:
            source = self.catalogue.find(QrIdentity(code, number))
        except NotFound as error:
            return PageReport(scan.file, scan.number, why=f"not assigned to {code}: {error}")
        pages, blanks = self.catalogue.geometry(code_key(source.code))
        if number > len(pages):
            return PageReport(scan.file, scan.number, why=f"not assigned: sheet {source.code} has {len(pages)} pages")
        size = (pages[number - 1].width, pages[number - 1].height)  # as that page is printed, portrait or not
        centres = tuple(m.centre for m in registration_marks(*size))
        try:
            found = placed(scan.grey, centres, size, blanks[number - 1], QrIdentity(source.code, number, len(pages)))
        except NotFound as error:
            return PageReport(scan.file, scan.number, why=f"not assigned to {source.code}: {error}")
        return self._take(scan, source, number, found, pages, blanks, "assigned by hand")

    def _take(
        self, scan: ScanPage, source: Source, number: int, found: Located, pages, blanks, note: str = ""
    ) -> PageReport:
        """A page identified as page `number` of `source`'s sheet: its boxes read into the sheet."""
        key = code_key(source.code)
        sheet = self.sheets.setdefault(key, SheetScan(source, len(pages), marks=self.marks))
        why = note
        if number in sheet.seen:
            earlier = self.reports[sheet.seen[number]]
            why = (
                f"warning: page {number} of {source.code} scanned again; this later scan replaces "
                f"{earlier.file} page {earlier.page}"
            )
            self.reports[sheet.seen[number]] = replace(earlier, why=f"replaced by {scan.file} page {scan.number}")
        sheet.seen[number] = len(self.reports)
        self._read_boxes(sheet, pages[number - 1], found.page, blanks[number - 1])
        if len(sheet.seen) == sheet.pages:
            in_hand(sheet)  # its pages all in: the shapes kept for it need not wait for the pile's end
        if self.pages is not None:
            self._keep(found.page, f"{key}-p{number}.jpg")
        return PageReport(scan.file, scan.number, source.code, number, why, found.turned)

    def _read_boxes(self, sheet: SheetScan, boxes: PageBoxes, page: np.ndarray, blank: np.ndarray) -> None:
        for box, read in zip(boxes.boxes, read_boxes(page, blank, boxes.boxes, self.net)):
            key = (box.head, box.step, box.row - 1, box.col - 1)
            sheet.reads[key] = read
            sheet.boxes[key] = box.page
            sheet.crops.pop(key, None)
            if not read.blank and self.spool is not None:
                x0, y0, x1, y1 = _rect(box.x, box.y, box.w, box.h)
                crop = page[max(0, y0 - CROP_PAD) : y1 + CROP_PAD, max(0, x0 - CROP_PAD) : x1 + CROP_PAD]
                sheet.crops[key] = (self.spool.tell(), *crop.shape)
                self.spool.write(np.ascontiguousarray(crop).tobytes())  # encoded only if it goes to review

    def crop(self, sheet: SheetScan, key: Key) -> bytes:
        """A written box's crop, as PNG."""
        offset, height, width = sheet.crops[key]
        self.spool.seek(offset)
        pixels = np.frombuffer(self.spool.read(height * width), np.uint8).reshape(height, width)
        self.spool.seek(0, 2)
        return cv2.imencode(".png", pixels)[1].tobytes()

    def decisions(self) -> Iterable[tuple[SheetScan, list[Decision]]]:
        """Every sheet's boxes, verified."""
        for sheet in self.sheets.values():
            in_hand(sheet)  # a sheet some of whose pages never came, or one scanned again since
            s = sheet.source
            yield sheet, verify(s.problem, sheet.reads, s.code, s.student)
