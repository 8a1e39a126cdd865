"""Grading reads what was written exactly (issue 32): a decimal a program prints for the key, a stray quote in a CSV, and an error that makes the rest trivial earning nothing for it."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from schoolclient import cli, new_school

from generator.core.answers import parse_answers_json, skeleton
from generator.core.cells import read_cell
from generator.core.grade import matches
from generator.core.registry import grade, solve
from generator.core.numbers import sheet_value
from generator.core.student import Student
from generator.draw.choose import kind_options
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.output.gradebook import class_report
from generator.output.html import report_html
from generator.sheet.model import Settings


@pytest.fixture
def school(tmp_path):
    """A web class of three sheets and its teacher's client."""
    return new_school(tmp_path)


# --- 4. exact decimals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        0.32142857142857145,
        "0.3214285714285715",
        "0.32142857142857145",
        "0.321428571428571",
        "0.3214285714285714",
        "0.32",
    ],
)
def test_a_decimal_a_program_prints_for_the_key_is_right(written):
    assert matches(read_cell(written), Fraction(9, 28))


@pytest.mark.parametrize("written", ["0.3214285714285716", "0.33", "0.3", "0.32142857142858"])
def test_a_decimal_that_is_not_the_key_is_still_wrong(written):
    assert not matches(read_cell(written), Fraction(9, 28))


# --- 8. a stray quote -----------------------------------------------------------------------------------


def test_a_stray_quote_inside_an_unquoted_field_is_refused_with_its_line(tmp_path):
    assert cli("generate", "--count", "1", "--seed", "3", "--out", str(tmp_path / "b")).returncode == 0
    code = json.loads((tmp_path / "b" / "manifest.json").read_text())["sheets"][0]["code"]
    answers = tmp_path / "answers.csv"
    answers.write_text(f'code,head,step,row,col,value\n{code},1,Q,1,2,1"\n')
    r = cli("grade", str(answers), "--manifest", str(tmp_path / "b" / "manifest.json"))
    assert r.returncode == 1 and "line 2: a stray quote" in r.stderr and r.stderr.count("\n") == 1, r.stderr


# --- 12. an error that makes the rest trivial ------------------------------------------------------------


def played(problem, zeroed: str, head: bool = True, trivial: str = "none"):
    """A sheet whose `zeroed` grid is written as zeros and every later box as carried from it."""
    doc = skeleton(problem, problem.code)
    grids = doc["heads"][0] if head else doc
    grids[zeroed] = [[0] * len(row) for row in grids[zeroed]]
    for _ in range(40):
        (pending,) = parse_answers_json(json.dumps(doc), "sheet")
        result = grade(problem, pending.answers(problem, Student(), problem.code), trivial=trivial)
        changed = False
        for s in result.steps:
            target = doc["heads"][s.head - 1] if s.head else doc
            for i, row in enumerate(s.carried):
                for j, v in enumerate(row):
                    cells = target[s.step] if s.step == "sums" else target[s.step][i]
                    at = j
                    if cells[at] is None and v is not None and s.verdicts[i][j] != "masked":
                        cells[at] = sheet_value(v).replace("\u2212", "-")
                        changed = True
        if not changed:
            return result
    return result


def test_q_written_as_zeros_earns_nothing_for_the_steps_it_makes_trivial():
    problem = draw(DrawOptions(), 2026)[0]
    result = played(problem, "Q")
    verdicts = {s.step: {v for row in s.verdicts for v in row} for s in result.steps}
    for step in ("scores", "powers", "sums", "A", "Z"):
        assert "trivial" in verdicts[step], (step, verdicts[step])
    assert result.points < 100, result.points  # 143 of 152 before
    assert played(problem, "Q", trivial="full").points > result.points  # the teacher's credit
    report = class_report([result])
    assert report["trivial"] > 50
    assert "made their step trivial" in report_html(report, Settings())


@pytest.mark.parametrize(
    "kind,zeroed,trivial_steps", [("ffn", "H_pre", ("Y",)), ("transformer", "R", ("H_pre", "H", "Y", "out"))]
)
def test_its_kin_in_the_ffn_and_the_block(kind, zeroed, trivial_steps):
    problem = draw(kind_options(kind), 7)[0]
    result = played(problem, zeroed, head=False)
    verdicts = {s.step: {v for row in s.verdicts for v in row} for s in result.steps}
    for step in trivial_steps:
        assert "trivial" in verdicts[step], (step, verdicts[step])


def test_a_real_mistake_is_still_carried():
    problem = draw(DrawOptions(), 2026)[0]
    answers = skeleton(problem, problem.code)
    h = solve(problem).heads[0]
    answers["heads"][0]["Q"] = [[sheet_value(v) for v in row] for row in h.Q]
    answers["heads"][0]["Q"][0][0] = str(int(answers["heads"][0]["Q"][0][0]) + 1)
    (pending,) = parse_answers_json(json.dumps(answers), "sheet")
    result = grade(problem, pending.answers(problem, Student(), problem.code))
    assert not any(v == "trivial" for s in result.steps for row in s.verdicts for v in row)
