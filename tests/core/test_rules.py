"""The rules box and the worked example say what is true for the sheet in hand."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from generator.core.registry import solve
from generator.core.numbers import sheet_value
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.kinds.attention.sheet.rules import rules_lines, worked_example

EN, ES = "en", "es"


def test_exact_rules_ask_for_decimals_and_a_calculator_not_fractions():
    problem = draw(DrawOptions(rules="exact"), 1)[0]
    text = " ".join(rules_lines(problem, False, EN))
    assert "fraction" not in text and "calculator" in text and "2 places" in text
    hand = " ".join(rules_lines(draw(DrawOptions(), 1)[0], False, EN))
    assert "fractions (they need not be reduced)" in hand and "calculator" not in hand
    assert "fraction" not in " ".join(rules_lines(problem, True, EN))  # the key asks for nothing


def test_the_scaling_example_uses_the_sheets_divisor():
    problem = draw(DrawOptions(d_k=8, max_sum=1000), 1)[0]  # round(√8) = 3
    text = " ".join(rules_lines(problem, False, EN))
    assert "floor(x/3)" in text and "floor(−1/3) = −1" in text and "floor(−1/2)" not in text
    spanish = " ".join(rules_lines(problem, False, ES))
    assert spanish.startswith("• Escalado: suelo(x/3)") and "piso" not in spanish


def test_a_student_who_missed_the_lecture_is_told_how_a_product_is_read():
    assert any(
        "row of the factor on its left · the column of the factor above it" in line
        for line in rules_lines(draw(DrawOptions(), 1)[0], False, EN)
    )


SHAPES = [
    DrawOptions(),
    DrawOptions(preset="hard", causal=True),
    DrawOptions(convention="row"),
    DrawOptions(preset="hard", convention="row", causal=True),
    DrawOptions(rules="exact"),
]


@pytest.mark.parametrize("options", SHAPES, ids=["default", "hard causal", "row", "row hard causal", "exact"])
def test_the_worked_example_works_every_step_and_gets_the_key_right(options):
    for problem in draw(options, 3, 6):
        solution = solve(problem)
        lines = worked_example(problem, solution, EN)
        text = [" ".join(line) for line in lines]
        row = problem.convention == "row"
        n = problem.n_tokens
        j = n - 1 if problem.causal else 0
        h = solution.heads[0]
        pick = (lambda m, a, b: m[b][a]) if row else (lambda m, a, b: m[a][b])
        q0 = h.Q[j][0] if row else h.Q[0][j]
        assert text[0].endswith(_eq(q0)), text[0]  # a Q entry: row · column
        assert text[1].startswith(f"k1 · q{j + 1} =") and text[1].endswith(_eq(pick(h.scores, 0, j)))
        assert any(t.endswith(_eq(h.sums[j])) and t.startswith("Σ for") for t in text)
        z = h.Z[j][0] if row else h.Z[0][j]
        assert text[-1].endswith(_eq(z))
        for t in text:
            # Never "1/16/3" (a division of a fraction is in parentheses), never "3/40 = 3/40".
            assert not re.search(r"\d/\d+/\d", t), t
            assert not re.search(r"(?<![(\d])\d+/\d+·|·\d+/\d+(?!\))", t), t  # a fraction factor in parentheses
            for a, b in re.findall(r"(\S+) = (\S+?),?(?: |$)", t):
                assert a != b, t


def _eq(x) -> str:
    return f"{'≈' if isinstance(x, float) else '='} {sheet_value(x)}"


def test_a_reduced_weight_shows_its_unreduced_form_beside_it():
    for problem in draw(DrawOptions(preset="hard"), 2, 20):
        solution = solve(problem)
        a_line = " ".join(worked_example(problem, solution, EN)[-2])
        h = solution.heads[0]
        j = 0
        powers = [h.powers[r][j] for r in range(problem.n_tokens)]
        for p, a in zip(powers, (h.A[r][j] for r in range(problem.n_tokens))):
            if type(p) is int and Fraction(p, h.sums[j]) == a and f"{p}/{h.sums[j]}" != sheet_value(a):
                assert f"{p}/{h.sums[j]} = {sheet_value(a)}" in a_line
                return
    pytest.fail("no sheet with a weight to reduce was found")
