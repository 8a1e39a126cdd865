"""A layer sheet's boxes grow where its page has room: never onto another page, never past the margins, and a sheet printed before keeps the layout it was printed with."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from generator.core.registry import kinds, part, solve
from generator.draw.choose import kind_options
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.output.prose import shaper
from generator.sheet.layers import OneGrid
from generator.sheet.layout import page_layout
from generator.sheet.model import Settings
from generator.sheet.roster import Student
from generator.sheet.style import MARGINS_MM

LAYERED = [k for k in kinds() if isinstance(getattr(part(k, "sheet"), "SHEET", None), OneGrid)]
"""Every kind whose sheet is one grid of layers (the plug-in's too, when installed)."""


def laid_out(problem, settings: Settings, key: bool, grows: bool):
    """The sheet's pages as the direct writer places them, its grid grown (or not)."""
    sheet = part(problem.kind, "sheet").SHEET
    view = (sheet if grows else replace(sheet, grows=lambda p: False)).view(
        problem, solve(problem), Student(), settings, key
    )
    return page_layout(view, settings, shaper())


def grid_of(problem, settings: Settings, key: bool = False):
    """The layer grid as the sheet prints it: the panels' scale, their lines' stretch."""
    sheet = part(problem.kind, "sheet").SHEET
    view = sheet.view(problem, solve(problem), Student(), settings, key)
    panels = [p for _, band in view.heads[-1].bands for p in band]
    return panels


def shapes(kind: str, count: int) -> list:
    """The kind's default options and `count` more of shapes, flags and choices picked at random
    within its limits (seeded by the kind's name; shapes no draw fills or no page prints are left out)."""
    from generator.core.errors import LayoutError
    from generator.draw.options import DrawError

    o = kind_options(kind)
    pick, out = random.Random(kind), [o]
    while len(out) < count + 1:
        change = {name: pick.randint(lo, hi) for name, (lo, hi) in o.SHAPE_LIMITS.items()}
        change.update({flag: pick.random() < 0.5 for flag in o.FLAGS})
        change.update({name: pick.choice(words) for name, words in o.CHOICES})
        if hasattr(o, "convention"):
            change["convention"] = pick.choice(["column", "row"])
        try:
            candidate = replace(o, **change)
            candidate.check_drawable()
            problem = draw(candidate, 1, count=1)[0]
            part(kind, "sheet").check_fits(problem, solve(problem), Settings())
        except (DrawError, LayoutError):
            continue
        out.append(candidate)
    return out


@pytest.mark.parametrize("kind", LAYERED)
@pytest.mark.parametrize(
    "paper, lang, key", [("a4", "en", False), ("letter", "es", True), ("a4", "es", True), ("letter", "en", False)]
)
def test_grown_boxes_never_add_a_page_nor_pass_the_margins(kind, paper, lang, key):
    settings = Settings(paper=paper, lang=lang, worked=key)
    for problem in (p for o in shapes(kind, 5) for p in draw(o, 31, count=2)):
        grown, plain = laid_out(problem, settings, key, True), laid_out(problem, settings, key, False)
        if grown is None or plain is None:  # a text engine lays it out: not this layout's business
            continue
        assert len(grown) <= len(plain), (problem.code, len(grown), len(plain))
        for page in grown:
            right = page.width - MARGINS_MM[1] * 72 / 25.4
            bottom = page.height - MARGINS_MM[2] * 72 / 25.4
            for placed in page.panels:
                assert placed.x + placed.panel.width_pt <= right + 0.5, (problem.code, placed.x, placed.panel.width_pt)
                assert placed.y + placed.panel.height_pt <= bottom + 0.5, (problem.code, placed.y)


def test_a_sheet_with_room_grows_and_one_printed_before_keeps_its_layout():
    # The recurrent layer's default sheet used 55 % of its page at the least size (issue 55).
    problem = draw(kind_options("rnn"), 1, count=1)[0]
    grown, plain = laid_out(problem, Settings(), False, True), laid_out(problem, Settings(), False, False)
    assert len(grown) == len(plain) == 1
    assert filled(plain[0]) < 0.6 < 0.7 < filled(grown[0])
    scale = {round(p.panel.scale, 2) for p in grown[0].panels if p.panel.boxes}
    assert scale and min(scale) > 1.0
    # Printed by its draw before boxes grew (code number 10): rebuilt as printed, at the least size.
    old = replace(kind_options("rnn"), draw_version=2)
    before = draw(old, 1, count=1)[0]
    assert before.code != problem.code and rebuild(before.code).code == before.code
    assert same_numbers(before, problem)
    panels = laid_out(before, Settings(), False, True)[0].panels
    assert {round(p.panel.scale, 2) for p in panels if p.panel.boxes} == {1.0}


def filled(page) -> float:
    """How far down its content's height a page's panels reach."""
    top = MARGINS_MM[0] * 72 / 25.4
    return (max(p.y + p.panel.height_pt for p in page.panels) - top) / (page.height - top - MARGINS_MM[2] * 72 / 25.4)


def same_numbers(a, b) -> bool:
    from generator.core.problem import same_numbers as same

    return same(a, b)


@pytest.mark.parametrize("kind", LAYERED)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_caption_runs_into_the_next_on_a_sheet_laid_out_now(kind, lang):
    """Issue 56, item 12: moe's "W2 the experts side by side" ran into "Y = W2·H" (one space apart)."""
    from generator.sheet.style import CAPTION_CHAR

    sheet = part(kind, "sheet").SHEET
    for o in shapes(kind, 3):
        problem = draw(o, 5, count=1)[0]
        for stacked_view in (False, True):
            m, g, stacked = sheet.layout(problem, solve(problem), False, lang)
            if stacked_view:  # the stacked grid a grown sheet may choose
                from generator.sheet.grid import grid

                g = grid([cells for cells, _ in sheet.rows(problem, m)(True)], spaced=True)
            lines: dict[int, list[tuple[int, int]]] = {}
            for c in g.cells:
                text = c.m.caption_text
                start = (
                    round((c.col + c.m.text_chars) / CAPTION_CHAR) - len(text) if c.end else round(c.col / CAPTION_CHAR)
                )
                lines.setdefault(c.row, []).append((start, start + len(text.rstrip())))
            for row, spans in lines.items():
                spans.sort()
                for (_, end), (start, _) in zip(spans, spans[1:]):
                    assert start - end >= 2, (kind, lang, problem.code, row, spans)
