"""The multi-layer perceptron: worked on paper, against an independent forward pass, as properties, drawn, printed and graded."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from kindcases import codes_rebuild, graded, key_answers, prints_and_grades, refuses_problem, refuses_setting
from conftest import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix
from test_pages import pages

from generator.core.formats import parse_problems, problem_from_json, problem_to_json
from generator.core.registry import grid_shapes, solve
from generator.draw.choose import kind_options
from generator.draw.search import draw
from generator.kinds.mlp.draw import PRESETS
from generator.kinds.mlp.steps import Layer, MLPProblem

MLP = parse_problems((EXAMPLES / "mlp.json").read_text())[0]


def t(m):
    return tuple(zip(*m))


def forward(p: MLPProblem) -> dict[str, list[list[Fraction]]]:
    """The forward pass by plain loops over plain fractions, column convention (not the code under test)."""
    row = p.convention == "row"
    H = [list(map(Fraction, r)) for r in (t(p.X) if row else p.X)]
    out = {}
    for k, layer in enumerate(p.layers, start=1):
        W = t(layer.W) if row else layer.W
        Z = [
            [sum(Fraction(W[i][j]) * H[j][e] for j in range(len(H))) + layer.b[i] for e in range(len(H[0]))]
            for i in range(len(W))
        ]
        out[f"Z{k}"] = Z
        if k < len(p.layers) or p.last == "relu":
            H = out[f"H{k}"] = [[max(Fraction(0), x) for x in r] for r in Z]
        else:
            H = Z
    return out


def shown(p, grid):
    """A column-convention grid as the problem's own convention writes it."""
    return [list(r) for r in (t(grid) if p.convention == "row" else grid)]


# --- on paper: docs/exercise.md's worked example -------------------------------------------------


def test_the_mlp_example_on_paper():
    s = solve(MLP)
    assert [list(r) for r in s["Z1"]] == [[1, 1], [-1, 1], [0, 0]]
    assert [list(r) for r in s["H1"]] == [[1, 1], [0, 1], [0, 0]]
    assert [list(r) for r in s["Z2"]] == [[2, 3]] and "H2" not in s.grids


def test_solve_prints_every_layer(run):
    r = run("solve", str(EXAMPLES / "mlp.json"))
    assert r.code == 0, r.err
    assert "[W1 | b1] and Z1 = W1·X + b1" in r.out and "H1 = ReLU(Z1)" in r.out and "Z2 = W2·H1 + b2" in r.out
    doc = json.loads(run("solve", str(EXAMPLES / "mlp.json"), "--json").out)
    assert doc["kind"] == "mlp" and doc["Z2"] == [[2, 3]] and doc["H1"][1] == [0, 1]


# --- as properties, against the plain forward pass ------------------------------------------------


@st.composite
def networks(draw, convention=None):
    depth = draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 4)) for _ in range(depth + 1)]
    n = draw(st.integers(1, 4))
    layers = tuple(
        Layer(draw(int_matrix(sizes[k], sizes[k - 1])), draw(int_matrix(1, sizes[k]))[0]) for k in range(1, depth + 1)
    )
    p = MLPProblem(X=draw(int_matrix(sizes[0], n)), layers=layers, last=draw(st.sampled_from(["linear", "relu"])))
    if (convention or draw(st.sampled_from(["column", "row"]))) == "row":
        p = MLPProblem(X=t(p.X), layers=tuple(Layer(t(x.W), x.b) for x in p.layers), last=p.last, convention="row")
    return p


@settings(max_examples=80)
@given(p=networks())
def test_the_solution_is_the_plain_forward_pass_in_either_convention(p):
    s, want = solve(p), forward(p)
    assert set(s.grids) == set(want)
    for name, grid in want.items():
        assert [list(r) for r in s[name]] == shown(p, grid), name
        assert grid_shapes(p)[1][name] == (len(shown(p, grid)), len(shown(p, grid)[0]))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


def slipped(p: MLPProblem, name: str, unit: int, example: int) -> dict:
    """A student who slips (+1) in one cell of `name` and works every later step right from their own
    numbers: the forward pass by plain loops on their own grids (not the code under test)."""
    row = p.convention == "row"
    doc = key_answers(p)
    H = [list(map(Fraction, r)) for r in (t(p.X) if row else p.X)]
    for k, layer in enumerate(p.layers, start=1):
        W = t(layer.W) if row else layer.W
        Z = [
            [sum(Fraction(W[i][j]) * H[j][e] for j in range(len(H))) + layer.b[i] for e in range(len(H[0]))]
            for i in range(len(W))
        ]
        if name == f"Z{k}":
            Z[unit][example] += 1
        doc[f"Z{k}"] = [[str(x) for x in r] for r in shown(p, Z)]
        if k < len(p.layers) or p.last == "relu":
            H = [[max(Fraction(0), x) for x in r] for r in Z]
            if name == f"H{k}":
                H[unit][example] += 1
            doc[f"H{k}"] = [[str(x) for x in r] for r in shown(p, H)]
        else:
            H = Z
    return doc


@settings(max_examples=60)
@given(p=networks(), data=st.data())
def test_one_slip_costs_one_point_and_every_layer_after_it_carries(p, data):
    assert graded(p, key_answers(p)).points == graded(p, key_answers(p)).total > 0
    name = data.draw(st.sampled_from(sorted(grid_shapes(p)[1])))
    layer = p.layers[int(name[1:]) - 1]
    unit, example = data.draw(st.integers(0, len(layer.b) - 1)), data.draw(st.integers(0, p.n_tokens - 1))
    g = graded(p, slipped(p, name, unit, example))
    assert g.points == g.total - 1
    cells = g.step(None, name).verdicts
    assert (cells[example][unit] if p.convention == "row" else cells[unit][example]) == "wrong"


def test_h_is_graded_from_the_students_own_z():
    doc = key_answers(MLP)
    doc["Z1"] = [["1", "1"], ["2", "1"], ["0", "0"]]  # Z1's unit 2, example 1 written 2 (the key: −1)
    doc["H1"] = [["1", "1"], ["2", "1"], ["0", "0"]]  # and ReLU worked right on it
    doc["Z2"] = [["4", "3"]]  # and the output from that H1
    g = graded(MLP, doc)
    assert g.step(None, "Z1").verdicts[1][0] == "wrong"
    assert g.step(None, "H1").verdicts[1][0] == "carried" and g.step(None, "Z2").verdicts[0][0] == "carried"
    assert g.points == g.total - 1


# --- the draw -------------------------------------------------------------------------------------

SHAPES = [
    kind_options("mlp", preset=pr, tokens=n, d_model=d, layers=L, d_hidden=h, d_out=o, last=last, convention=c)
    for pr in PRESETS
    for n, d, L, h, o, last in (
        (2, 2, 2, 3, 1, "linear"),
        (4, 3, 3, 2, 2, "relu"),
        (3, 2, 1, 1, 3, "relu"),
        (2, 4, 4, 4, 1, "linear"),
    )
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o",
    SHAPES,
    ids=lambda o: f"{o.preset}-{o.tokens}{o.d_model}{o.layers}{o.d_hidden}{o.d_out}-{o.last}-{o.convention}",
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=8)
    assert len({p.code for p in problems}) == 8
    lim = PRESETS[o.preset]
    for p in problems:
        steps = forward(p)
        assert p.sizes() == o.sizes() and p.last == o.last and p.convention == o.convention
        assert all(abs(x) <= lim.z for k, v in steps.items() if k.startswith("Z") for r in v for x in r)
        hidden = [steps[f"Z{k}"] for k in range(1, o.layers + 1) if f"H{k}" in steps]
        assert all(any(x > 0 for x in unit) for Z in hidden for unit in Z)  # no dead unit
        assert not hidden or any(x < 0 for Z in hidden for unit in Z for x in unit)  # ReLU matters
        assert any(x != 0 for r in steps[f"Z{o.layers}"] for x in r)  # an output
    codes_rebuild(o, problems)


@pytest.mark.parametrize(
    "args, line",
    [
        (["--tokens", "5"], "mlp sheets take 2 to 4"),
        (["--layers", "5"], "--layers"),
        (["--d-ff", "3"], "--d-ff is for"),
        (["--last", "tanh"], "--last"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "mlp", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"layers": [{"W": [[1, 0, 0]], "b": [1]}]}, "layers[0].W: expected 1×2 (d_ℓ × d_ℓ−1), got 1×3"),
        ({"layers": []}, "layers: expected a non-empty list of layers ({W, b} each)"),
        ({"last": "tanh"}, "last: expected linear or relu, got 'tanh'"),
        ({"layers": [{"W": [[1, 0]]}]}, "layers[0].b: missing"),
        ({"X": [[1.5, 2], [0, 1]]}, "X"),
        ({"W": [[1]]}, "unknown key 'W'"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "mlp.json", change, message)


def test_draw_stats_show_each_guarantee_held(run, tmp_path):
    r = run("draw", "--kind", "mlp", "--seed", "4", "--count", "40", "--stats")
    assert r.code == 0, r.err
    for line in ("no hidden unit dead: 40 of 40", "ReLU zeroes an entry: 40 of 40", "output not all zero: 40 of 40"):
        assert line in r.err, r.err
    code = parse_problems(r.out)[0].code
    assert run("key", code, "--out", str(tmp_path / "k")).code == 0


# --- printed, graded -----------------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_is_one_page_inside_its_margins_and_its_class_grades(run, tmp_path, convention, lang, paper):
    skeleton = prints_and_grades(
        run,
        tmp_path,
        "mlp",
        ["--layers", "3", "--last", "relu", "--convention", convention],
        lang,
        paper,
        ("Z1", "Z2", "Z3", "W3"),
        gradebook=("Z2",),
    )
    assert "H3" in skeleton


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "mlp", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "blank" / "worksheets.pdf") for w in ws)
    assert "Z2" in words and "W2" in words
    r = run("generate", "--problem", str(EXAMPLES / "mlp.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "Z1, unit 1, example 1 = row 1 of [W1 | b1]" in words


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    from conftest import ROOT

    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = text[text.index("## The multi-layer perceptron") :]
    part = part[: part.index("\n## ", 10) if "\n## " in part[10:] else len(part)]
    s = solve(MLP)
    assert "Z2 = [W2 | b2]·[H1 ; 1] = | 2 3 |" in part and [list(r) for r in s["Z2"]] == [[2, 3]]
    assert "Z1 = [W1 | b1]·[X ; 1] = |  1 1 |   H1 = | 1 1 |" in part
    assert [list(r) for r in s["Z1"]][0] == [1, 1] and [list(r) for r in s["H1"]][0] == [1, 1]
