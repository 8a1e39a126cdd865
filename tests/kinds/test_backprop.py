"""One step of backpropagation: worked on paper, against an independent forward and backward pass, as properties, drawn, printed and graded."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from kindcases import codes_rebuild, graded, key_answers, prints_and_grades, refuses_problem, refuses_setting
from conftest import EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix
from test_pages import pages

from generator.core.formats import parse_problems, problem_from_json, problem_to_json
from generator.core.registry import grid_shapes, solve
from generator.draw.choose import kind_options
from generator.draw.search import draw
from generator.kinds.backprop.draw import PRESETS
from generator.kinds.backprop.steps import BackpropProblem

BACKPROP = parse_problems((EXAMPLES / "backprop.json").read_text())[0]


def t(m):
    return [list(r) for r in zip(*m)]


def mm(a, b):
    return [[sum(Fraction(a[i][k]) * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def passes(p: BackpropProblem) -> dict:
    """Forward and backward by plain loops over fractions, column convention (not the code under test)."""
    row = p.convention == "row"
    X, W1, W2, T = (t(m) if row else [list(r) for r in m] for m in (p.X, p.W1, p.W2, p.T))
    Z1 = [[z + p.b1[i] for z in r] for i, r in enumerate(mm(W1, X))]
    H = [[max(Fraction(0), z) for z in r] for r in Z1]
    Y = [[y + p.b2[i] for y in r] for i, r in enumerate(mm(W2, H))]
    dY = [[y - tt for y, tt in zip(r, s)] for r, s in zip(Y, T)]
    dH = mm(t(W2), dY)
    dZ1 = [[h if z > 0 else 0 for h, z in zip(r, s)] for r, s in zip(dH, Z1)]
    out = {
        "Z1": Z1,
        "H": H,
        "Y": Y,
        "dY": dY,
        "H_T": t(H),
        "dW2": mm(dY, t(H)),
        "db2": [[sum(r)] for r in dY],
        "dH": dH,
        "dZ1": dZ1,
        "dW1": mm(dZ1, t(X)),
        "db1": [[sum(r)] for r in dZ1],
    }
    if p.lr is not None:
        for name, w, grad in (("W2", W2, "dW2"), ("W1", W1, "dW1")):
            out[f"{name}_new"] = [[x - p.lr * g for x, g in zip(r, s)] for r, s in zip(w, out[grad])]
        out["b2_new"] = [[b - p.lr * g[0]] for b, g in zip(p.b2, out["db2"])]
        out["b1_new"] = [[b - p.lr * g[0]] for b, g in zip(p.b1, out["db1"])]
    return out


def test_the_backprop_example_on_paper():
    s = solve(BACKPROP)
    want = {
        "Z1": [[0], [1]],
        "H": [[0], [1]],
        "Y": [[1]],
        "dY": [[-2]],
        "dW2": [[0, -2]],
        "db2": [[-2]],
        "dH": [[-4], [-2]],
        "dZ1": [[0], [-2]],
        "dW1": [[0, 0], [-2, -4]],
        "db1": [[0], [-2]],
        "W2_new": [[2, 2]],
        "b2_new": [[1]],
        "W1_new": [[1, -1], [1, 3]],
        "b1_new": [[1], [0]],
    }
    assert {k: [list(r) for r in s[k]] for k in want} == want


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = text[text.index("## One step of learning: backpropagation (`backprop`)") :]
    assert "dW1 = |  0  0 |" in part and "W1_new = | 1 -1 |" in part and "b2_new = | 1 |" in part


@st.composite
def networks(draw):
    n, d0, d1, d2 = (draw(st.integers(1, 3)) for _ in range(4))
    lr = draw(st.sampled_from([None, Fraction(1), Fraction(1, 2), Fraction(1, 4)]))
    p = BackpropProblem(
        X=draw(int_matrix(d0, n)),
        W1=draw(int_matrix(d1, d0)),
        b1=draw(int_matrix(1, d1))[0],
        W2=draw(int_matrix(d2, d1)),
        b2=draw(int_matrix(1, d2))[0],
        T=draw(int_matrix(d2, n)),
        lr=lr,
    )
    if draw(st.booleans()):
        p = BackpropProblem(
            X=tuple(zip(*p.X)),
            W1=tuple(zip(*p.W1)),
            b1=p.b1,
            W2=tuple(zip(*p.W2)),
            b2=p.b2,
            T=tuple(zip(*p.T)),
            lr=lr,
            convention="row",
        )
    return p


@settings(max_examples=80, deadline=None)
@given(p=networks())
def test_the_solution_is_the_plain_computation_in_either_convention(p):
    s, want = solve(p), passes(p)
    assert set(s.grids) == set(want)
    for name, grid in want.items():
        shown = t(grid) if p.convention == "row" else grid
        assert [list(r) for r in s[name]] == shown, name
        assert grid_shapes(p)[1][name] == (len(shown), len(shown[0]))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


def test_relus_gradient_is_graded_from_the_students_own_z1():
    # Z1's first unit written 2 (the key: 0), and every later grid worked right from it: the
    # student's ReLU lets the unit through, their gate is open where the key's is shut.
    from dataclasses import replace

    slipped = passes(replace(BACKPROP, b1=(3, -1)))  # what a Z1 of (2, 1) gives, by plain loops
    doc = key_answers(BACKPROP)
    for name, grid in slipped.items():
        doc[name] = [[str(x) for x in r] for r in grid]
    for name in ("W1_new", "b1_new"):  # the update starts from the given weights, not the slipped bias
        doc[name] = [[str(x) for x in r] for r in passes(BACKPROP)[name]]
    doc["b1_new"] = [[str(b - Fraction(1, 2) * g[0])] for b, g in zip(BACKPROP.b1, slipped["db1"])]
    doc["W1_new"] = [[str(w - Fraction(1, 2) * g) for w, g in zip(r, s)] for r, s in zip(BACKPROP.W1, slipped["dW1"])]
    g = graded(BACKPROP, doc)
    assert g.step(None, "Z1").verdicts[0][0] == "wrong" and g.step(None, "H").verdicts[0][0] == "carried"
    assert g.step(None, "dZ1").verdicts[0][0] == "carried"  # 4 from their own open gate: the key has 0
    assert g.points == g.total - 1


SHAPES = [
    kind_options("backprop", preset=pr, tokens=n, d_model=d0, d_hidden=d1, d_out=d2, lr=lr, convention=c)
    for pr in PRESETS
    for n, d0, d1, d2, lr in ((1, 2, 2, 1, "1/2"), (2, 3, 3, 2, "none"), (2, 1, 2, 1, "1"))
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o", SHAPES, ids=lambda o: f"{o.preset}-{o.tokens}{o.d_model}{o.d_hidden}{o.d_out}-{o.convention}"
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=6)
    assert len({p.code for p in problems}) == 6
    lim = PRESETS[o.preset]
    for p in problems:
        found = passes(p)
        assert any(z <= 0 and h != 0 for r, s in zip(found["Z1"], found["dH"]) for z, h in zip(r, s))
        assert all(any(x != 0 for r in found[name] for x in r) for name in ("dY", "dW1", "dW2"))
        assert all(
            abs(x) <= lim.bound for name in ("Z1", "Y", "dY", "dW2", "dH", "dW1") for r in found[name] for x in r
        )
        assert (p.lr is None) == (o.lr == "none") and p.convention == o.convention
    codes_rebuild(o, problems)


@pytest.mark.parametrize(
    "args, line",
    [(["--tokens", "3"], "backprop sheets take 1 to 2"), (["--lr", "2"], "--lr"), (["--d-ff", "3"], "--d-ff is for")],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "backprop", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"W2": [[2, 1, 0]]}, "W2: expected 1×2 (d_2 × d_1), got 1×3"),
        ({"T": [[3, 1]]}, "T: expected 1×1 (d_2 × n), got 1×2"),
        ({"lr": "3/2"}, "lr: expected a weight from 0 to 1"),
        ({"lr": 0}, "lr: expected a learning rate above 0"),
        ({"V": [[1]]}, "unknown key 'V'"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "backprop.json", change, message)


def test_draw_stats_show_each_guarantee_held(run, tmp_path):
    r = run("draw", "--kind", "backprop", "--seed", "4", "--count", "40", "--stats")
    assert r.code == 0, r.err
    for line in (
        "ReLU's gradient matters: 40 of 40",
        "dY not all zero: 40 of 40",
        "no weight gradient all zero: 40 of 40",
    ):
        assert line in r.err, r.err
    assert run("key", parse_problems(r.out)[0].code, "--out", str(tmp_path / "k")).code == 0


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_is_one_page_inside_its_margins_and_its_class_grades(run, tmp_path, convention, lang, paper):
    prints_and_grades(
        run,
        tmp_path,
        "backprop",
        ["--tokens", "2", "--convention", convention],
        lang,
        paper,
        ("dW2", "dZ1", "W1_new", "Hᵀ"),
        gradebook=("dW1", "b1_new"),
    )


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "backprop", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    r = run("generate", "--problem", str(EXAMPLES / "backprop.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "dW2, first entry = row 1 of dY" in words
