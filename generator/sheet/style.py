"""How a sheet looks, in numbers: the matrix raster, colours, text styles, margins."""

from __future__ import annotations

from dataclasses import dataclass

CHAR_PT = 6.0
"""Width of one character of the 10 pt monospaced matrix font (0.6 em)."""


LINE_PT = 16.0
"""Height of one line of our own monospaced text outside the grids (a graded sheet's score)."""


CAPTION_LINE_PT = 11.5
"""Height of a grid's caption line (a matrix's name, or its column headings), at scale 1."""


VALUE_LINE_PT = 19.9
"""Height of a grid line holding one value in each cell: a writing box at least 7 mm tall,
whatever the grid's scale (a hand writes no smaller on a shrunk grid)."""


FRACTION_LINE_PT = 17.1
"""Height of each line of a two-line cell (a fraction above the guide, its decimals below):
2 × 6 mm at least."""


MAX_STRETCH = 1.3
"""The most a sheet's value lines grow to use the page below them (9 mm a single value)."""


GAP = 2
"""Characters between the bodies of two columns: room for both brackets and some air."""


EDGE_PT = 3.5
"""Room for the outer brackets, each side of a grid."""

FOOT_PT = 1.0
"""Below a grid's last line: the bottom brackets' half width (a panel is this much taller)."""


CAPTION_CHAR = 0.75
"""A caption character (7.5 pt) in matrix characters (10 pt)."""


def raster_width(cols: int) -> float:
    """Width of a raster `cols` characters wide, with room for the outer brackets (at scale 1)."""
    return cols * CHAR_PT + 2 * EDGE_PT


@dataclass(frozen=True)
class Tone:
    """One colour family: its brackets, and the tint behind its bodies."""

    ink: str
    """Brackets (and the colour the family is known by)."""
    tint: str
    """Behind the values or the writing boxes."""


TONES = {
    # Tints differ in lightness too, so that a grey-scale print still tells them apart.
    "input": Tone("#a07800", "#fff1bf"),
    "weight": Tone("#4f5d75", "#e4e9f1"),
    "q": Tone("#23703f", "#eef8f1"),
    "k": Tone("#b5561f", "#fdf1e7"),
    "v": Tone("#5b3fa8", "#f2effa"),
    "score": Tone("#a3324f", "#fcf0f3"),
    "attn": Tone("#9c1c1c", "#fbe9e9"),
    "out": Tone("#1c5c96", "#eaf3fb"),
}
"""Colour families, in the spirit of the by-hand sheets."""


BOX_LINE = "#8a8a8a"
"""Lines of the writing boxes."""
GUIDE_LINE, GUIDE_INSET_PT = "#c8c8c8", 2.0
"""The faint line between a fraction and its decimals in a box, stopping short of its sides."""


MASK_FILL, MASK_LINE = "#d9d9d9", "#7a7a7a"
"""A struck-out cell: grey, crossed by one diagonal."""


GIVEN_PAD_PT = 2.5
"""Space between given values and their brackets (writing boxes touch theirs)."""


SERIF_PT = 2.6
"""Length of a bracket's top and bottom strokes."""


NOTE_CHAR = 0.6
"""A graded sheet's expected value, small in a wrong cell's corner, in matrix characters."""
NOTE_DROP_PT = 5.0
"""Notes sit this much below the middle of their cell's last line, under the student's value."""
MARKS = {
    # A shape per verdict, so that a grey-scale print still tells them apart.
    "correct": "#1e7d32",  # a tick
    "carried": "#1c5c96",  # a tick with a tail: right from the student's own numbers
    "trivial": "#8a6d00",  # a tick with a barred tail: from own numbers that left nothing to compute
    "wrong": "#b00020",  # a cross
    "blank": "#8a8a8a",  # an open square
    "unreadable": "#8a8a8a",  # an open square (the cell shows "?")
}
"""The colour of each verdict's mark on a graded sheet."""
MARK_PT = 3.6
"""A mark's size, in its cell's top right corner."""
CAPTION_DROP_PT = 0.5
"""Captions sit this much below the middle of their line, close to the body they name."""


FONT_PT = 10.0
"""A panel's matrix font, at scale 1 (one character is CHAR_PT wide)."""


@dataclass(frozen=True)
class Ink:
    """How some of our own text is printed: in the panel font ("Sheet Mono"), or for the
    sheet's prose (sheet/layout.py) in the prose font ("Sheet Sans", weights 400 and 600)."""

    size: float
    """In points (for a panel's layers: at scale 1)."""
    weight: int
    """400 regular, 700 bold."""
    colour: str
    spacing: float = 0.0
    """Letter spacing, in points."""


STYLES = {
    "given": Ink(FONT_PT, 400, "#1b1b1b"),
    "answers": Ink(FONT_PT, 700, "#0b4fa8"),
    "unreduced": Ink(FONT_PT * CAPTION_CHAR, 400, "#0b4fa8"),
    "captions": Ink(FONT_PT * CAPTION_CHAR, 400, "#5a5a5a"),
    "notes": Ink(FONT_PT * NOTE_CHAR, 400, "#b00020"),
    "workings": Ink(8.0, 400, "#0b4fa8"),  # a key's worked example (a panel of its own), in its colour
}
"""The text styles of a panel's layers, in drawing order; the one place they are defined (the
HTML layers take theirs from here, and PDF pages are painted from here, see `generator.output.paint`)."""


CODE_LABEL, CODE = Ink(7.0, 400, "#6b6b6b"), Ink(11.0, 700, "#1b1b1b", 0.5)
"""The header's top right: the words "Sheet code", then the code, left of its QR code."""


CODE_TOPS_PT = (8.0, 18.0)
"""Tops of their lines, from the header's top."""


CODE_RIGHT_PT = 48.0
"""Their right edge, from the header's right (the QR code is QR_PT wide)."""


FOOT = Ink(7.5, 400, "#555555")
"""The footer: the sheet code bottom left, the page number bottom right."""


FOOT_PREFIX = "attnsheet · "
"""Before the sheet code, bottom left."""


LARGE_PRINT_ON = {
    "a4-large": ("A3", 297 * 72 / 25.4, 420 * 72 / 25.4, 1.5),
    "letter-large": ("tabloid", 792.0, 1224.0, 1.45),
    "a4-double": ("A3", 420 * 72 / 25.4, 297 * 72 / 25.4, 2.0),
    "letter-double": ("tabloid", 1224.0, 792.0, 2.0),
}
"""Each paper's large prints: the paper it prints on (its name, width and height in points) and how much
larger everything prints on it (1.5 on A3; 1.45 on tabloid, the most its width allows with its margins;
twice on either turned sideways, whose width holds twice what an A4 page holds across, over pages half
as tall). A large-print page is laid out at its paper's size over that, then printed larger (output/enlarge)."""

LARGE_PAGES_PT = {page: (width / scale, height / scale) for page, (_, width, height, scale) in LARGE_PRINT_ON.items()}
"""A large-print page's width and height as it is laid out, exactly."""

PAPER_WIDTHS_PT = {"a4": 595.28, "letter": 612.0, **{p: round(w, 2) for p, (w, _) in LARGE_PAGES_PT.items()}}
"""Each paper's width (a large-print page's as it is laid out, before it is printed larger)."""

PAPER_HEIGHTS_PT = {"a4": 841.89, "letter": 792.0, **{p: round(h, 2) for p, (_, h) in LARGE_PAGES_PT.items()}}
"""Each paper's height."""

MARGINS_MM = (12, 13, 14, 13)
"""The page's margins, top, right, bottom and left; the footer is centred in the bottom one."""

A4_CONTENT_MM = 210 - MARGINS_MM[1] - MARGINS_MM[3]
"""What an A4 page holds across, inside its margins."""

PAPER_MARGINS_MM = {
    page: (MARGINS_MM[0], side, MARGINS_MM[2], side)
    for page, (width, _) in LARGE_PAGES_PT.items()
    if (side := round((width * 25.4 / 72 - A4_CONTENT_MM) / 2, 2))
}
"""A large-print page's margins: narrower at the sides, so that it holds what an A4 page holds across
(and, being taller over its width than A4, what a Letter page holds down) before it is printed larger
(11 and 6.3 mm on its paper)."""


def margins_of(paper: str) -> tuple[float, float, float, float]:
    """The margins of a page of `paper`, in mm: top, right, bottom, left."""
    return PAPER_MARGINS_MM.get(paper, MARGINS_MM)


FOOT_CLEAR_MM = 11.0
"""How far from the page's sides the footer's words start and end: clear of the registration marks
in its corners (sheet/marks: 5 mm in, 5 mm wide), with a millimetre to spare."""


def foot_inset_mm(margins: tuple[float, ...]) -> float:
    """How far inside the side margins the footer's words keep, in mm: none on the papers' own
    margins, some on a large-print page's narrower ones (clear of the marks)."""
    return max(0.0, FOOT_CLEAR_MM - min(margins[1], margins[3]))


RULES_PAD_PT = (5.0, 7.0)
"""The rules box's padding, top and bottom, left and right."""

RULES_BORDER_PT = 0.8
"""Its border's width."""

RULES_MAX_MM = 82
"""The widest its text may be beside a grid: a column of easy lines (the worked example's too)."""
RULES_MAX_PT = RULES_MAX_MM * 72 / 25.4


def content_width(paper: str) -> float:
    """Width inside the page margins of `paper`."""
    margins = margins_of(paper)
    return PAPER_WIDTHS_PT[paper] - (margins[1] + margins[3]) * 72 / 25.4


def content_height(paper: str) -> float:
    """Height inside the page margins of `paper`."""
    margins = margins_of(paper)
    return PAPER_HEIGHTS_PT[paper] - (margins[0] + margins[2]) * 72 / 25.4


HEADER_PT = 59.0
"""What a sheet's header takes at the top of its first page: the kind and title (33.23), the
name line (11.49), the padding and rule (6.2) and the gap below (8); sheet/layout.py sets them."""

RULES_LINE_PT, RULES_CHAR_PT = 11.0, 4.6
"""The rules box's line height, and (a little over) the average width of a character of its text."""

RULES_CHROME_PT = 26.0
"""What the rules box adds to its lines: its title, padding and border."""
RULES_CHROME_W_PT = 2 * (RULES_PAD_PT[1] + RULES_BORDER_PT)
"""What it adds to its text's width: its padding and border, both sides."""


QR_MM = 15
"""A QR code's side, and the code badge's height."""
QR_PT = round(QR_MM * 72 / 25.4, 2)
"""A QR code's side (15 mm)."""
