"""Batch norm and layer norm: worked on paper, against an independent computation over fractions, as properties, drawn, printed and graded."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from kindcases import graded, key_answers, prints_and_grades, refuses_problem, refuses_setting
from conftest import EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix
from test_pages import pages

from generator.core.formats import parse_problems, problem_from_json, problem_to_json
from generator.core.registry import grid_shapes, solve
from generator.draw.choose import kind_options
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.draw.sheetcodes import decode_code
from generator.kinds.norm.draw import PRESETS
from generator.kinds.norm.steps import NormProblem

NORM = parse_problems((EXAMPLES / "norm.json").read_text())[0]


def t(m):
    return tuple(zip(*m))


def root(x: Fraction):
    """√x where x is the square of a fraction (its top and bottom squares of whole numbers), else None."""
    top, bottom = x.numerator, x.denominator
    r, s = round(top**0.5), round(bottom**0.5)
    return Fraction(r, s) if top >= 0 and r * r == top and s * s == bottom else None


def normed(p: NormProblem) -> dict:
    """Every step by plain loops over fractions, column convention (stats as lists)."""
    row = p.convention == "row"
    X = [list(map(Fraction, r)) for r in (t(p.X) if row else p.X)]
    out = {}
    if p.W is not None:
        W = t(p.W) if row else p.W
        Z = [[sum(W[i][k] * X[k][j] for k in range(len(X))) + p.b[i] for j in range(len(X[0]))] for i in range(len(W))]
        out["Z"], X = Z, [[max(Fraction(0), x) for x in r] for r in Z]
        out["H"] = X
    d, n = len(X), len(X[0])
    by_row = p.axis == "batch"
    line = (lambda g, k: g[k]) if by_row else (lambda g, k: [r[k] for r in g])
    count = d if by_row else n
    mu = [sum(line(X, k)) / len(line(X, k)) for k in range(count)]
    D = [[X[i][j] - mu[i if by_row else j] for j in range(n)] for i in range(d)]
    S = [[x * x for x in r] for r in D]
    var = [sum(line(S, k)) / len(line(S, k)) for k in range(count)]
    sigma = [root(v) for v in var]
    out.update(mu=mu, D=D, S=S, var=var, sigma=sigma)
    if any(x is None or x == 0 for x in sigma):
        return out
    N = [[D[i][j] / sigma[i if by_row else j] for j in range(n)] for i in range(d)]
    Y = [[p.gamma[i] * N[i][j] + p.beta[i] for j in range(n)] for i in range(d)]
    out.update(N=N, Y=Y)
    return out


def shown(p, name, value):
    """A step's value (column convention; a statistic as a list) as the problem's own layout writes it."""
    if name in ("mu", "var", "sigma"):
        grid = [[x] for x in value] if p.axis == "batch" else [list(value)]
    else:
        grid = value
    return [list(r) for r in (t(grid) if p.convention == "row" else grid)]


def test_the_norm_example_on_paper():
    s = solve(NORM)
    assert [list(r) for r in s["mu"]] == [[3], [2]] and [list(r) for r in s["sigma"]] == [[2], [3]]
    assert [list(r) for r in s["N"]] == [[-1, -1, 1, 1], [Fraction(5, 3), Fraction(-1, 3), Fraction(-1, 3), -1]]
    assert [list(r) for r in s["Y"]] == [[-2, -2, 2, 2], [6, 0, 0, -2]]


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = text[text.index("## Batch norm and layer norm (`norm`)") :]
    assert "sigma = | 2 |" in part and "|  6  0 0 -2 |" in part and "| 5/3  -1/3 -1/3  -1 |" in part


@st.composite
def norms(draw):
    axis = draw(st.sampled_from(["batch", "layer"]))
    n, d = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    layer = draw(st.booleans())
    d0 = draw(st.integers(1, 3))
    X = draw(int_matrix(d0 if layer else d, n, -3, 4))
    p = NormProblem(
        X=X,
        gamma=draw(int_matrix(1, d))[0],
        beta=draw(int_matrix(1, d))[0],
        W=draw(int_matrix(d, d0)) if layer else None,
        b=draw(int_matrix(1, d))[0] if layer else None,
        axis=axis,
    )
    if draw(st.booleans()):
        p = NormProblem(
            X=t(p.X), gamma=p.gamma, beta=p.beta, W=None if p.W is None else t(p.W), b=p.b, axis=axis, convention="row"
        )
    return p


@settings(max_examples=60, deadline=None)
@given(p=norms())
def test_the_solution_is_the_plain_computation_in_either_convention(p):
    want = normed(p)
    if any(s is None or s == 0 for s in want["sigma"]):
        return  # a σ that is 0 or not a fraction: the key leaves N and Y to the teacher (the draw never prints one)
    s = solve(p)
    for name, value in want.items():
        assert [list(r) for r in s[name]] == shown(p, name, value), name
        assert grid_shapes(p)[1][name] == (len(shown(p, name, value)), len(shown(p, name, value)[0]))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


def test_a_norm_is_graded_from_the_students_own_mean():
    doc = key_answers(NORM)
    doc["mu"] = [["4"], ["2"]]  # the first feature's mean written 4 (the key: 3)
    doc["D"][0] = ["-3", "-3", "1", "1"]  # and D worked right from it
    g = graded(NORM, doc)
    assert g.step(None, "mu").verdicts[0][0] == "wrong"
    assert {v for v in g.step(None, "D").verdicts[0]} == {"carried"}


SHAPES = [
    kind_options("norm", preset=pr, tokens=n, d_model=d, axis=axis, layer_before=layer, d_in=2, convention=c)
    for pr in PRESETS
    for n, d, axis, layer in (
        (4, 2, "batch", False),
        (4, 3, "batch", True),
        (2, 4, "layer", False),
        (3, 4, "layer", False),
    )
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o", SHAPES, ids=lambda o: f"{o.preset}-{o.tokens}{o.d_model}-{o.axis}-{o.layer_before}-{o.convention}"
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=6)
    assert len({p.code for p in problems}) == 6
    lim = PRESETS[o.preset]
    for p in problems:
        want = normed(p)
        assert all(s is not None and s > 0 for s in want["sigma"])  # σ exact, never 0
        assert all(x.denominator <= lim.den for r in want["N"] for x in r)
        assert all(abs(x) <= lim.y for r in want["Y"] for x in r)
        assert p.axis == o.axis and (p.W is not None) == o.layer_before and p.convention == o.convention
    for p in problems[::3]:
        assert rebuild(p.code) == p and decode_code(p.code).options == o


@pytest.mark.parametrize(
    "args, line",
    [
        (["--tokens", "3"], "a batch norm works over 4 examples (the variance of 3"),
        (["--axis", "layer", "--d-model", "2"], "a layer norm works over 4 features"),
        (["--axis", "row"], "--axis"),
        (["--d-ff", "3"], "--d-ff is for"),
        (["--axis", "layer", "--layer-before"], "cannot be drawn with every σ exact"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "norm", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"gamma": [1, 2, 3]}, "gamma: expected 2 entries (d, X's features), got 3"),
        ({"axis": "row"}, "axis: expected batch or layer"),
        ({"W": [[1, 0], [0, 1]]}, "W, b: a layer before the norm has both"),
        ({"beta": [1]}, "beta: expected 2 entries"),
        ({"V": [[1]]}, "unknown key 'V'"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "norm.json", change, message)


def test_draw_stats_show_each_guarantee_held(run, tmp_path):
    r = run("draw", "--kind", "norm", "--seed", "4", "--count", "30", "--stats")
    assert r.code == 0, r.err
    assert "no σ of 0: 30 of 30" in r.err and "every σ exact: 30 of 30" in r.err, r.err
    assert run("key", parse_problems(r.out)[0].code, "--out", str(tmp_path / "k")).code == 0


@pytest.mark.parametrize("axis, layer", [("batch", True), ("layer", False)])
@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_is_one_page_inside_its_margins_and_its_class_grades(
    run, tmp_path, axis, layer, convention, lang, paper
):
    args = ["--axis", axis, "--d-model", "3" if axis == "batch" else "4", "--convention", convention]
    # A sheet on one page, or two (a layer before the norm, the row convention on Letter): never more.
    prints_and_grades(
        run,
        tmp_path,
        "norm",
        args + (["--layer-before"] if layer else []),
        lang,
        paper,
        ("mu", "sigma", "gamma", "var"),
        most_pages=1 if not layer and convention == "column" else 2,
        gradebook=("sigma", "Y"),
    )


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "norm", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    r = run("generate", "--problem", str(EXAMPLES / "norm.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "sigma, line 1" in words
