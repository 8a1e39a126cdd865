"""A graph convolution: worked on paper, against an independent computation, as properties, drawn, printed and graded."""

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
from generator.kinds.gcn.draw import PRESETS, graphs
from generator.kinds.gcn.steps import GCNProblem, Layer

GCN = parse_problems((EXAMPLES / "gcn.json").read_text())[0]


def t(m):
    return tuple(zip(*m))


def forward(p: GCNProblem, slip: tuple = ()) -> dict[str, list[list[Fraction]]]:
    """Every grid by plain loops over plain fractions, column convention (not the code under test);
    `slip` (name, i, j): that cell worked one more, and everything after from it."""
    row = p.convention == "row"
    H = [list(map(Fraction, r)) for r in (t(p.X) if row else p.X)]
    A, n = p.A, len(p.A)
    degree = [sum(A[i][j] for i in range(n)) for j in range(n)]
    out = {}

    def slipped(name, grid):
        if slip and slip[0] == name:
            grid[slip[1]][slip[2]] += 1
        out[name] = grid
        return grid

    for k, layer in enumerate(p.layers, start=1):
        M = [[sum(H[f][i] * A[i][j] for i in range(n)) for j in range(n)] for f in range(len(H))]
        if p.aggregate == "mean":
            M = [[x / degree[j] for j, x in enumerate(r)] for r in M]
        M = slipped(f"M{k}", M)
        W = t(layer.W) if row else layer.W
        Z = slipped(
            f"Z{k}",
            [[sum(W[u][f] * M[f][j] for f in range(len(M))) + layer.b[u] for j in range(n)] for u in range(len(W))],
        )
        H = slipped(f"H{k}", [[max(Fraction(0), x) for x in r] for r in Z])
    return out


def shown(p, grid):
    """A column-convention grid as the problem's own convention writes it."""
    return [list(r) for r in (t(grid) if p.convention == "row" else grid)]


# --- on paper: docs/exercise.md's worked example -------------------------------------------------


def test_the_gcn_example_on_paper():
    s = solve(GCN)
    assert [list(r) for r in s["M1"]] == [[1, 3, 2], [1, 2, 2]]
    assert [list(r) for r in s["Z1"]] == [[0, 1, 0], [0, 1, 1]]
    assert [list(r) for r in s["H1"]] == [[0, 1, 0], [0, 1, 1]]


def test_a_mean_divides_each_node_by_its_degree():
    from dataclasses import replace

    s = solve(replace(GCN, aggregate="mean"))  # degrees 2, 3, 2
    assert [list(r) for r in s["M1"]] == [[Fraction(1, 2), 1, 1], [Fraction(1, 2), Fraction(2, 3), 1]]


def test_solve_prints_every_step(run):
    r = run("solve", str(EXAMPLES / "gcn.json"))
    assert r.code == 0, r.err
    assert "M1 = X·A" in r.out and "Z1 = W1·M1 + b1" in r.out and "H1 = ReLU(Z1)" in r.out
    assert "edges 1–2 2–3" in r.out
    doc = json.loads(run("solve", str(EXAMPLES / "gcn.json"), "--json").out)
    assert doc["kind"] == "gcn" and doc["M1"] == [[1, 3, 2], [1, 2, 2]] and doc["H1"][1] == [0, 1, 1]


# --- as properties, against the plain computation ---------------------------------------------------


@st.composite
def networks(draw, convention=None):
    n = draw(st.integers(2, 6))
    A = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            A[i][j] = A[j][i] = draw(st.integers(0, 1))
    depth = draw(st.integers(1, 2))
    sizes = [draw(st.integers(1, 3)) for _ in range(depth + 1)]
    layers = tuple(
        Layer(draw(int_matrix(sizes[k], sizes[k - 1])), draw(int_matrix(1, sizes[k]))[0]) for k in range(1, depth + 1)
    )
    p = GCNProblem(
        X=draw(int_matrix(sizes[0], n)),
        A=tuple(map(tuple, A)),
        layers=layers,
        aggregate=draw(st.sampled_from(["sum", "mean"])),
    )
    if (convention or draw(st.sampled_from(["column", "row"]))) == "row":
        p = GCNProblem(
            X=t(p.X), A=p.A, layers=tuple(Layer(t(x.W), x.b) for x in p.layers), aggregate=p.aggregate, convention="row"
        )
    return p


@settings(max_examples=80)
@given(p=networks())
def test_the_solution_is_the_plain_computation_in_either_convention(p):
    s, want = solve(p), forward(p)
    assert set(s.grids) == set(want)
    for name, grid in want.items():
        assert [list(r) for r in s[name]] == shown(p, grid), name
        assert grid_shapes(p)[1][name] == (len(shown(p, grid)), len(shown(p, grid)[0]))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


@settings(max_examples=60)
@given(p=networks(), data=st.data())
def test_one_slip_costs_one_point_and_every_step_after_it_carries(p, data):
    assert graded(p, key_answers(p)).points == graded(p, key_answers(p)).total > 0
    name = data.draw(st.sampled_from(sorted(grid_shapes(p)[1])))
    rows, cols = len(forward(p)[name]), len(forward(p)[name][0])
    i, j = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
    doc = key_answers(p)
    doc.update({k: [[str(x) for x in r] for r in shown(p, v)] for k, v in forward(p, (name, i, j)).items()})
    g = graded(p, doc)
    assert g.points >= g.total - 1  # a degenerate carried step earns nothing more, never less than the slip
    cells = g.step(None, name).verdicts
    assert (cells[j][i] if p.convention == "row" else cells[i][j]) == "wrong"
    assert g.points == g.total - 1 - sum(1 for s in g.steps for r in s.verdicts for v in r if v == "trivial")


def test_a_nodes_sum_is_graded_from_the_students_own_features():
    doc = key_answers(GCN)
    doc["M1"] = [["1", "4", "2"], ["1", "2", "2"]]  # feature 1 of node 2 written 4 (the key: 3)
    doc["Z1"] = [["0", "2", "0"], ["0", "1", "1"]]  # and Z1 worked right on it
    doc["H1"] = [["0", "2", "0"], ["0", "1", "1"]]
    g = graded(GCN, doc)
    assert g.step(None, "M1").verdicts[0][1] == "wrong"
    assert g.step(None, "Z1").verdicts[0][1] == "carried" and g.step(None, "H1").verdicts[0][1] == "carried"
    assert g.points == g.total - 1


# --- the draw -------------------------------------------------------------------------------------


def test_every_graph_drawn_from_is_connected_not_complete_and_uneven():
    for n in range(3, 6):
        found = graphs(n)
        assert len({a.tobytes() for a in found}) == len(found) > 0
        for a in found:
            assert (a == a.T).all() and (a.diagonal() == 1).all()
            assert 0 < (a.sum() - n) // 2 < n * (n - 1) // 2 and len(set(a.sum(axis=0).tolist())) > 1
            reach = a.copy()
            for _ in range(n):
                reach = ((reach @ a) > 0).astype(int)
            assert reach.all()


SHAPES = [
    kind_options("gcn", preset=pr, tokens=n, d_model=d, layers=L, d_hidden=h, d_out=o, aggregate=ag, convention=c)
    for pr in PRESETS
    for n, d, L, h, o in ((4, 2, 1, 2, 2), (5, 3, 2, 3, 3), (3, 2, 2, 2, 1))
    for ag in ("sum", "mean")
    if not (pr == "easy" and ag == "mean" and L == 2)
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o",
    SHAPES,
    ids=lambda o: f"{o.preset}-{o.tokens}{o.d_model}{o.layers}{o.d_hidden}{o.d_out}-{o.aggregate}-{o.convention}",
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=6)
    assert len({p.code for p in problems}) == 6
    lim = PRESETS[o.preset]
    for p in problems:
        grids = forward(p)
        assert p.sizes() == o.sizes() and p.aggregate == o.aggregate and p.convention == o.convention
        assert all(abs(x) <= lim.z for k, v in grids.items() if k.startswith("Z") for r in v for x in r)
        assert all(x.denominator <= lim.denominator for v in grids.values() for r in v for x in r)
        hs = [grids[f"H{k}"] for k in range(1, o.layers + 1)]
        assert all(any(x > 0 for x in unit) for H in hs for unit in H)  # no dead unit
        assert all(any(x > 0 for x in node) for node in zip(*hs[-1]))  # no node silenced
        assert any(x < 0 for k in range(1, o.layers + 1) for r in grids[f"Z{k}"] for x in r)  # ReLU matters
    codes_rebuild(o, problems)


@pytest.mark.parametrize(
    "args, line",
    [
        (["--tokens", "6"], "gcn sheets take 3 to 5"),
        (["--layers", "3"], "--layers"),
        (["--d-ff", "3"], "--d-ff is for"),
        (["--aggregate", "max"], "--aggregate"),
        (["--d-out", "1"], "needs 2 or more units"),
        (["--preset", "easy", "--aggregate", "mean", "--layers", "2"], "fractions of fractions"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "gcn", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"A": [[1, 1, 0], [0, 1, 1], [0, 1, 1]]}, "A: expected a symmetric adjacency"),
        ({"A": [[0, 1, 0], [1, 1, 1], [0, 1, 1]]}, "A: expected 1 on the diagonal"),
        ({"A": [[1, 2, 0], [2, 1, 1], [0, 1, 1]]}, "A: expected 0 or 1"),
        ({"A": [[1, 1], [1, 1]]}, "A: expected 3×3 (n × n), got 2×2"),
        ({"layers": [{"W": [[1, 0, 0]], "b": [1]}]}, "layers[0].W: expected 1×2 (d_ℓ × d_ℓ−1), got 1×3"),
        ({"aggregate": "max"}, "aggregate: expected sum or mean, got 'max'"),
        ({"X": [[1.5, 2, 0], [0, 1, 1]]}, "X"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "gcn.json", change, message)


def test_draw_stats_show_each_guarantee_held(run, tmp_path):
    r = run("draw", "--kind", "gcn", "--seed", "4", "--count", "40", "--stats", "--aggregate", "mean")
    assert r.code == 0, r.err
    for line in (
        "graph connected, not complete: 40 of 40",
        "degrees differ: 40 of 40",
        "ReLU zeroes an entry: 40 of 40",
        "no node's output all zero: 40 of 40",
        "no unit dead: 40 of 40",
    ):
        assert line in r.err, r.err
    code = parse_problems(r.out)[0].code
    assert run("key", code, "--out", str(tmp_path / "k")).code == 0


# --- printed, graded -----------------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_prints_inside_its_margins_with_its_graph_and_its_class_grades(run, tmp_path, convention, lang, paper):
    skeleton = prints_and_grades(
        run,
        tmp_path,
        "gcn",
        ["--layers", "2", "--convention", convention],
        lang,
        paper,
        ("M1", "Z2", "H2", "W2"),
        most_pages=2,
        gradebook=("M2",),
    )
    assert "M2" in skeleton


def test_the_graph_is_drawn_beside_its_adjacency(tmp_path):
    from generator.kinds.gcn.sheet import SHEET

    m, g, _ = SHEET.layout(GCN, solve(GCN), True)
    placed = {c.m.label: c for c in g.cells}
    graph, a = m["graph"], placed["A"]
    assert graph.nodes and graph.edges == ((0, 1), (1, 2))
    beside = next(c for c in g.cells if c.m is graph)
    assert beside.row == a.row and beside.col > a.col + a.m.text_chars  # on A's line, to its right


def test_a_blank_template_draws_nodes_without_edges_and_a_teachers_own_problem_prints(run, tmp_path):
    from generator.kinds.gcn.draw import Options, blank
    from generator.kinds.gcn.sheet import SHEET

    p = blank(Options())
    m, _, _ = SHEET.layout(p, solve(p), False, blank=True)
    assert len(m["graph"].nodes) == 4 and m["graph"].edges == ()
    assert run("generate", "--kind", "gcn", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "blank" / "worksheets.pdf") for w in ws)
    assert "M1" in words and "W1" in words
    r = run("generate", "--problem", str(EXAMPLES / "gcn.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "M1, feature 1, node 1 = row 1 of X" in words


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    from conftest import ROOT

    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = text[text.index("## A graph convolution") :]
    part = part[: part.index("\n## ", 10) if "\n## " in part[10:] else len(part)]
    s = solve(GCN)
    assert "M1 = X·A = | 1 3 2 |" in part and [list(r) for r in s["M1"]][0] == [1, 3, 2]
    assert "Z1 = | 0 1 0 |   H1 = | 0 1 0 |" in part and [list(r) for r in s["Z1"]][0] == [0, 1, 0]


def test_the_screen_form_draws_the_graph_beside_its_adjacency(tmp_path):
    from starlette.testclient import TestClient

    from generator.app.store import Store
    from generator.sheet.entry import form
    from generator.web.app import create_app

    boxes = form(GCN, solve(GCN)).boxes
    (drawn,) = [b for b in boxes if b.graph]
    adjacency = next(b for b in boxes if b.label.startswith("A "))
    assert drawn.graph.words == "1–2, 2–3" and len(drawn.graph.circles) == 3 and len(drawn.graph.lines) == 2
    assert drawn.graph.frame[0] > max(c.x + c.w for c in adjacency.cells)  # to its right, as on paper
    web = TestClient(create_app(Store(tmp_path / "data")), base_url="http://127.0.0.1", follow_redirects=False)
    code = web.get("/practice?kind=gcn&preset=easy").headers["location"].rsplit("/", 1)[1]
    for page in (f"/practice/{code}", f"/present/{code}"):
        html = web.get(page).text
        assert html.count('<svg class="graph" role="img" aria-label="The graph: 4 nodes; edges ') == 1, page
