"""The mixture of experts: worked on paper, against an independent router, as properties (a wrong route carries), drawn, printed and graded."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from conftest import EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix
from test_kind_sheets import inside
from test_pages import pages

from generator.core.answers import parse_answers_json
from generator.core.errors import ProblemError
from generator.core.formats import parse_problems, problem_from_json, problem_to_json
from generator.core.registry import grade, grid_shapes, solve
from generator.kinds.moe.draw import PRESETS
from generator.kinds.moe.steps import Expert, MoEProblem
from generator.draw.choose import kind_options
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.draw.sheetcodes import decode_code

MOE = parse_problems((EXAMPLES / "moe.json").read_text())[0]
F = Fraction


def t(m):
    return tuple(zip(*m))


def mv(w, x):
    return [sum(a * b for a, b in zip(r, x)) for r in w]


def routed_by_hand(p: MoEProblem, route=None) -> dict:
    """The whole answer by plain loops over tokens, in the column convention's terms, each token
    worked by its own expert only (`route`: 1-based, the gate's own when None); None where empty."""
    row = p.convention == "row"
    X, W_g = (t(p.X), t(p.W_g)) if row else (p.X, p.W_g)
    experts = [Expert(t(e.W1), e.b1, t(e.W2)) if row else e for e in p.experts]
    n, d, f, E = len(X[0]), len(X), len(p.experts[0].b1), len(p.experts)
    tokens = [[X[i][j] for i in range(d)] for j in range(n)]
    G = [mv(W_g, x) for x in tokens]  # per token
    gate = [1 + max(range(E), key=lambda e: (g[e], -e)) for g in G]
    route = gate if route is None else route
    out = {"G": t(G), "r": (tuple(route),)}
    if p.weighted:
        P = [[F(3) ** s for s in g] for g in G]
        out["powers"], out["totals"] = t(P), (tuple(sum(c) for c in P),)
        A = [[x / sum(c) for x in c] for c in P]
        out["A"] = t(A)
        out["g"] = (tuple(A[j][route[j] - 1] for j in range(n)),)
    H_pre = [[None] * n for _ in range(E * f)]
    H = [[None] * n for _ in range(E * f)]
    Y = []
    for j, x in enumerate(tokens):
        e = route[j] - 1
        pre = [v + b for v, b in zip(mv(experts[e].W1, x), experts[e].b1)]
        h = [max(0, v) for v in pre]
        for u in range(f):
            H_pre[e * f + u][j], H[e * f + u][j] = pre[u], h[u]
        Y.append(mv(experts[e].W2, h))
    out.update(H_pre=tuple(map(tuple, H_pre)), H=tuple(map(tuple, H)), Y=t(Y))
    if p.weighted:
        out["out"] = t([[y * out["g"][0][j] for y in Y[j]] for j in range(n)])
    return out


def layout(p, m):
    return t(m) if p.convention == "row" else tuple(map(tuple, m))


# --- on paper: docs/exercise.md's worked example -------------------------------------------------


def test_the_moe_example_on_paper():
    s = solve(MOE)
    assert s["G"] == ((1, 0, 2), (-1, 1, -1)) and s["r"] == ((1, 2, 1),)
    assert s["H_pre"] == ((1, None, 2), (-1, None, -1), (None, 0, None), (None, 1, None))
    assert s["Y"] == ((1, 1, 2), (0, 1, 0))
    assert s["totals"] == ((F(10, 3), 4, F(28, 3)),) and s["g"] == ((F(9, 10), F(3, 4), F(27, 28)),)
    assert s["out"] == ((F(9, 10), F(3, 4), F(27, 14)), (0, F(3, 4), 0))


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = re.sub(r"\s+", " ", text[text.index("## The mixture of experts") :].replace("|", " "))
    s = solve(MOE)
    for name in ("G", "Y", "A", "g", "out"):
        for r in s[name]:
            assert " " + " ".join(str(x) for x in r) + " " in part, (name, r)
    assert "Σ = 10/3, 4, 28/3" in part and " 1 . 2 " in part and " -1 . -1 " in part


# --- as properties, against the independent router -----------------------------------------------


@st.composite
def moes(draw, weighted=None):
    n, d, f, E = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    experts = tuple(Expert(draw(int_matrix(f, d)), draw(int_matrix(1, f))[0], draw(int_matrix(d, f))) for _ in range(E))
    p = MoEProblem(
        X=draw(int_matrix(d, n)),
        W_g=draw(int_matrix(E, d, -1, 1)),
        experts=experts,
        weighted=draw(st.booleans()) if weighted is None else weighted,
    )
    if draw(st.booleans()):
        p = MoEProblem(
            X=t(p.X),
            W_g=t(p.W_g),
            experts=tuple(Expert(t(e.W1), e.b1, t(e.W2)) for e in experts),
            weighted=p.weighted,
            convention="row",
        )
    return p


@settings(max_examples=80)
@given(p=moes())
def test_the_solution_is_the_routers_in_either_convention(p):
    s, want = solve(p), routed_by_hand(p)
    assert set(s.grids) == set(want)
    for name, values in want.items():
        assert s[name] == layout(p, values), name
        assert (len(s[name]), len(s[name][0])) == grid_shapes(p)[1][name]
    assert all(isinstance(x, (int, Fraction)) for g in s.grids.values() for r in g for x in r if x is not None)
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


def answers(p, grids: dict) -> dict:
    def enc(x):
        if x is None:
            return None
        return int(x) if Fraction(x).denominator == 1 else str(x)

    return {
        "format": "attnsheet/answers@1",
        "problem": problem_to_json(p),
        **{name: [[enc(x) for x in r] for r in layout(p, g)] for name, g in grids.items()},
    }


def graded(p, doc, carry=True):
    (pending,) = parse_answers_json(json.dumps(doc), "a")
    return grade(p, pending.answers(p, pending.student, None), carry=carry)


@settings(max_examples=80)
@given(p=moes(), data=st.data())
def test_a_token_sent_to_the_wrong_expert_costs_its_route_and_nothing_else(p, data):
    key = graded(p, answers(p, routed_by_hand(p)))
    assert key.points == key.total > 0
    assert {v for s in key.steps for r in s.verdicts for v in r} <= {"correct", "masked"}
    if p.E < 2:
        return
    right = routed_by_hand(p)["r"][0]
    j = data.draw(st.integers(0, p.n_tokens - 1))
    wrong = data.draw(st.sampled_from([e for e in range(1, p.E + 1) if e != right[j]]))
    route = list(right)
    route[j] = wrong
    # Everything after the route worked right from the student's own route: by hand, not by the grader.
    doc = answers(p, {**routed_by_hand(p, route), "G": routed_by_hand(p)["G"]})
    g = graded(p, doc)
    assert g.total == key.total  # a token's rows are as many whichever expert takes it
    assert g.points == g.total - 1, [(s.step, s.verdicts) for s in g.steps]
    r = g.step(None, "r").verdicts
    assert (r[j][0] if p.convention == "row" else r[0][j]) == "wrong"
    assert graded(p, doc, carry=False).points <= g.points


def test_the_wrong_expert_is_graded_by_its_own_arithmetic_and_the_right_ones_rows_are_not_asked_for():
    route = [1, 1, 1]  # token 2 sent to expert 1 instead of 2
    doc = answers(MOE, {**routed_by_hand(MOE, route), "G": solve(MOE)["G"]})
    g = graded(MOE, doc)
    h_pre = g.step(None, "H_pre").verdicts
    assert [h_pre[i][1] for i in range(4)] == ["correct", "correct", "masked", "masked"]  # expert 1 on x2: right
    assert {g.step(None, "Y").verdicts[i][1] for i in range(2)} == {"carried"}
    assert g.step(None, "g").verdicts[0][1] == "carried"  # expert 1's probability for token 2


def test_a_tie_goes_to_the_lower_expert():
    p = MoEProblem(X=((1,), (1,)), W_g=((1, 0), (0, 1)), experts=MOE.experts)
    assert solve(p)["r"] == ((1,),)


# --- the draw -------------------------------------------------------------------------------------

SHAPES = [
    kind_options("moe", preset=pr, tokens=n, d_model=d, d_ff=f, experts=e, convention=c, weighted=w, ties=ti)
    for pr in PRESETS
    for n, d, f, e, w, ti in (
        (4, 3, 2, 2, False, False),
        (3, 4, 2, 3, True, False),
        (4, 3, 2, 2, True, True),
        (6, 2, 3, 3, False, True),
    )
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o",
    SHAPES,
    ids=lambda o: (
        f"{o.preset}-{o.tokens}{o.d_model}{o.d_ff}{o.experts}-"
        f"{o.convention}-{'w' if o.weighted else ''}{'t' if o.ties else ''}"
    ),
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=8)
    assert len({p.code for p in problems}) == 8
    lim = PRESETS[o.preset]
    for p in problems:
        s = routed_by_hand(p)
        G = t(s["G"])
        ties = sum(1 for g in G if sorted(g)[-1] == sorted(g)[-2])
        assert ties == (1 if o.ties else 0)
        assert set(s["r"][0]) == set(range(1, o.experts + 1))  # every expert gets a token
        pre = [x for r in s["H_pre"] for x in r if x is not None]
        assert min(pre) < 0 and max(abs(x) for x in pre) <= lim.hidden
        assert all(any(x and x > 0 for x in col) for col in zip(*s["H"]))  # every token keeps a unit
        assert max(abs(x) for r in s["Y"] for x in r) <= lim.out
        if o.weighted:
            assert max(s["totals"][0]) <= lim.max_sum and min(x for g in G for x in g) >= lim.low
        assert p.weighted == o.weighted and p.convention == o.convention
    for p in problems[::3]:
        assert rebuild(p.code) == p and decode_code(p.code).options == o
    assert draw(o, 7, count=4)[2] == draw(o, 7, count=1, start=2)[0]


@pytest.mark.parametrize(
    "args, line",
    [
        (["--experts", "4"], "--experts"),
        (["--tokens", "7"], "moe sheets take 2 to 6"),
        (["--tokens", "2", "--experts", "3"], "every one of --experts 3 gets a token"),
        (["--d-h", "2"], "--d-h is for"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    r = run("draw", "--kind", "moe", "--seed", "1", *args)
    assert r.code == 2 and line in r.err and r.err.count("\n") == 1, r.err


@pytest.mark.parametrize(
    "change, message",
    [
        ({"W_g": [[1, 0, 0], [0, 1, 0]]}, "W_g: expected 2×2 (E × d), got 2×3"),
        ({"experts": []}, "experts: expected a non-empty list"),
        (
            {"experts": [{"W1": [[1, 0]], "b1": [0], "W2": [[1], [2]]}, {"W1": [[1, 0]], "b1": [0], "W2": [[1, 2]]}]},
            "experts[1].W2: expected 2×1 (d × d_ff), got 1×2",
        ),
        ({"experts": [{"W1": [[1, 0]], "b1": [0]}]}, "experts[0].W2: missing"),
        ({"W_g": [[9, 9], [0, 1]]}, "too large to raise 3 to"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    doc = {**json.loads((EXAMPLES / "moe.json").read_text()), **change}
    (tmp_path / "p.json").write_text(json.dumps(doc))
    r = run("solve", str(tmp_path / "p.json"))
    assert r.code == 1 and message in r.err and r.err.count("\n") == 1, r.err
    with pytest.raises(ProblemError):
        problem_from_json(doc)


# --- printed, graded -----------------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_prints_inside_its_margins_and_its_class_grades(run, tmp_path, convention, lang, paper):
    out = tmp_path / "b"
    r = run(
        "generate",
        "--kind",
        "moe",
        "--count",
        "2",
        "--seed",
        "5",
        "--weighted",
        "--convention",
        convention,
        "--lang",
        lang,
        "--paper",
        paper,
        "--worked",
        "--out",
        str(out),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(out / name)
        assert len(found) <= 4, (name, len(found))
        inside(name, found)
        words = " ".join(w[4] for _, _, ws in found for w in ws)
        assert "H_pre" in words and "W_g" in words and "e2" in words.split()
    skeletons = tmp_path / "answers.json"
    assert run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(skeletons)).code == 0
    r = run("grade", str(skeletons), "--manifest", str(out / "manifest.json"), "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    assert "r" in (tmp_path / "g" / "gradebook.csv").read_text().splitlines()[0].split(",")


def test_an_unweighted_worksheet_is_one_page(run, tmp_path):
    assert run("generate", "--kind", "moe", "--count", "1", "--seed", "2", "--out", str(tmp_path)).code == 0
    assert len(pages(tmp_path / "worksheets.pdf")) == 1


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "moe", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    r = run("generate", "--problem", str(EXAMPLES / "moe.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "the largest is expert 1" in words


def test_draw_stats_and_a_code_key(run, tmp_path):
    r = run("draw", "--kind", "moe", "--seed", "4", "--count", "5", "--stats")
    assert r.code == 0 and "busiest expert" in r.err, r.err
    code = parse_problems(r.out)[0].code
    assert run("key", code, "--out", str(tmp_path / "k")).code == 0
