"""What a teacher sees, checked from the layout objects: numbers that cannot be misread."""

from __future__ import annotations

import pytest

from generator.core.engine import solve
from generator.draw.options import DrawOptions
from generator.draw.search import draw
from generator.sheet.views import final_matrices, head_matrices

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
                    cell = line[j * m.cell_w:(j + 1) * m.cell_w].ljust(m.cell_w)
                    # A space each side of every value: two between neighbours, one to the bracket.
                    assert not cell.strip() or (cell[0] == " " and cell[-1] == " "), (
                        problem.code, m.label, repr(line), j)


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
    from generator.sheet.views import head_layout

    for problem in draw(SHAPES[shape], 9, 6):
        solution = solve(problem)
        _, key, _ = head_layout(problem, solution, 0, True)
        _, empty, _ = head_layout(problem, solution, 0, False, blank=True)
        assert {n: (g.width_pt, g.height_pt) for n, g in key.items()} == \
               {n: (g.width_pt, g.height_pt) for n, g in empty.items()}, problem.code
