"""Synthetic scans: worksheets filled in by handwriting-like writers, then printed and scanned in simulation.

What the tests and the bench read. A student works a sheet step by step: most cells right
(the true value, or the value their own earlier mistakes carry to), some wrong, some left
blank, now and then one crossed out and written again beside it; fractions with their
decimals below. The filled page is then "scanned": resampled to 150–300 dpi, turned a few
degrees (or upside down), scaled, blurred, noised, JPEG-compressed, in colour or grey, or
photographed at an angle. Every box's written text is kept, to score the reader against.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

import cv2
import numpy as np

from generator.core.answers import put_cell
from generator.core.cells import read_cell_text
from generator.core.numbers import sheet_decimal, sheet_value
from generator.scan.hands import faces, real_digits, write_digits, write_font
from generator.scan.handwriting import Writer, cross_out, write
from generator.scan.verify import Key, answers_of, empty_grids
from generator.sheet.boxes import PageBoxes
from generator.sheet.style import MARGINS_MM, QR_MM

PAPER_DPI = 300
"""The filled sheet's own resolution, before it is scanned."""


@dataclass(frozen=True)
class Student:
    """How a synthetic student works: how often wrong, blank, crossed out; how they write."""

    writer: Writer
    wrong: float = 0.04
    blank: float = 0.03
    crossed: float = 0.01
    decimals: float = 0.8
    """How often a fraction gets its decimals below."""


def _wrong(v, rng: random.Random):
    """A plausible wrong value near v."""
    if isinstance(v, Fraction) and v.denominator != 1:
        return Fraction(v.numerator + rng.choice([-2, -1, 1, 2]), v.denominator) or Fraction(1, v.denominator + 1)
    return int(v) + rng.choice([-3, -2, -1, 1, 2, 3, 10])


def _parts(v, split: bool, rng: random.Random, decimals: float) -> tuple[str, ...]:
    """What a student writes for v: the whole box, or a fraction's two lines."""
    text = sheet_value(v).replace("\u2212", "-")
    if not split:
        return (text,)
    low = sheet_decimal(v).replace("\u2212", "-") if "/" in text and rng.random() < decimals else ""
    if low and rng.random() < 0.3:
        low = low.replace(".", ",")
    return (text, low)


def work(problem, boxes: dict[Key, bool], student: Student, rng: random.Random) -> dict[Key, tuple[str, ...]]:
    """What a student writes in each box (`boxes`: each box with whether it has two lines): their
    own values, step by step, carried from their earlier mistakes."""
    from generator.core.registry import grade

    grids = empty_grids(problem)
    written: dict[Key, tuple[str, ...]] = {}
    for step in grade(problem, answers_of(problem, grids, None, _nobody())).steps:
        keys = sorted(k for k in boxes if (k[0], k[1]) == (step.head, step.step))
        if not keys:
            continue
        g = grade(problem, answers_of(problem, grids, None, _nobody())).step(step.head, step.step)
        for key in keys:
            row, col = key[2], key[3]
            value = g.carried[row][col] if g.carried[row][col] is not None else g.expected[row][col]
            if value is None:
                continue
            roll = rng.random()
            if roll < student.blank:
                written[key] = tuple("" for _ in range(2 if boxes[key] else 1))
                continue
            if roll < student.blank + student.wrong:
                value = _wrong(value, rng)
            parts = _parts(value, boxes[key], rng, student.decimals)
            written[key] = parts
            grids[(step.head, step.step)][row][col] = read_cell_text(" ".join(p for p in parts if p))
    return written


def _nobody():
    from generator.core.student import Student as Who

    return Who()


Hand = Callable[[np.ndarray, str, tuple[float, float, float, float], float, np.random.Generator], object]
"""Writes a text into a box of a canvas (its pixels a millimetre, a generator): a person's hand."""


def held_out_face(index: int) -> str:
    """The held-out handwriting face sheet `index` is written in (they take turns)."""
    held = faces("held out")
    if not held:
        raise RuntimeError("no held-out handwriting face on this system (see bench/README.md)")
    return held[index % len(held)]


def held_out_hand(kind: str, index: int, writer: Writer) -> Optional[Hand]:
    """Sheet `index`'s hand among writers the network never learned from: "faces" (one of the
    handwriting faces held out, by turns), "digits" (people's own digits held out, the signs in
    `writer`'s hand), or "" (the project's stroke writers: None)."""
    if kind == "faces":
        face = held_out_face(index)
        return lambda canvas, text, box, px_mm, rng: write_font(canvas, text, box, px_mm, rng, face)
    if kind == "digits":
        digits = real_digits("held out")
        if not digits:
            raise RuntimeError("people's digits need scikit-learn (pip install scikit-learn)")
        return lambda canvas, text, box, px_mm, rng: write_digits(canvas, text, writer, box, px_mm, rng, digits)
    return None


def fill(
    page: np.ndarray,
    boxes: PageBoxes,
    written: dict[Key, tuple[str, ...]],
    student: Student,
    rng: np.random.Generator,
    crossed: Optional[set] = None,
    font: bool = False,
    hand: Optional[Hand] = None,
) -> np.ndarray:
    """`page` (the blank worksheet page at PAPER_DPI) with the written boxes filled in (`font`:
    printed in fonts, not written; `hand`: in that hand, not the student's writer's)."""
    printed = [None, *_faces()] if font else []
    out = page.copy()
    px_pt, px_mm = PAPER_DPI / 72, PAPER_DPI / 25.4
    for b in boxes.boxes:
        key = (b.head, b.step, b.row - 1, b.col - 1)
        parts = written.get(key)
        if not parts:
            continue
        rects = list(b.parts.values()) if b.split is not None else [(b.x, b.y, b.w, b.h)]
        for (x, y, w, h), text in zip(rects, parts):
            if not text:
                continue
            box = (x * px_pt + 2, y * px_pt + 2, w * px_pt - 4, h * px_pt - 4)
            if crossed is not None and hand is None and rng.random() < student.crossed and len(parts) == 1:
                # A first try on the left half, struck out; the value again on the right.
                left = (box[0], box[1], box[2] * 0.48, box[3])
                write(out, str(int(rng.integers(1, 99))), student.writer, left, px_mm, rng)
                cross_out(out, left, student.writer, px_mm, rng)
                write(out, text, student.writer, (box[0] + box[2] * 0.5, box[1], box[2] * 0.5, box[3]), px_mm, rng)
                crossed.add(key)
                continue
            if hand is not None:
                hand(out, text, box, px_mm, rng)
            elif font:
                write_font(out, text, box, px_mm, rng, printed[int(rng.integers(0, len(printed)))])
            else:
                write(out, text, student.writer, box, px_mm, rng)
    return out


def _faces() -> list[str]:
    """TrueType faces to print digits in: DejaVu where the system has it, else the sheets' own."""
    from generator.sheet.assets import templates_dir

    found = sorted(Path("/usr/share/fonts/truetype/dejavu").glob("DejaVuSans*.ttf"))
    return [str(f) for f in found or sorted((templates_dir() / "fonts").glob("*.subset.ttf"))]


def scanned(
    page: np.ndarray,
    rng: np.random.Generator,
    dpi: int = 200,
    angle: float = 0.0,
    scale: float = 1.0,
    upside_down: bool = False,
    quality: int = 80,
    colour: bool = False,
    photo: bool = False,
    quarter: bool = False,
) -> np.ndarray:
    """A filled page (at PAPER_DPI) as a scanner or a phone gives it back: encoded JPEG bytes decoded."""
    f = dpi / PAPER_DPI * scale
    img = cv2.resize(page, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    h, w = img.shape
    pad = int(0.04 * max(h, w))
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=245)
    h, w = img.shape
    if photo:  # the page seen from above and a little aside, on a darker table
        src = np.float32([[0, 0], [w, 0], [0, h], [w, h]])
        d = 0.06
        dst = np.float32([[w * d, h * d * 0.5], [w * (1 - d * 0.3), 0], [0, h], [w, h * (1 - d * 0.4)]])
        img = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, h), borderValue=90)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=240)
    if upside_down:
        img = cv2.rotate(img, cv2.ROTATE_180)
    if quarter:  # a phone held sideways
        img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), float(rng.uniform(0.4, 1.0)))
    img = (
        img * float(rng.uniform(0.88, 1.0))
        + float(rng.uniform(0, 12))
        + rng.normal(0, float(rng.uniform(2, 6)), img.shape)
    )
    img = np.clip(img, 0, 255).astype(np.uint8)
    if colour:  # a colour scan: paper a little warm
        img = cv2.merge([np.clip(img.astype(np.int16) - d, 0, 255).astype(np.uint8) for d in (12, 4, 0)])
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_UNCHANGED)


@dataclass(frozen=True)
class Filled:
    """One sheet's scanned pages and what its student wrote in each box."""

    code: str
    pages: tuple[np.ndarray, ...]
    written: dict
    """Each box's written parts ("" where left blank)."""
    crossed: frozenset
    """Boxes with a value crossed out and written again."""

    def text(self, key) -> str:
        """What box `key` holds, as one would type it ("" where blank)."""
        return " ".join(p for p in self.written[key] if p)

    def typed(self, answers: dict) -> dict:
        """A copy of an answers@1 object with every written box as the student wrote it."""
        out = json.loads(json.dumps(answers))
        for key in self.written:
            put_cell(out, *key, self.text(key))
        return out

    def kept(self, answers: dict, marks) -> dict:
        """What a student hands in after a photo: every box as written, but those the phone read
        surely as it read them (`marks`: its boxes, each with head, step, i, j, value and sure)."""
        out = self.typed(answers)
        for m in marks:
            if m.sure:
                put_cell(out, m.head, m.step, m.i, m.j, m.value)
        return out


def smudged_qr(paper: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A page (at PAPER_DPI) whose QR code no detector reads: a grey blot scribbled over, where
    the first page's code and the later pages' own are (the corner mark beside them is left)."""
    px = PAPER_DPI / 25.4
    h, w = paper.shape
    x0, x1 = int(w - (MARGINS_MM[1] + QR_MM + 1) * px), int(w - 12.5 * px)
    y0, y1 = int(4.5 * px), int((MARGINS_MM[0] + QR_MM + 1) * px)
    out = paper.copy()
    out[y0:y1, x0:x1] = np.minimum(out[y0:y1, x0:x1], int(rng.integers(120, 170)))
    for _ in range(12):
        a = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
        b = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
        cv2.line(out, a, b, int(rng.integers(0, 60)), int(rng.integers(6, 16)))
    return out


def filled_sheets(
    batch: Path,
    seed: int = 5,
    neat: bool = True,
    scan: Optional[dict] = None,
    wrong: float = 0.04,
    blank: float = 0.03,
    crossed: float = 0.01,
    pencil: bool = False,
    font: bool = False,
    smudge: bool = False,
    hands: str = "",
) -> Iterator[Filled]:
    """Every worksheet of a batch folder (its manifest.json and worksheets.pdf, one file) filled
    in by its own writer and scanned (`scan`: `scanned`'s settings for every page; by default
    each page drawn at random: 150–300 dpi, ±5°, ±5 %, a fifth upside down, JPEG 50–90, some in colour;
    `pencil`: every writer with a light, thin pencil; `font`: digits printed in OpenCV's stroke
    fonts and TrueType faces, as another tool would fill a sheet; `smudge`: every QR code smudged
    past reading; `hands`: written by hands the network never learned from, `held_out_hand`'s)."""
    import pypdfium2 as pdfium

    from generator.core.student import Student as Who
    from generator.output.boxes import worksheet_boxes
    from generator.output.manifest import manifest_settings, read_manifest
    from generator.sheet.model import Settings, for_student
    from generator.sheet.style import LARGE_PRINT_ON

    text = (batch / "manifest.json").read_text(encoding="utf-8")
    settings = Settings(**{k: v for k, v in manifest_settings(text, "manifest").items() if k in ("paper", "lang")})
    listed = list(read_manifest(text, "manifest").values())
    sheets = json.loads(text)["sheets"]
    pdf = pdfium.PdfDocument(str(batch / "worksheets.pdf"))
    rng, r = np.random.default_rng(seed), random.Random(seed)
    try:
        for item, entry in zip(listed, sheets):
            from generator.core.registry import solve

            printed = Who(print_size=item.student.print_size)  # a large-print sheet's boxes where its page has them
            geometry = worksheet_boxes(item.problem, solve(item.problem), printed, settings)
            enlarged = LARGE_PRINT_ON.get(for_student(settings, printed).paper, (0, 0, 0, 1.0))[3]
            boxes = {(b.head, b.step, b.row - 1, b.col - 1): b.split is not None for p in geometry for b in p.boxes}
            writer = Writer.random(seed * 1000 + int(entry["index"]), neat=neat)
            if pencil:  # a light, thin pencil line
                writer = replace(writer, ink=150, thickness=0.2)
            student = Student(writer, wrong, blank, crossed)
            written = work(item.problem, boxes, student, r)
            struck: set = set()
            pages = []
            hand = held_out_hand(hands, int(entry["index"]), writer)  # once a sheet: its writer's
            for k, page_boxes in enumerate(geometry):
                # At PAPER_DPI of the page as it is laid out (a large-print page's paper is larger).
                at = PAPER_DPI / 72 / enlarged
                bitmap = pdf[entry["worksheet"]["first_page"] - 1 + k].render(scale=at, grayscale=True)
                paper = np.array(bitmap.to_numpy(), copy=True)
                page = fill(paper, page_boxes, written, student, rng, struck, font, hand)
                if smudge:
                    page = smudged_qr(page, rng)
                settings_of_scan = (
                    scan
                    if scan is not None
                    else dict(
                        dpi=int(rng.choice([150, 200, 300])),
                        angle=float(rng.uniform(-5, 5)),
                        scale=float(rng.uniform(0.95, 1.05)),
                        upside_down=bool(rng.random() < 0.2),
                        quality=int(rng.integers(50, 91)),
                        colour=bool(rng.random() < 0.3),
                    )
                )
                pages.append(scanned(page, rng, **settings_of_scan))
            yield Filled(item.code, tuple(pages), written, frozenset(struck))
    finally:
        pdf.close()


def pdf_of(pages: Iterable[np.ndarray], path: Path, dpi: int = 200) -> None:
    """Pictures as a copier's PDF: one JPEG page each, at `dpi`."""
    from PIL import Image

    images = (Image.fromarray(p if p.ndim == 2 else cv2.cvtColor(p, cv2.COLOR_BGR2RGB)) for p in pages)
    first = next(images)
    first.save(path, "PDF", resolution=dpi, save_all=True, append_images=images, quality=80)
