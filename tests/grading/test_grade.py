"""Grading with error carried forward: worked on paper, properties, cell forms and bad answers."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from conftest import EXAMPLES
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import problems, solved, to_row

from generator.core.answers import (
    AnswersError,
    parse_answers,
    read_cell,
    read_cell_text,
    skeleton,
)
from generator.core.cells import MAX_DIGITS
from generator.core.formats import parse_problems
from generator.core.registry import grade, has_final
from generator.kinds.attention.steps import FINAL_STEPS, HEAD_STEPS
from generator.kinds.attention.problem import Problem
from generator.core.problem import Rules
from generator.core.student import Student

WORKED = parse_problems((EXAMPLES / "worked.json").read_text())[0]


def t(m):
    return [list(r) for r in zip(*m)]


def text(x) -> object:
    """A value as a student writes it: an integer, or a fraction p/q."""
    if x is None:
        return None
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def work(problem: Problem, slip=None) -> dict:
    """What a student who follows every step from their own numbers writes, as answers@1.

    An independent walk of the chain in the column convention (hand rules or no scaling); `slip`
    = (head or None, step, i, j) adds 1 to that cell, in the column layout, and every later
    step is worked from it.
    """
    column = problem if problem.convention == "column" else to_column(problem)
    X = [list(r) for r in column.X]

    def mul(a, b):
        return [[sum(Fraction(x) * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]

    def bump(head, step, grid):
        if slip and slip[0] == head and slip[1] == step:
            i, j = slip[2], slip[3]
            grid[i][j] = grid[i][j] + 1
        return grid

    out: dict = {"format": "attnsheet/answers@1", "problem": None, "heads": []}
    zs = []
    for h, head in enumerate(column.heads, start=1):
        g = {}
        g["Q"] = bump(h, "Q", mul(head.W_Q, X))
        g["K"] = bump(h, "K", mul(head.W_K, X))
        g["V"] = bump(h, "V", mul(head.W_V, X))
        g["Q_copy"] = bump(h, "Q_copy", [r[:] for r in g["Q"]])
        g["K_T"] = bump(h, "K_T", t(g["K"]))
        g["V_copy"] = bump(h, "V_copy", [r[:] for r in g["V"]])
        g["scores"] = bump(h, "scores", mul(g["K_T"], g["Q_copy"]))
        d_k = len(head.W_Q)
        divisor = round(math.sqrt(d_k)) if column.rules.scale == "floor" else 1
        masked = lambda i, j: column.causal and i > j  # noqa: E731
        scale = (lambda x: math.floor(x / divisor)) if column.rules.scale == "floor" else (lambda x: x)
        g["scaled"] = bump(
            h,
            "scaled",
            [[None if masked(i, j) else scale(x) for j, x in enumerate(r)] for i, r in enumerate(g["scores"])],
        )
        g["powers"] = bump(h, "powers", [[0 if x is None else Fraction(3) ** x for x in r] for r in g["scaled"]])
        sums = [[sum(col) for col in zip(*g["powers"])]]
        g["sums"] = bump(h, "sums", sums)
        g["A"] = bump(
            h,
            "A",
            [
                [Fraction(p) / s if not masked(i, j) else 0 for j, (p, s) in enumerate(zip(r, g["sums"][0]))]
                for i, r in enumerate(g["powers"])
            ],
        )
        g["Z"] = bump(h, "Z", mul(g["V_copy"], g["A"]))
        zs += g["Z"]
        for step in HEAD_STEPS:
            if step == "sums":
                g[step] = [text(x) for x in g[step][0]]
                continue
            grid = g[step] if problem.convention == "column" else t(g[step])
            g[step] = [
                [
                    None
                    if (
                        step in ("scaled", "powers", "A")
                        and (masked(i, j) if problem.convention == "column" else masked(j, i))
                    )
                    else text(x)
                    for j, x in enumerate(r)
                ]
                for i, r in enumerate(grid)
            ]
        out["heads"].append(g)
    if has_final(column):
        concat = bump(None, "Z", zs)
        out["Z"] = [[text(x) for x in r] for r in (concat if problem.convention == "column" else t(concat))]
        if column.W_O is not None:
            output = bump(None, "output", mul(column.W_O, concat))
            out["output"] = [[text(x) for x in r] for r in (output if problem.convention == "column" else t(output))]
    return out


def to_column(problem: Problem) -> Problem:
    """The column-convention twin of a problem, transposed by the test's own code."""
    return problem if problem.convention == "column" else to_row(problem, convention="column")


def graded(problem: Problem, doc: dict, carry: bool = True):
    doc = {**doc, "problem": None, "code": "X"}
    (pending,) = parse_answers(json.dumps(doc), "answers")
    return grade(problem, pending.answers(problem, Student(), None), carry=carry)


def verdicts(g) -> dict:
    return {(s.head, s.step): s.verdicts for s in g.steps}


def not_credited(g) -> list:
    return [
        (s.head, s.step, i, j, v)
        for s in g.steps
        for i, r in enumerate(s.verdicts)
        for j, v in enumerate(r)
        if v not in ("correct", "carried", "masked")
    ]


# --- worked on paper --------------------------------------------------------------------------


def test_the_key_itself_is_all_correct():
    g = graded(WORKED, work(WORKED))
    # docs/exercise.md's example: Q, K 3×3; V 2×3; copies; three 3×3 score grids; 3 sums; A 3×3; Z 2×3.
    assert (g.points, g.total) == (93, 93)
    assert {v for s in g.steps for r in s.verdicts for v in r} == {"correct"}


def test_one_wrong_q_cell_followed_through():
    # Q[0][0] = 2 on paper; the student writes 3, copies it, and works on: k1·q1 = 1·3 + 1·0 + 0·1 = 3.
    doc = work(WORKED, slip=(1, "Q", 0, 0))
    assert doc["heads"][0]["Q"][0][0] == 3 and doc["heads"][0]["scores"][0][0] == 3
    g = graded(WORKED, doc)
    assert g.points == g.total - 1
    assert not_credited(g) == [(1, "Q", 0, 0, "wrong")]
    v = verdicts(g)
    assert v[(1, "Q_copy")][0][0] == "carried"
    # Column q1 of the scores changes (k·q1 = 3, 4, 7 instead of 2, 3, 5), and so does what follows.
    assert [v[(1, "scores")][i][0] for i in range(3)] == ["carried"] * 3
    assert [v[(1, "scores")][i][1] for i in range(3)] == ["correct"] * 3
    assert [row[0] for row in doc["heads"][0]["scores"]] == [3, 4, 7]
    # floor(3/2) = 1 = floor(2/2): the first scaled score is right either way; 2 and 3 are carried.
    assert [v[(1, "scaled")][i][0] for i in range(3)] == ["correct", "carried", "carried"]
    strict = graded(WORKED, doc, carry=False)
    affected = [
        (s.step, i, j) for s in g.steps for i, r in enumerate(s.verdicts) for j, x in enumerate(r) if x == "carried"
    ]
    assert affected and strict.points == g.total - 1 - len(affected)
    assert all(strict.step(1, step).verdicts[i][j] == "wrong" for step, i, j in affected)


def test_a_wrong_column_sum_followed_into_a_and_z():
    doc = work(WORKED, slip=(1, "sums", 0, 1))  # 16 for query 2 instead of 15
    assert doc["heads"][0]["sums"] == [15, 16, 15]
    assert doc["heads"][0]["A"][0][1] == "3/16"
    g = graded(WORKED, doc)
    assert not_credited(g) == [(1, "sums", 0, 1, "wrong")]
    v = verdicts(g)
    assert [v[(1, "A")][i][1] for i in range(3)] == ["carried"] * 3
    assert [v[(1, "Z")][i][1] for i in range(2)] == ["carried"] * 2
    assert v[(1, "A")][0][0] == "correct"


def test_a_blank_scores_grid_does_not_break_the_chain():
    doc = work(WORKED)
    doc["heads"][0]["scores"] = None
    g = graded(WORKED, doc)
    assert set(not_credited(g)) == {(1, "scores", i, j, "blank") for i in range(3) for j in range(3)}
    assert g.points == g.total - 9


def test_cell_forms():
    three_eighths = Fraction(3, 8)
    from generator.core.grade import matches

    for written in (
        "3/8",
        "6/16",
        " 3 / 8 ",
        "0.38",
        "0,38",
        ".38",
        "0.37",
        "0.375",
        "3/8 0.38",
        "6/16 = 0,38",
        "+3/8",
    ):
        assert matches(read_cell_text(written), three_eighths), written
    for written in ("0.4", "0.36", "3/8 0.4", "1/8 0.38", "3", "3/0", "abc", "3/8/2", "0.38 0.38"):
        assert not matches(read_cell_text(written), three_eighths), written
    assert matches(read_cell_text("−3/8"), -three_eighths) and matches(read_cell_text("3/-8"), -three_eighths)
    assert matches(read_cell_text("0.5"), Fraction(1, 2))  # one place is enough when it is exact
    assert matches(read_cell(-2), -2) and matches(read_cell("−2"), -2)
    assert read_cell(None).kind == read_cell("").kind == read_cell("  ").kind == "blank"
    for junk in (True, [1], {"a": 1}, "1 2", "x1", "1e5", "9" * 401):
        assert read_cell(junk).kind == "unreadable", junk


def test_exact_rules_match_within_rounding():
    p = Problem(X=WORKED.X, heads=WORKED.heads, rules=Rules("exact", "e"))
    doc = skeleton(p, "X")
    sol = solved(p)
    doc["heads"][0]["A"] = [[f"{x:.2f}" for x in r] for r in sol.heads[0].A]
    doc["heads"][0]["scaled"] = [[repr(x) if isinstance(x, float) else x for x in r] for r in sol.heads[0].scaled]
    g = graded(p, doc)
    assert {v for r in g.step(1, "A").verdicts for v in r} == {"correct"}
    assert {v for r in g.step(1, "scaled").verdicts for v in r} == {"correct"}


def test_masked_cells_are_never_graded():
    p = Problem(X=WORKED.X, heads=WORKED.heads, causal=True)
    doc = work(p)
    doc["heads"][0]["scaled"][2][0] = 99  # a masked cell, written on anyway
    g = graded(p, doc)
    assert g.step(1, "scaled").verdicts[2][0] == "masked"
    # Three cells (keys after their query) struck out in each of the scores, S', E and A.
    assert g.points == g.total == 93 - 4 * 3


# --- properties -------------------------------------------------------------------------------

hand_problems = problems(rules=Rules(), max_dim=4) | problems(rules=Rules("none", "base3"), max_dim=3)


def _fits(p: Problem) -> bool:
    """Small enough scores to exponentiate (the random problems may have large ones)."""
    try:
        solved(p)
    except Exception:
        return False
    return True


@settings(max_examples=60)
@given(hand_problems)
def test_the_key_as_answers_is_all_correct(p):
    solved(p)  # the rare random problem whose scores are too large to exponentiate is skipped
    doc = work(p)
    # A random problem's scores may be so large that a key's fraction runs past what a cell
    # holds (MAX_DIGITS digits: read as unreadable, rightly); no drawn sheet comes near it.
    assume(all(len(str(v)) <= MAX_DIGITS for v in _values(doc)))
    g = graded(p, doc)
    assert not not_credited(g) and g.points == g.total


def _values(doc) -> list:
    """Every number of an answers@1 object (a fraction's parts apart)."""
    if isinstance(doc, dict):
        return [v for key, item in doc.items() if key not in ("format", "problem") for v in _values(item)]
    if isinstance(doc, list):
        return [v for item in doc for v in _values(item)]
    return str(doc).lstrip("-").split("/") if doc is not None else []


@settings(max_examples=120)
@given(hand_problems, st.data())
def test_one_slip_followed_through_costs_exactly_one_point(p, data):
    solved(p)  # the rare random problem whose scores are too large to exponentiate is skipped
    steps = [(h, s) for h in range(1, len(p.heads) + 1) for s in HEAD_STEPS]
    steps += [(None, s) for s in FINAL_STEPS if (s == "Z" and has_final(p)) or (s == "output" and p.W_O is not None)]
    head, step = data.draw(st.sampled_from(steps))
    shapes = {
        "Q": (p.d_k, p.n_tokens),
        "K": (p.d_k, p.n_tokens),
        "V": (p.d_v, p.n_tokens),
        "Q_copy": (p.d_k, p.n_tokens),
        "K_T": (p.n_tokens, p.d_k),
        "V_copy": (p.d_v, p.n_tokens),
        "sums": (1, p.n_tokens),
        "Z": (p.d_v if head else len(p.heads) * p.d_v, p.n_tokens),
        "output": (p.d_model, p.n_tokens),
    }
    rows, cols = shapes.get(step, (p.n_tokens, p.n_tokens))
    i, j = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
    if p.causal and step in ("scores", "scaled", "powers", "A"):
        i = min(i, j)  # an unmasked cell
    doc = work(p, slip=(head, step, i, j))
    # As for the key alone: a random problem's values may run past what a cell holds (MAX_DIGITS).
    assume(all(len(str(v)) <= MAX_DIGITS for v in _values(doc)))
    g = graded(p, doc)
    missed = not_credited(g)
    assert len(missed) == 1 and missed[0][:2] == (head, step) and missed[0][4] == "wrong", missed
    assert g.points == g.total - 1


@settings(max_examples=40)
@given(problems(rules=Rules(), max_dim=4), st.data())
def test_the_row_twin_grades_to_the_transposed_verdicts(p, data):
    head = data.draw(st.integers(1, len(p.heads)))
    step = data.draw(st.sampled_from(["Q", "scores", "sums", "A"]))
    slip = (head, step, 0, 0)
    column = graded(p, work(p, slip))
    twin = to_row(p)
    row = graded(twin, work(twin, slip))
    assert (row.points, row.total) == (column.points, column.total)
    for a, b in zip(column.steps, row.steps):
        assert (a.head, a.step) == (b.head, b.step)
        assert b.verdicts == (a.verdicts if a.step == "sums" else tuple(zip(*a.verdicts)))


cells = st.one_of(
    st.none(),
    st.integers(-(10**401), 10**401),
    st.text(max_size=12),
    st.booleans(),
    st.floats(allow_nan=True),
    st.sampled_from(["3/8", "−1", "0,5", "1/0", "1 1/2", "∞", "٣"]),
)


@settings(max_examples=80)
@given(problems(max_dim=3), st.data())
def test_fuzzed_answers_grade_or_fail_cleanly(p, data):
    doc = skeleton(p, "X")
    for head in doc["heads"]:
        for step, grid in head.items():
            if data.draw(st.booleans()):
                head[step] = (
                    [data.draw(cells) for _ in grid]
                    if step == "sums"
                    else [[data.draw(cells) for _ in r] for r in grid]
                )
    if data.draw(st.booleans()) and doc["heads"]:
        doc["heads"][0]["Q"] = data.draw(st.lists(st.lists(cells, max_size=3), max_size=3))
    try:
        (pending,) = parse_answers(json.dumps(doc), "answers")
        g = grade(p, pending.answers(p, Student(), "X"))
    except AnswersError as error:
        assert "\n" not in str(error) and "Q" in str(error)
        return
    assert 0 <= g.points <= g.total


# --- bad answers ------------------------------------------------------------------------------


def test_a_grid_of_the_wrong_shape_names_the_grid_and_the_shape():
    doc = work(WORKED)
    doc["heads"][0]["K"] = [[1, 2], [3, 4]]
    with pytest.raises(AnswersError, match=r"heads\[0\]\.K: expected 3×3 \(rows × columns\), got 2×2"):
        graded(WORKED, doc)
    doc = work(WORKED)
    doc["heads"][0]["sums"] = [1, 2]
    with pytest.raises(AnswersError, match=r"heads\[0\]\.sums: expected a list of 3 values"):
        graded(WORKED, doc)
    doc = work(WORKED)
    doc["heads"][0]["QQ"] = None
    with pytest.raises(AnswersError, match="unknown step 'QQ'"):
        graded(WORKED, doc)
    doc = work(WORKED)
    doc["output"] = [[1]]
    with pytest.raises(AnswersError, match=r"this sheet has no output \(its grids after the heads: none\)"):
        graded(WORKED, doc)


def test_long_csv_cells_land_in_their_grids():
    csv_text = (
        'code,head,step,row,col,value\nX,1,Q,1,1,2\nX,1,Q,2,1,0\nX,1,sums,1,2,15\nX,1,A,1,1,1/5 0.20\nX,1,Z,2,3,"8/5"\n'
    )
    (pending,) = parse_answers(csv_text, "class.csv")
    g = grade(WORKED, pending.answers(WORKED, Student(), "X"))
    assert g.step(1, "Q").verdicts[0][0] == "correct" and g.step(1, "Q").verdicts[1][0] == "correct"
    assert g.step(1, "sums").verdicts[0][1] == "correct" and g.step(1, "A").verdicts[0][0] == "correct"
    assert g.step(1, "Z").verdicts[1][2] == "correct" and g.points == 5
    for bad, message in (
        ("X,1,QQ,1,1,2", "unknown step 'QQ'"),
        ("X,1,Q,4,1,2", "row 4, col 1 is outside Q"),
        ("X,2,Q,1,1,2", "head 2, but the sheet has 1"),
        ("X,,output,1,1,2", "no output"),
        ("X,1,Q,0,1,2", "row must be a whole number"),
    ):
        with pytest.raises(AnswersError, match=message):
            for pending in parse_answers("code,head,step,row,col,value\n" + bad + "\n", "c.csv"):
                pending.answers(WORKED, Student(), "X")
    with pytest.raises(AnswersError, match="line 3 writes the same cell as line 2"):
        parse_answers("code,head,step,row,col,value\nX,1,Q,1,1,2\nX,1,Q,1,1,3\n", "c.csv")
    with pytest.raises(AnswersError, match="no 'value' column"):
        parse_answers("code,head,step,row,col\nX,1,Q,1,1\n", "c.csv")
