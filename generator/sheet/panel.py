"""A grid drawn as one picture (brackets, tints, writing boxes) under a few layers of text lines."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Sequence

from generator.sheet.grid import GridView, MatrixView, Placed, line_tops
from generator.sheet.style import (
    BOX_LINE,
    CAPTION_CHAR,
    CAPTION_DROP_PT,
    CHAR_PT,
    EDGE_PT,
    FONT_PT,
    FOOT_PT,
    GAP,
    GIVEN_PAD_PT,
    GUIDE_INSET_PT,
    GUIDE_LINE,
    LINE_PT,
    MARK_PT,
    MARKS,
    MASK_FILL,
    MASK_LINE,
    NOTE_CHAR,
    NOTE_DROP_PT,
    SERIF_PT,
    STYLES,
    TONES,
    Ink,
    raster_width,
)

from generator.sheet.writing import PanelBox, writing_boxes

NODE_PT = 7.0
"""A graph's node circle's radius: room for its number, at a matrix line's height."""


@dataclass(frozen=True)
class Layer:
    """Lines of text laid over a panel, all in one style (a style per layer: no inline boxes)."""

    kind: str
    """given, answers or captions (see STYLES)."""
    left_pt: float
    """Its raster's left, from the panel's left."""
    top_pt: float
    """Its first line's top, from the panel's top."""
    text: str
    """Its lines, joined by newlines; spaces place each value in its column."""
    pitch_pt: float
    """The height of each of its lines (a layer is a run of lines of one height)."""

    @property
    def style(self) -> Ink:
        """How it is printed."""
        return STYLES[self.kind]

    @property
    def relative_size(self) -> float:
        """Its font size relative to the panel's matrix font (1 for the values, less for captions)."""
        return self.style.size / FONT_PT


Point = tuple[float, float]


@dataclass(frozen=True)
class Shapes:
    """Everything on a panel that is not text, grouped by colour; in raster points (scale 1),
    x from the raster's left (the outer brackets reach EDGE_PT further out), y from its top."""

    width: float
    """The canvas, outer brackets' room included."""
    height: float
    """The canvas's height."""
    fills: tuple[tuple[str, tuple[tuple[float, float, float, float], ...]], ...]
    """(colour, rectangles as x, y, width, height), drawn first, in order."""
    strokes: tuple[tuple[str, float, tuple[tuple[Point, ...], ...]], ...]
    """(colour, line width, polylines), drawn over the fills, in order."""


@dataclass(frozen=True)
class PanelView:
    """A grid as one drawing (brackets, tints, writing boxes) under a few layers of text lines."""

    width_pt: float
    """Width of the panel."""
    height_pt: float
    """Height of the panel."""
    scale: float
    """Size relative to the standard 10 pt matrices."""
    shapes: Shapes
    """Everything that is not text (our own numbers only, never user text)."""
    layers: tuple[Layer, ...]
    """Text, one layer per style."""
    keep: bool = False
    """A band that stays on the page of the band after it: it holds a factor of a product there."""
    boxes: tuple[PanelBox, ...] = ()
    """Its computed matrices' writing boxes (struck-out cells aside), for a scanner."""

    @property
    def font_pt(self) -> float:
        """The matrix font's size on this panel."""
        return round(FONT_PT * self.scale, 2)


class _Raster:
    """Text on a raster of characters and lines; overlapping spaces never erase a neighbour."""

    def __init__(self) -> None:
        self.rows: dict[int, list[str]] = {}

    def put(self, row: int, col: int, text: str) -> None:
        line = self.rows.setdefault(row, [])
        col = max(0, col)
        if len(line) < col + len(text):
            line.extend(" " * (col + len(text) - len(line)))
        for k, ch in enumerate(text):
            if ch != " ":
                line[col + k] = ch

    def layers(self, kind: str, left_pt: float, char_pt: float, pitches: Sequence[float], scale: float,
               drop_pt: float = 0.0, drop_lines: float = 0.0) -> list[Layer]:
        """The raster's lines as layers, one per run of used lines of one height (`pitches`, in
        raster units, each line's), each from its first line and its first used column, moved
        down by `drop_pt` and by `drop_lines` of its line height.

        Spaces are glyphs to WeasyPrint: the indent a run's lines share becomes its offset.
        """
        tops = line_tops(pitches)
        runs: list[list[int]] = []
        for r in sorted(self.rows):
            if runs and pitches[r] == pitches[runs[-1][-1]] and all(
                    pitches[k] == pitches[r] for k in range(runs[-1][-1], r)):
                runs[-1].append(r)
            else:
                runs.append([r])
        out = []
        for run in runs:
            first, last = run[0], run[-1]
            lines = ["".join(self.rows.get(r, ())).rstrip() for r in range(first, last + 1)]
            if not any(lines):
                continue
            indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line)
            text = "\n".join(line[indent:] for line in lines)
            top = (tops[first] + drop_lines * pitches[first]) * scale + drop_pt
            out.append(Layer(kind, round(left_pt + indent * char_pt, 2), round(top, 2), text,
                             round(pitches[first] * scale, 4)))
        return out


def _form_start(col: float, j: int, cell_w: int, form: str) -> int:
    """Where an unreduced fraction starts, in caption characters: centred in cell j of a matrix
    whose body starts at character `col`."""
    return round((col + (j + 0.5) * cell_w) / CAPTION_CHAR - len(form) / 2)


class _Drawing:
    """Shapes grouped by style: one path per colour, however many matrices share it."""

    def __init__(self) -> None:
        self.fills: dict[str, list[tuple[float, float, float, float]]] = {}
        self.strokes: dict[tuple[str, float], list[tuple[Point, ...]]] = {}

    def rect(self, fill: str, x: float, y: float, w: float, h: float) -> None:
        self.fills.setdefault(fill, []).append((x, y, w, h))

    def line(self, stroke: str, width: float, *points: Point) -> None:
        self.strokes.setdefault((stroke, width), []).append(points)

    def matrix(self, m: MatrixView, x: float, tops: Sequence[float]) -> None:
        """A body whose text starts at x, its lines' tops `tops` (and its foot last): tint,
        writing boxes, struck-out cells, brackets."""
        tone = TONES[m.tone]
        y, h = tops[0], tops[-1] - tops[0]
        w, cw = m.text_chars * CHAR_PT, m.cell_w * CHAR_PT
        rows = tops[::m.cell_h]  # each cell row's top, and the foot
        pad = 0.6 if m.boxes else GIVEN_PAD_PT  # half a bracket's width, or room to breathe
        self.rect(tone.tint, x - pad, y, w + 2 * pad, h)
        if m.boxes:
            for j in range(1, m.cols):
                self.line(BOX_LINE, 0.5, (x + j * cw, y), (x + j * cw, y + h))
            for top in rows:
                self.line(BOX_LINE, 0.5, (x, top), (x + w, top))
            if m.guided:
                hidden = set(m.masked)
                for i in range(m.rows):
                    middle = tops[i * m.cell_h + 1]
                    for j in range(m.cols):
                        if (i, j) in hidden:  # a struck-out cell takes nothing written
                            continue
                        left, right = x + j * cw + GUIDE_INSET_PT, x + (j + 1) * cw - GUIDE_INSET_PT
                        form = m.unreduced[i][j] if m.unreduced else ""
                        if form:  # the guide stops either side of a key's unreduced fraction
                            start = _form_start(x / CHAR_PT, j, m.cell_w, form) * CAPTION_CHAR * CHAR_PT
                            end = start + len(form) * CAPTION_CHAR * CHAR_PT
                            self.line(GUIDE_LINE, 0.4, (left, middle), (start - GUIDE_INSET_PT, middle))
                            self.line(GUIDE_LINE, 0.4, (end + GUIDE_INSET_PT, middle), (right, middle))
                        else:
                            self.line(GUIDE_LINE, 0.4, (left, middle), (right, middle))
        for i in m.split_rows:
            self.line(tone.ink, 1.0, (x, rows[i]), (x + w, rows[i]))
        for j in m.split_cols:
            self.line(tone.ink, 1.0, (x + j * cw, y), (x + j * cw, y + h))
        for i, j in m.masked:
            cx, cy, ch = x + j * cw, rows[i], rows[i + 1] - rows[i]
            self.rect(MASK_FILL, cx, cy, cw, ch)
            self.line(MASK_LINE, 0.6, (cx, cy + ch), (cx + cw, cy))
        for i, row in enumerate(m.marks):
            for j, verdict in enumerate(row):
                if verdict in MARKS:
                    self.mark(verdict, x + (j + 1) * cw - MARK_PT - 1.2, rows[i] + 1.2)
        left, right = x - pad, x + w + pad
        self.line(tone.ink, 1.2, (left + SERIF_PT, y), (left, y), (left, y + h), (left + SERIF_PT, y + h))
        self.line(tone.ink, 1.2, (right - SERIF_PT, y), (right, y), (right, y + h), (right - SERIF_PT, y + h))

    def graph(self, m: MatrixView, x: float, tops: Sequence[float]) -> None:
        """A graph whose body's text starts at x, its lines' tops `tops`: a circle around each
        node's number, a line between the circles of each edge."""
        ink, radius = TONES[m.tone].ink, NODE_PT
        centres = [(x + (col + 0.5) * CHAR_PT, (tops[line] + tops[line + 1]) / 2) for line, col in m.nodes]
        for i, j in m.edges:
            (x0, y0), (x1, y1) = centres[i], centres[j]
            length = math.hypot(x1 - x0, y1 - y0)
            dx, dy = (x1 - x0) / length * radius, (y1 - y0) / length * radius
            self.line(ink, 0.9, (x0 + dx, y0 + dy), (x1 - dx, y1 - dy))
        for cx, cy in centres:
            self.line(ink, 0.9, *((round(cx + radius * math.cos(a), 3), round(cy + radius * math.sin(a), 3))
                                  for a in (2 * math.pi * k / 24 for k in range(25))))

    def mark(self, verdict: str, x: float, y: float) -> None:
        """A verdict's mark with its top left at (x, y): a tick, a tick with a tail (barred when
        trivial), a cross, a square."""
        s, ink = MARK_PT, MARKS[verdict]
        if verdict in ("correct", "carried", "trivial"):
            self.line(ink, 0.9, (x, y + 0.55 * s), (x + 0.35 * s, y + s), (x + s, y))
            if verdict in ("carried", "trivial"):
                self.line(ink, 0.9, (x - 0.6 * s, y + 0.55 * s), (x, y + 0.55 * s))
            if verdict == "trivial":  # the tail barred: a grey-scale print tells it from carried
                self.line(ink, 0.9, (x - 0.6 * s, y + 0.3 * s), (x - 0.6 * s, y + 0.8 * s))
        elif verdict == "wrong":
            self.line(ink, 0.9, (x, y), (x + s, y + s))
            self.line(ink, 0.9, (x, y + s), (x + s, y))
        else:
            self.line(ink, 0.6, (x, y), (x + s, y), (x + s, y + s), (x, y + s), (x, y))

    def shapes(self, width: float, height: float) -> Shapes:
        # Writing boxes first: brackets and strokes of struck-out cells go over their ends.
        strokes = sorted(self.strokes.items(), key=lambda s: s[0][0] != BOX_LINE)
        return Shapes(
            width=width, height=height,
            fills=tuple((fill, tuple(rects)) for fill, rects in self.fills.items()),
            strokes=tuple((colour, w, tuple(lines)) for (colour, w), lines in strokes),
        )


Part = tuple[Sequence[Placed], Sequence[float], int]
"""Matrices on a raster of their own: (matrices, each line's height, the first character's column)."""


def panel(cells: Sequence[Placed], cols: int, pitches: Sequence[float], scale: float = 1.0) -> PanelView:
    """Matrices placed on one raster, drawn as one picture under a few text layers per style."""
    return _panel([(cells, pitches, 0)], cols, scale)


def _panel(parts: Sequence[Part], cols: int, scale: float) -> PanelView:
    """Rasters side by side (each with its own line heights) as one picture under its text layers.

    WeasyPrint's cost grows with boxes and text lines, not with characters: a grid of a dozen
    matrices is here a few blocks of text and one picture, the same on every machine.
    """
    drawing = _Drawing()
    layers: list[Layer] = []
    boxes: list[PanelBox] = []
    for cells, pitches, offset in parts:
        boxes += writing_boxes([replace(c, col=c.col + offset) for c in cells], line_tops(pitches), scale)
        rasters = _rasters(drawing, [replace(c, col=c.col + offset) for c in cells], line_tops(pitches))
        layers += [layer for kind, raster in rasters.items()
                   for layer in raster.layers(kind, EDGE_PT * scale, CHAR_PT * scale * STYLES[kind].size / FONT_PT,
                                              pitches, scale,
                                              {"captions": CAPTION_DROP_PT, "notes": NOTE_DROP_PT}.get(kind, 0.0) * scale,
                                              # On the guide: half a line below its fraction's.
                                              0.5 if kind == "unreduced" else 0.0)]
    order = list(STYLES)
    layers.sort(key=lambda layer: order.index(layer.kind))  # stable: a style's runs stay in reading order
    width = raster_width(cols)
    height = max(sum(pitches) for _, pitches, _ in parts) + FOOT_PT
    return PanelView(
        width_pt=round(width * scale, 2), height_pt=round(height * scale, 2), scale=scale,
        shapes=drawing.shapes(width, height), layers=tuple(layers), boxes=tuple(boxes),
    )


def _rasters(drawing: _Drawing, cells: Sequence[Placed], tops: Sequence[float]) -> dict[str, _Raster]:
    """Every matrix's text on a raster per style, its shapes on `drawing` (lines at `tops`)."""
    rasters: dict[str, _Raster] = {}
    for c in cells:
        m = c.m
        text = m.caption_text
        # Captions are 7.5 pt: their raster is 3/4 of a matrix character.
        start = (round((c.col + m.text_chars) / CAPTION_CHAR) - len(text) if c.end
                 else round(c.col / CAPTION_CHAR))
        if m.nodes:  # a graph: its caption, its nodes' numbers, its circles and edges
            rasters.setdefault("captions", _Raster()).put(c.row, start, text)
            given = rasters.setdefault("given", _Raster())
            for k, (line, col) in enumerate(m.nodes):
                given.put(c.body_row + line, c.col + col, str(k + 1))
            drawing.graph(m, c.col * CHAR_PT, tops[c.body_row:c.body_row + m.text_lines + 1])
            continue
        captions = rasters.setdefault("captions", _Raster())
        captions.put(c.row, start, text)
        for j, token in enumerate(m.tokens):
            middle = c.col + (j + 0.5) * m.cell_w
            captions.put(c.row + 1, round(middle / CAPTION_CHAR - len(token) / 2), token)
        for k, label in enumerate(m.row_labels):  # right-aligned, a caption character from the bracket
            captions.put(c.body_row + k * m.cell_h, math.floor(c.col / CAPTION_CHAR) - 1 - len(label), label)
        for i, row in enumerate(m.notes):
            for j, note in enumerate(row):
                if note:  # right-aligned in the cell's last line, under the student's value
                    right = (c.col + (j + 1) * m.cell_w) / NOTE_CHAR
                    rasters.setdefault("notes", _Raster()).put(c.body_row + (i + 1) * m.cell_h - 1,
                                                               math.floor(right - 0.5) - len(note), note)
        for i, row in enumerate(m.unreduced):
            for j, form in enumerate(row):
                if form:
                    rasters.setdefault("unreduced", _Raster()).put(c.body_row + i * m.cell_h,
                                                                   _form_start(c.col, j, m.cell_w, form), form)
        if m.lines:
            layer = rasters.setdefault("answers" if m.answers else "given", _Raster())
            for k, line in enumerate(m.lines):
                layer.put(c.body_row + k, c.col, line)
        drawing.matrix(m, c.col * CHAR_PT, tops[c.body_row:c.body_row + m.text_lines + 1])
    return rasters


def grid_panel(g: GridView) -> PanelView:
    """A whole grid as one panel."""
    return panel(g.cells, g.cols, g.pitches, g.scale)


def band_panels(g: GridView, kept: frozenset[int] = frozenset()) -> list[PanelView]:
    """A grid as one panel per band, so that a page can end between two bands, but never after
    a band in `kept` (by index)."""
    out, first, pitches = [], 0, g.pitches
    for k, (lines, cells) in enumerate(g.bands):
        out.append(replace(panel(cells, g.cols, pitches[first:first + lines], g.scale), keep=k in kept))
        first += lines
    return out


def side_by_side(left: GridView, right: GridView) -> PanelView:
    """Two grids of the same scale as one panel, side by side, as far apart as two columns; each
    keeps its own lines (a caption on one side faces a writing line on the other)."""
    return _panel([(left.cells, left.pitches, 0), (right.cells, right.pitches, left.cols + GAP)],
                  side_by_side_cols(left, right), left.scale)


def side_by_side_cols(left: GridView, right: GridView) -> int:
    return left.cols + GAP + right.cols


def text_panel(rows: Sequence[tuple[str, Sequence[str]]], width_pt: float, scale: float,
               pitch: float = LINE_PT) -> PanelView:
    """Lines of our own text as a panel, each (style, its pieces), broken only between pieces
    to fit `width_pt` (`pitch` apart, at scale 1): monospaced, so the breaking is exact, and
    painted into PDF pages like the grids."""
    rasters: dict[str, _Raster] = {}
    line = 0
    for kind, words in rows:
        per_line = max(10, int(width_pt / (CHAR_PT * scale * STYLES[kind].size / FONT_PT)))
        current = ""
        for word in words:
            if current and len(current) + 1 + len(word) > per_line:
                rasters.setdefault(kind, _Raster()).put(line, 0, current)
                line, current = line + 1, word
            else:
                current = f"{current} {word}" if current else word
        if current:
            rasters.setdefault(kind, _Raster()).put(line, 0, current)
            line += 1
    order = list(STYLES)
    layers = tuple(layer for kind, raster in sorted(rasters.items(), key=lambda item: order.index(item[0]))
                   for layer in raster.layers(kind, 0.0, CHAR_PT * scale * STYLES[kind].size / FONT_PT,
                                              [pitch] * line, scale))
    height = line * pitch
    return PanelView(width_pt=round(width_pt, 2), height_pt=round(height * scale, 2), scale=scale,
                     shapes=Shapes(width=width_pt / scale, height=height, fills=(), strokes=()), layers=layers)


_POINT = re.compile(r"(?<=\d)\.(?=\d)")


def with_decimal_comma(p: PanelView) -> PanelView:
    """A panel whose decimals read 0,38 rather than 0.38 (only a point between digits changes)."""
    return replace(p, layers=tuple(replace(layer, text=_POINT.sub(",", layer.text)) for layer in p.layers))
