"""One-page sheets written as PDF straight from their layout: no HTML, no WeasyPrint.

`generator.sheet.layout` places every part of the sheets most batches print; here they become
PDF operators (the panels, code and footer through `generator.output.paint`, the prose shaped
by HarfBuzz in `generator.output.prose`), with the fonts subset once per file. A batch of them
never imports WeasyPrint: a class of 30 costs about what its interpreter's start-up does.
Sheets the layout does not cover come back as None, and `generator.output.pdf` renders them.
"""

from __future__ import annotations

import io
import itertools
import zlib
from typing import Optional, Sequence

import pikepdf

from generator import __version__
from generator.output.embed import embed_mono, embed_prose
from generator.output.paint import (
    Painter,
    Placement,
    font_key,
    fonts_for,
    num,
    page_operators,
    rgb,
)
from generator.output.prose import PROSE_FILES, Shaper, shaper
from generator.sheet.boxes import page_boxes
from generator.sheet.layout import page_layout
from generator.sheet.marks import is_scanned
from generator.sheet.model import Settings
from generator.sheet.pages import Frame, PageLayout, Rect, TextRun
from generator.sheet.sheetview import SheetView, badge_label

PROSE_NAMES = {400: "Sheet-Sans", 600: "Sheet-Sans-Semi-Bold"}
"""The prose font's PostScript names in our files (as the HTML path's files name them)."""


def prose_key(weight: int) -> str:
    """The name a page's resources give the prose font of `weight`."""
    return f"AttnSans{weight}"


def document(
    views: Sequence[SheetView], settings: Settings, boxes: Optional[list] = None
) -> Optional[tuple[bytes, list[int]]]:
    """Sheets as one PDF and each one's page count, or None: one of them needs WeasyPrint.
    `boxes`: a list to put each worksheet's box geometry in (sheet/boxes.py), from the same layout."""
    measure = shaper()
    pages, counts = [], []
    for view in views:
        layouts = page_layout(view, settings, measure)
        if layouts is None:
            return None
        if boxes is not None:
            boxes.append(page_boxes(layouts) if is_scanned(view) else None)
        placements = _placements(layouts, view)
        if placements is None:
            return None
        pages += zip(layouts, placements)
        counts.append(len(layouts))
    return _write(pages, settings, measure, counts), counts


def _placements(layouts: Sequence[PageLayout], view: SheetView) -> Optional[list[tuple[Placement, ...]]]:
    """Each page's panels, code and footer as the painter places them; None where the panel
    font cannot print one of them (the painter would leave it to HTML)."""
    painter = Painter()
    label, word = layouts[0].words
    foot = painter.foot(view.code, word, layouts[0].marks)
    if foot is None:
        return None
    out = []
    for number, layout in enumerate(layouts, start=1):
        placed = []
        for place in layout.panels:
            slot = painter(place.panel)
            if slot.layers:
                return None
            placed.append(
                (slot.anchor, (place.x, place.y, place.x + place.panel.width_pt, place.y + place.panel.height_pt))
            )
        if layout.badge:
            badge = painter.badge(view.code, badge_label(label, view), view.link, is_scanned(view))
            if badge is None:
                return None
            placed.append((badge, layout.badge))
        placed.append((foot, layout.foot))
        out.append(tuple(painter.place(anchor, box, number, len(layouts)) for anchor, box in placed))
    return out


def _write(
    pages: Sequence[tuple[PageLayout, tuple[Placement, ...]]],
    settings: Settings,
    measure: Shaper,
    counts: Sequence[int],
) -> bytes:
    """The pages as one PDF (`counts`: each sheet's): fonts subset once for the file, a content
    stream per page."""
    pdf = pikepdf.new()
    mono_fonts = fonts_for(pl for _, pls in pages for pl in pls)
    glyphs: dict[int, dict[int, str]] = {weight: {} for weight in PROSE_FILES}
    texts = [[(run, measure.faces[run.prose.weight].shape(run.text)) for run in layout.runs] for layout, _ in pages]
    for page in texts:
        for run, shaped in page:
            glyphs[run.prose.weight].update((g.gid, g.text) for g in shaped)
    fonts = pikepdf.Dictionary({f"/{font_key(w)}": embed_mono(pdf, f) for w, f in mono_fonts.items()})
    for weight, used in glyphs.items():
        if used:
            subset = measure.faces[weight].subset(frozenset(used), used)
            fonts[f"/{prose_key(weight)}"] = embed_prose(pdf, subset, PROSE_NAMES[weight])
    resources = pdf.make_indirect(pikepdf.Dictionary(Font=fonts))
    for (layout, placements), runs in zip(pages, texts):
        # Shapes in the layout's own coordinates (y down from the top), then text in PDF's.
        ops = [f"q 1 0 0 -1 0 {num(layout.height)} cm", *map(_rule, layout.rects), *map(_frame, layout.frames), "Q"]
        ops += [_text(run, shaped, layout.height, measure) for run, shaped in runs]
        content = "\n".join(ops).encode("ascii") + b"\n"
        content += page_operators(placements, layout.height, mono_fonts, layout.width)
        page = pikepdf.Page(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Page,
                MediaBox=pikepdf.Array([0, 0, round(layout.width, 6), round(layout.height, 6)]),
                Resources=resources,
                Contents=pikepdf.Stream(pdf, zlib.compress(content, 6), Filter=pikepdf.Name.FlateDecode),
            )
        )
        pdf.pages.append(page)
    _describe(pdf, [layout for layout, _ in pages], settings, counts)
    buffer = io.BytesIO()
    # A content-based /ID and no timestamps of qpdf's own: the same pages give the same bytes.
    pdf.save(buffer, deterministic_id=True, compress_streams=True)
    return buffer.getvalue()


def _describe(pdf: pikepdf.Pdf, layouts: Sequence[PageLayout], settings: Settings, counts: Sequence[int]) -> None:
    """The document's title, language, dates (when asked) and outline: a bookmark per sheet, at
    its first page."""
    title = layouts[0].title
    pdf.docinfo[pikepdf.Name.Title] = title
    pdf.docinfo[pikepdf.Name.Creator] = f"attnsheet {__version__}"
    pdf.docinfo[pikepdf.Name.Producer] = f"attnsheet {__version__}"
    if settings.timestamp:
        stamp = "D:" + "".join(ch for ch in settings.timestamp if ch.isdigit()) + "Z"
        pdf.docinfo[pikepdf.Name.CreationDate] = pdf.docinfo[pikepdf.Name.ModDate] = stamp
    pdf.Root.Lang = pikepdf.String(settings.lang)
    firsts = [0, *itertools.accumulate(counts)][:-1]
    with pdf.open_outline() as outline:
        for number, layout in ((first, layouts[first]) for first in firsts):
            destination = pikepdf.Array(
                [
                    pdf.pages[number].obj,
                    pikepdf.Name.XYZ,
                    round(layout.foot[0], 6),
                    round(layout.height - layout.title_top, 6),
                    0,
                ]
            )
            outline.root.append(pikepdf.OutlineItem(layout.title, destination))


def _rule(rule: Rect) -> str:
    """A rule, filled as WeasyPrint fills a border (a path, not a rectangle operator)."""
    x0, y0, x1, y1 = rule.x, rule.y, rule.x + rule.width, rule.y + rule.height
    return f"{rgb(rule.colour)} rg {num(x1)} {num(y1)} m {num(x0)} {num(y1)} l {num(x0)} {num(y0)} l {num(x1)} {num(y0)} l h f"


def _frame(frame: Frame) -> str:
    """A rounded box: the background under the whole border box, the border stroked on its middle line."""
    if frame.open_top or frame.open_bottom:
        return _sliced(frame)
    half = frame.border / 2
    x, y, w, h = frame.x + half, frame.y + half, frame.width - frame.border, frame.height - frame.border
    r = frame.radius - half
    k = r * 0.5523  # a quarter circle's control points
    path = (
        f"{num(x + r)} {num(y)} m {num(x + w - r)} {num(y)} l "
        f"{num(x + w - r + k)} {num(y)} {num(x + w)} {num(y + r - k)} {num(x + w)} {num(y + r)} c "
        f"{num(x + w)} {num(y + h - r)} l "
        f"{num(x + w)} {num(y + h - r + k)} {num(x + w - r + k)} {num(y + h)} {num(x + w - r)} {num(y + h)} c "
        f"{num(x + r)} {num(y + h)} l "
        f"{num(x + r - k)} {num(y + h)} {num(x)} {num(y + h - r + k)} {num(x)} {num(y + h - r)} c "
        f"{num(x)} {num(y + r)} l {num(x)} {num(y + r - k)} {num(x + r - k)} {num(y)} {num(x + r)} {num(y)} c h"
    )
    fill = f"{rgb(frame.fill)} rg " if frame.fill else ""
    return f"{fill}{rgb(frame.stroke)} RG {num(frame.border)} w {path} {'B' if frame.fill else 'S'}"


def _sliced(frame: Frame) -> str:
    """A frame's part on one page of several (it has no background): its sides filled, as
    WeasyPrint fills a straight border, and its rounded top where it begins or its rounded
    foot where it ends, stroked as a closed frame's."""
    half, b = frame.border / 2, frame.border
    x0, x1, y0, y1 = frame.x + half, frame.x + frame.width - half, frame.y, frame.y + frame.height
    r = frame.radius - half
    k = r * 0.5523
    side_top = y0 if frame.open_top else y0 + half + r
    side_foot = y1 if frame.open_bottom else y1 - half - r
    ops = []
    for left in (frame.x, frame.x + frame.width - b):
        # Clipped to the side, then filled, as WeasyPrint draws it: a thin fill alone is
        # rasterised as a hairline, a shade darker and a pixel narrower.
        strip = (
            f"{num(left + b)} {num(side_foot)} m {num(left)} {num(side_foot)} l {num(left)} {num(side_top)} l "
            f"{num(left + b)} {num(side_top)} l h"
        )
        ops.append(
            f"q {strip} W n {rgb(frame.stroke)} rg {num(left - 1)} {num(side_top - 1)} {num(b + 2)} "
            f"{num(side_foot - side_top + 2)} re f Q"
        )
    # The rounded ends, from the left side's end to the right's: over the top, under the foot.
    for edge, inward, open_end in ((y0 + half, r, frame.open_top), (y1 - half, -r, frame.open_bottom)):
        if not open_end:
            bend = edge + inward - inward * 0.5523  # a quarter circle's control points
            ops.append(
                f"{rgb(frame.stroke)} RG {num(b)} w {num(x0)} {num(edge + inward)} m "
                f"{num(x0)} {num(bend)} {num(x0 + r - k)} {num(edge)} {num(x0 + r)} {num(edge)} c "
                f"{num(x1 - r)} {num(edge)} l "
                f"{num(x1 - r + k)} {num(edge)} {num(x1)} {num(bend)} {num(x1)} {num(edge + inward)} c S"
            )
    return "\n".join(ops)


def _text(run: TextRun, shaped, page_height: float, measure: Shaper) -> str:
    """One shaped line: glyph ids, with the kerning HarfBuzz applied as TJ adjustments."""
    face = measure.faces[run.prose.weight]
    parts = []
    for glyph in shaped:
        parts.append(f"<{glyph.gid:04x}>")
        adjust = (face.advance(glyph.gid) - glyph.advance) * 1000 / face.upem
        if abs(adjust) > 1e-6:
            parts.append(num(adjust))
    prose = run.prose
    return (
        f"BT /{prose_key(prose.weight)} {num(prose.size)} Tf {rgb(prose.colour)} rg {num(prose.spacing)} Tc "
        f"1 0 0 1 {num(run.x, 4)} {num(page_height - run.baseline, 4)} Tm [{''.join(parts)}] TJ ET"
    )
