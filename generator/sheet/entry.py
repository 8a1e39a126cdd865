"""A sheet of any kind as a screen form: every cell of every matrix where the paper has it, in points.

The same grids as the printed sheet (each kind's folder gives them: its `sheet.form_blocks`),
placed the same way: a teacher types what is on a student's paper into boxes that sit where
that paper's boxes sit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from generator.core.registry import grid_shapes, heads_of, kind_of, part, step_names
from generator.sheet.grid import GridView, MatrixView
from generator.sheet.i18n import translations
from generator.sheet.panel import NODE_PT
from generator.sheet.style import CAPTION_CHAR, CHAR_PT, EDGE_PT, GAP

HEAD_GAP_PT = 24.0
"""Space between one head's form and the next."""
TITLE_PT = 18.0
"""Height of a head's title ("Head 2") above its boxes, when a sheet has several heads."""


@dataclass(frozen=True)
class Cell:
    """One box of the form."""

    x: float
    """Left, in points from the form's left."""
    y: float
    """Top, in points from the form's top."""
    w: float
    """Width, in points."""
    h: float
    """Height, in points (two lines for a fraction and its decimals)."""
    i: int
    """Row in the sheet's layout of its grid."""
    j: int
    """Column in the sheet's layout of its grid."""
    text: str = ""
    """The given value (X, the weights); empty for a box to fill."""
    masked: bool = False
    """Struck out by the causal mask: nothing to type."""


@dataclass(frozen=True)
class Box:
    """One matrix of the form."""

    head: Optional[int]
    """1-based head, or None for the concatenation and the output."""
    step: Optional[str]
    """Its step in answers@1 ("Q", "K_T", ...); None for given data."""
    label: str
    """Its name and what it is, as the sheet's caption says."""
    x: float
    """The caption's left."""
    y: float
    """The caption's top."""
    tone: str
    """Colour family (style.TONES)."""
    cells: tuple[Cell, ...]
    """Its boxes, row by row."""
    name: str = ""
    """Its view's name on the sheet ("X", "W_Q", "Qc", "S2", ...): what the projector lights up."""
    headings: tuple[Cell, ...] = ()
    """Its column headings (x1, q1, ...) above it and row headings (k1, ...) left of it, as on paper."""
    end: bool = False
    """Its caption ends where its grid ends (a matrix left of the one it multiplies)."""
    graph: Optional["Graph"] = None
    """A graph drawn in place of cells (a graph convolution's, beside its adjacency)."""
    spoken: str = ""
    """What a screen reader calls its cells' grid: its label, with its caption where another grid shares it."""


@dataclass(frozen=True)
class Graph:
    """A graph as the form draws it: numbered circles and the lines between them, in points."""

    nodes: tuple[tuple[float, float], ...]
    """Each node's centre, node 1 first."""
    edges: tuple[tuple[int, int], ...]
    """Its edges, as pairs of nodes (0-based)."""
    radius: float
    """A node's circle's radius."""
    words: str
    """What it shows, for a screen reader: its edges, 1–2, 2–3, …"""

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """Its left, top, width and height, circles included, in points."""
        pad = self.radius + 1.0
        xs, ys = [x for x, _ in self.nodes], [y for _, y in self.nodes]
        return (
            round(min(xs) - pad, 2),
            round(min(ys) - pad, 2),
            round(max(xs) - min(xs) + 2 * pad, 2),
            round(max(ys) - min(ys) + 2 * pad, 2),
        )

    @property
    def lines(self) -> tuple[tuple[float, float, float, float], ...]:
        """Each edge as a line from circle to circle, in points from its frame's top left."""
        left, top, _, _ = self.frame
        out = []
        for i, j in self.edges:
            (x0, y0), (x1, y1) = self.nodes[i], self.nodes[j]
            length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
            dx, dy = (x1 - x0) / length * self.radius, (y1 - y0) / length * self.radius
            out.append(
                (round(x0 + dx - left, 2), round(y0 + dy - top, 2), round(x1 - dx - left, 2), round(y1 - dy - top, 2))
            )
        return tuple(out)

    @property
    def circles(self) -> tuple[tuple[float, float, int], ...]:
        """Each node's centre from its frame's top left, and its number."""
        left, top, _, _ = self.frame
        return tuple((round(x - left, 2), round(y - top, 2), k + 1) for k, (x, y) in enumerate(self.nodes))


@dataclass(frozen=True)
class Block:
    """Grids of a sheet that go together on a form: a head's, or the grid after the heads."""

    head: Optional[int]
    """1-based head, or None."""
    title: str
    """Its title above it ("Head 2"), or ''."""
    grids: tuple[GridView, ...]
    """Its grids, at full size."""
    matrices: dict[str, MatrixView]
    """Its matrices by name (a step's, or a given's): what the projector lights up."""
    beside: bool = False
    """Its grids side by side, as on paper (else one below another)."""


@dataclass(frozen=True)
class Form:
    """A whole sheet as a form."""

    boxes: tuple[Box, ...]
    """Every matrix, in the order a student works (given data first in each head)."""
    width: float
    """The form's width, in points."""
    height: float
    """Its height, in points."""
    shapes: dict
    """The shape of each step's grid, as answers@1 wants them: {head: {step: (rows, cols)}}."""
    titles: tuple[tuple[str, float], ...] = ()
    """Each head's title and its top, as the printed sheet titles them (several heads only)."""


def _boxes(g: GridView, left: float, top: float, head: Optional[int], names: dict[int, str]) -> list[Box]:
    out = []
    tops = g.tops
    for c in g.cells:
        m = c.m
        x0 = left + EDGE_PT + c.col * CHAR_PT
        if m.nodes:  # a graph drawn beside its matrix, where the paper has it
            centres = tuple(
                (
                    round(x0 + (col + 0.5) * CHAR_PT, 2),
                    round(top + (tops[c.body_row + line] + tops[c.body_row + line + 1]) / 2, 2),
                )
                for line, col in m.nodes
            )
            words = ", ".join(f"{i + 1}–{j + 1}" for i, j in m.edges)
            out.append(
                Box(
                    None,
                    None,
                    m.caption_text,
                    x0,
                    top + tops[c.row],
                    m.tone,
                    (),
                    "",
                    (),
                    c.end,
                    Graph(centres, m.edges, NODE_PT, words),
                )
            )
            continue
        masked = set(m.masked)
        cells = []
        for i in range(m.rows):
            line = m.lines[i * m.cell_h] if m.lines else ""
            for j in range(m.cols):
                given = line[j * m.cell_w : (j + 1) * m.cell_w].strip() if not m.boxes else ""
                y0, y1 = tops[c.body_row + i * m.cell_h], tops[c.body_row + (i + 1) * m.cell_h]
                cells.append(
                    Cell(
                        x0 + j * m.cell_w * CHAR_PT,
                        top + y0,
                        m.cell_w * CHAR_PT,
                        y1 - y0,
                        i,
                        j,
                        given,
                        (i, j) in masked,
                    )
                )
        headings = []
        if m.tokens:  # the line between the caption and the body
            y0, y1 = tops[c.row + 1], tops[c.body_row]
            headings += [
                Cell(x0 + j * m.cell_w * CHAR_PT, top + y0, m.cell_w * CHAR_PT, y1 - y0, -1, j, name)
                for j, name in enumerate(m.tokens)
            ]
        for i, name in enumerate(m.row_labels):  # left of the body, in the label_chars before it
            y0, y1 = tops[c.body_row + i * m.cell_h], tops[c.body_row + (i + 1) * m.cell_h]
            headings.append(Cell(x0 - m.label_chars * CHAR_PT, top + y0, m.label_chars * CHAR_PT, y1 - y0, i, -1, name))
        caption_x = (
            left + EDGE_PT + (c.col + m.text_chars) * CHAR_PT - len(m.caption_text) * CHAR_PT * CAPTION_CHAR
            if c.end
            else left + EDGE_PT + c.col * CHAR_PT
        )
        step = m.step or None  # a given (X, the weights) is no step: its values are printed
        out.append(
            Box(
                head if step is None else m.head,
                step,
                m.caption_text,
                caption_x,
                top + tops[c.row],
                m.tone,
                tuple(cells),
                names.get(id(m), ""),
                tuple(headings),
                c.end,
            )
        )
    return out


def form(problem, solution, lang: str = "en") -> Form:
    """The sheet of `problem` (any kind) as a form, in its convention's layout, its captions in `lang`."""
    boxes: list[Box] = []
    top, width, titles = 0.0, 0.0, []
    head_steps, final_steps = step_names(problem)
    for block in part(problem.kind, "sheet").form_blocks(problem, solution, lang):
        names = {id(view): name for name, view in block.matrices.items()}
        first = len(boxes)
        if block.title:
            titles.append((block.title, round(top, 2)))
            top += TITLE_PT
        if block.beside:  # side by side, as on paper
            left, tallest = 0.0, 0.0
            for g in block.grids:
                boxes += _boxes(g, left, top, block.head, names)
                width = max(width, left + g.width_pt)
                left += (g.cols + GAP) * CHAR_PT
                tallest = max(tallest, g.height_pt)
            top += tallest
        else:  # one grid below the other, as on paper
            for n, g in enumerate(block.grids):
                boxes += _boxes(g, 0.0, top, block.head, names)
                top += g.height_pt + (HEAD_GAP_PT if n < len(block.grids) - 1 else 0.0)
                width = max(width, g.width_pt)
        # In the order a student works (Tab and Enter follow it): the givens, then the steps as the
        # graph has them, wherever the sheet places them (a recurrent layer's copied state stands
        # above the step it feeds).
        order = {name: k for k, name in enumerate(head_steps if block.head is not None else final_steps)}
        boxes[first:] = sorted(boxes[first:], key=lambda b: -1 if b.step is None else order.get(b.step, len(order)))
        top += HEAD_GAP_PT
    heads, final = grid_shapes(problem)
    shapes = {h + 1: heads for h in range(heads_of(problem))}
    if final:
        shapes[None] = final
    return Form(tuple(spoken(boxes, problem, lang)), round(width, 2), round(top, 2), shapes, tuple(titles))


def spoken(boxes: list[Box], problem, lang: str) -> list[Box]:
    """The boxes, each step's with the name a screen reader says of its cells: its label, and where
    two steps share a label (a copy and the grid it copies), what it is too (its face's caption)."""
    kind = kind_of(problem)
    row, _ = problem.convention == "row", translations(lang).gettext
    captions = {s.key[1]: _(s.face.caption_in(row)) for s in kind.steps(kind.column_twin(problem)) if s.face}
    first = [b.label.split("  ")[0] for b in boxes]
    shared = {name for b, name in zip(boxes, first) if b.step is not None and first.count(name) > 1}
    return [
        b
        if b.step is None
        else replace(b, spoken=f"{name}, {captions[b.step]}" if name in shared and captions.get(b.step) else name)
        for b, name in zip(boxes, first)
    ]
