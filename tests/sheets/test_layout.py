"""What a teacher sees, checked from the layout objects: numbers that cannot be misread."""

from __future__ import annotations

import pytest

from generator.core.registry import solve
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.kinds.attention.sheet.final import final_matrices
from generator.kinds.attention.sheet.views import head_matrices

SHAPES = {
    "default": DrawOptions(),
    "hard": DrawOptions(preset="hard"),
    "hard row": DrawOptions(preset="hard", convention="row"),
    "hard causal": DrawOptions(preset="hard", causal=True),
    "multi-head W_O": DrawOptions(preset="hard", heads=2, output_projection=True),
    "row multi-head W_O": DrawOptions(preset="hard", heads=2, output_projection=True, convention="row"),
    "exact rules": DrawOptions(rules="exact"),
    "big": DrawOptions(tokens=8, d_model=8, max_sum=2000),
}


def matrices(problem, key=True):
    solution = solve(problem)
    found = []
    for h in range(len(problem.heads)):
        found += head_matrices(problem, solution, h, key, "en").values()
    found += (final_matrices(problem, solution, key, "en") or {}).values()
    return found


@pytest.mark.parametrize("shape", SHAPES)
def test_every_printed_number_has_a_gap_to_its_neighbours_and_the_bracket(shape):
    for problem in draw(SHAPES[shape], 5, 12):
        for m in matrices(problem):
            for line in m.lines:
                for j in range(m.cols):
                    cell = line[j * m.cell_w : (j + 1) * m.cell_w].ljust(m.cell_w)
                    # A space each side of every value: two between neighbours, one to the bracket.
                    assert not cell.strip() or (cell[0] == " " and cell[-1] == " "), (
                        problem.code,
                        m.label,
                        repr(line),
                        j,
                    )


@pytest.mark.parametrize("convention", ["column", "row"])
def test_query_columns_and_key_rows_are_labelled(convention):
    problem = draw(DrawOptions(convention=convention), 1)[0]
    m = {v.label: v for v in matrices(problem, key=False)}
    queries, keys = ("q1", "q2", "q3", "q4"), ("k1", "k2", "k3", "k4")
    if convention == "column":
        assert m["Q"].tokens == queries and m["Kᵀ"].row_labels == keys
    else:
        assert m["Q"].row_labels == queries and m["Kᵀ"].tokens == keys


@pytest.mark.parametrize("shape", SHAPES)
def test_a_sheet_measured_as_empty_boxes_has_the_keys_sizes(shape):
    # A batch checks every sheet's fit up front from its empty boxes (no text formatted): the
    # sizes must be the key's, or a sheet could pass the check and then not fit.
    from generator.kinds.attention.sheet.views import head_layout

    for problem in draw(SHAPES[shape], 9, 6):
        solution = solve(problem)
        _, key, _ = head_layout(problem, solution, 0, True)
        _, empty, _ = head_layout(problem, solution, 0, False, blank=True)
        assert {n: (g.width_pt, g.height_pt) for n, g in key.items()} == {
            n: (g.width_pt, g.height_pt) for n, g in empty.items()
        }, problem.code


MM = 72 / 25.4


def _writing_rows(panel) -> list[tuple[float, list[float]]]:
    """Each box row of a panel's writing boxes, in points: (its height, where its guides split it)."""
    from generator.sheet.style import BOX_LINE, GUIDE_LINE, MASK_FILL, TONES

    tints = {tone.tint for tone in TONES.values()}
    lines = {
        colour: [p for _, _, polylines in [s] for p in polylines] for s in panel.shapes.strokes for colour in [s[0]]
    }
    rules = [(p[0][1], p[0][0], p[1][0]) for p in lines.get(BOX_LINE, []) if p[0][1] == p[1][1]]
    guides = [(p[0][1], p[0][0]) for p in lines.get(GUIDE_LINE, [])]
    rows = []
    for colour, rects in panel.shapes.fills:
        if colour not in tints or colour == MASK_FILL:
            continue
        for x, y, w, h in rects:  # one tint per matrix body: its writing boxes lie inside it
            ys = sorted({ry for ry, x0, x1 in rules if x <= x0 and x1 <= x + w and y - 0.01 <= ry <= y + h + 0.01})
            for top, foot in zip(ys, ys[1:]):
                split = sorted({gy for gy, gx in guides if top < gy < foot and x <= gx <= x + w})
                rows.append(((foot - top) * panel.scale, [(gy - top) * panel.scale for gy in split]))
    return rows


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("heads,projected", [(1, False), (1, True), (2, False), (2, True), (3, True)])
@pytest.mark.parametrize("paper,lang", [("a4", "en"), ("letter", "es")])
def test_every_writing_box_is_big_enough_to_write_in(convention, heads, projected, paper, lang):
    from generator.core.errors import LayoutError
    from generator.core.student import Student
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    options = DrawOptions(convention=convention, heads=heads, output_projection=projected)
    for problem in draw(options, 3, 2) + draw(
        DrawOptions(tokens=8, d_model=8, max_sum=2000, convention=convention), 3, 1
    ):
        try:
            view = sheet_view(problem, solve(problem), Student("Ada"), Settings(paper=paper, lang=lang), False)
        except LayoutError:
            continue  # refused up front, with advice (tests/sheets/test_pages.py)
        rows = [row for panel in view.panels for row in _writing_rows(panel)]
        assert rows, problem.code
        for panel in view.panels:
            assert panel.font_pt >= 7.0, (problem.code, panel.font_pt)
        for height, guides in rows:
            # One value: 7 mm of line; a fraction over its decimals: 6 mm each side of the guide.
            assert height >= 7 * MM - 0.01, (problem.code, height / MM)
            for g in guides:
                assert min(g, height - g) >= 6 * MM - 0.01, (problem.code, g / MM, height / MM)
