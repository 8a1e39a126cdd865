"""The feed-forward layer and the transformer block: worked on paper, as properties, against a student simulator."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from conftest import EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix

from generator.core.answers import parse_answers_json
from generator.core.errors import ProblemError
from generator.core.formats import parse_problems, problem_from_json, problem_to_json, solution_to_json
from generator.core.registry import grade, grid_shapes, solve
from generator.kinds.ffn.steps import FFNProblem
from generator.kinds.transformer.steps import BlockProblem
from generator.kinds.attention.problem import Head, Problem
from generator.core.problem import Rules

FFN = parse_problems((EXAMPLES / "ffn.json").read_text())[0]
BLOCK = parse_problems((EXAMPLES / "block.json").read_text())[0]


def t(m):
    return tuple(zip(*m))


def F(text: str) -> Fraction:
    return Fraction(text)


# --- on paper: docs/exercise.md's worked examples ------------------------------------------------


def test_the_ffn_example_on_paper():
    s = solve(FFN)
    assert s.H_pre == ((1, -1, 1), (-1, 0, 0), (0, 2, 0))
    assert s.H == ((1, 0, 1), (0, 0, 0), (0, 2, 0))
    assert s.Y == ((1, 2, 1), (1, -1, 1))
    assert s.out == ((2, 2, 3), (1, 0, 2))


def test_the_block_example_on_paper():
    s = solve(BLOCK)
    half = F("1/2")
    assert s.Z == ((1, 0, half), (0, 1, half))
    assert s.R == ((2, 0, F("5/2")), (0, 2, F("3/2")))
    assert s.H_pre == ((2, -2, 1), (-1, 1, half), (-1, 3, 0))
    assert s.H == ((2, 0, 1), (0, 1, half), (0, 3, 0))
    assert s.Y == ((2, 3, 1), (1, -1, F("3/2")))
    assert s.out == ((4, 3, F("7/2")), (1, 1, 3))


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    """docs/exercise.md's worked examples are generator/examples' ffn.json and block.json: every
    row of every step the solver finds is printed there, section by section."""
    from conftest import ROOT

    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    ffn_part = text[text.index("## The feed-forward layer") : text.index("## The transformer block")]
    block_part = text[text.index("## The transformer block") :]
    for part, p, steps in (
        (ffn_part, FFN, ("H_pre", "H", "Y", "out")),
        (block_part, BLOCK, ("Z", "R", "H_pre", "H", "Y", "out")),
    ):
        flat = re.sub(r"\s+", " ", part.replace("|", " "))
        s = solve(p)
        for name in steps:
            for row in getattr(s, name):
                assert " " + " ".join(str(x) for x in row) + " " in flat, (name, row)


def test_solve_prints_the_examples_numbers(run):
    r = run("solve", str(EXAMPLES / "ffn.json"))
    assert r.code == 0, r.err
    assert "out = X + Y\n  [ 2  2  3 ]\n  [ 1  0  2 ]" in r.out
    r = run("solve", str(EXAMPLES / "block.json"))
    assert "out = R + Y\n  [ 4  3  7/2 ]" in r.out and "R = X + Z\n  [ 2  0  5/2 ]" in r.out
    doc = json.loads(run("solve", str(EXAMPLES / "block.json"), "--json").out)
    assert doc["kind"] == "transformer" and doc["problem"]["kind"] == "transformer"
    assert [k for k in doc if k not in ("format", "kind", "problem")] == ["Z", "R", "H_pre", "H", "Y", "out"]
    assert doc["out"] == [[4, 3, "7/2"], [1, 1, 3]]
    doc = json.loads(run("solve", str(EXAMPLES / "ffn.json"), "--json").out)
    assert doc["kind"] == "ffn" and [k for k in doc if k not in ("format", "kind", "problem")] == [
        "H_pre",
        "H",
        "Y",
        "out",
    ]


def test_a_file_without_kind_is_attention_and_writes_none():
    doc = json.loads((EXAMPLES / "worked.json").read_text())
    assert "kind" not in doc
    p = problem_from_json(doc)
    assert p.kind == "attention" and "kind" not in problem_to_json(p) and "kind" not in solution_to_json(solve(p))
    assert problem_from_json({**doc, "kind": "attention"}) == p


BAD = [
    ({"kind": "perceptron"}, "kind: expected one of attention, ffn, transformer"),
    ({"kind": "ffn", "W1": [[1, 2, 3]]}, "W1: expected 3×2 (d_ff × d_model), got 1×3"),
    ({"kind": "ffn", "b2": [1]}, "b2: expected 2 entries (d_model), got 1"),
    ({"kind": "ffn", "residual": "yes"}, "residual: expected true or false"),
    ({"kind": "transformer", "A": [[1, 0, 0], [0, 1, 0], [0, 0, 0]]}, "A: column 3 is not a distribution"),
    ({"kind": "transformer", "A": [[1, 0, "1/0"], [0, 1, 1], [0, 0, 0]]}, "A[0][2]: expected a weight from 0 to 1"),
    ({"kind": "transformer", "attention": "computed"}, "heads: missing (attention computed)"),
    (
        {
            "kind": "transformer",
            "attention": "computed",
            "A": None,
            "heads": [{"W_Q": [[1, 0]], "W_K": [[1, 0]], "W_V": [[1, 0]]}],
        },
        "needs d_model = 2 rows: one head with d_v = 2, or W_O",
    ),
]


@pytest.mark.parametrize("change, message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_problems_are_one_clear_line(change, message):
    doc = {**json.loads((EXAMPLES / "block.json").read_text()), **change}
    if doc["kind"] == "ffn":
        doc.pop("A"), doc.pop("attention")
    doc = {k: v for k, v in doc.items() if v is not None}
    with pytest.raises(ProblemError, match=re.escape(message)):
        problem_from_json(doc)


# --- properties ------------------------------------------------------------------------------------


@st.composite
def ffns(draw, residual=None):
    n, d_model, d_ff = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return FFNProblem(
        X=draw(int_matrix(d_model, n)),
        W1=draw(int_matrix(d_ff, d_model)),
        b1=draw(int_matrix(1, d_ff))[0],
        W2=draw(int_matrix(d_model, d_ff)),
        b2=draw(int_matrix(1, d_model))[0],
        residual=draw(st.booleans()) if residual is None else residual,
    )


@st.composite
def given_weights(draw, n: int):
    """n × n attention weights whose every column is one 1, or two halves."""
    cols = []
    for _ in range(n):
        col = [0] * n
        picks = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2, unique=True))
        for i in picks:
            col[i] = Fraction(1, len(picks)) if len(picks) == 2 else 1
        cols.append(col)
    return t(cols)


@st.composite
def blocks(draw, computed=None):
    n, d_model, d_ff = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    ffn = dict(
        X=draw(int_matrix(d_model, n)),
        W1=draw(int_matrix(d_ff, d_model)),
        b1=draw(int_matrix(1, d_ff))[0],
        W2=draw(int_matrix(d_model, d_ff)),
        b2=draw(int_matrix(1, d_model))[0],
    )
    if not (draw(st.booleans()) if computed is None else computed):
        return BlockProblem(**ffn, attention="given", A=draw(given_weights(n)))
    d_k = draw(st.integers(1, 3))
    h = draw(st.integers(1, 2))
    d_v = d_model if h == 1 and draw(st.booleans()) else draw(st.integers(1, 3))
    heads = tuple(
        Head(
            draw(int_matrix(d_k, d_model, -1, 2)), draw(int_matrix(d_k, d_model, -1, 2)), draw(int_matrix(d_v, d_model))
        )
        for _ in range(h)
    )
    W_O = None if h == 1 and d_v == d_model else draw(int_matrix(d_model, h * d_v))
    return BlockProblem(**ffn, attention="computed", heads=heads, W_O=W_O, causal=draw(st.booleans()))


def row_twin(p):
    """The row-convention twin, transposed here and not by the code under test."""
    if isinstance(p, FFNProblem):
        return FFNProblem(X=t(p.X), W1=t(p.W1), b1=p.b1, W2=t(p.W2), b2=p.b2, residual=p.residual, convention="row")
    return BlockProblem(
        X=t(p.X),
        W1=t(p.W1),
        b1=p.b1,
        W2=t(p.W2),
        b2=p.b2,
        attention=p.attention,
        A=None if p.A is None else t(p.A),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in p.heads),
        W_O=None if p.W_O is None else t(p.W_O),
        causal=p.causal,
        convention="row",
    )


STEPS = ("H_pre", "H", "Y", "out")


@settings(max_examples=60)
@given(p=ffns() | blocks())
def test_solutions_are_exact_and_the_row_convention_is_the_transposed_twin(p):
    s = solve(p)
    for name in ("Z", "R") + STEPS if p.kind == "transformer" else STEPS:
        m = getattr(s, name)
        if m is None:
            continue
        assert all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for r in m for x in r)
        twin = getattr(solve(row_twin(p)), name)
        assert twin == t(m), name
    assert s.H == tuple(tuple(max(0, x) for x in r) for r in s.H_pre)


def key_answers(p, s) -> dict:
    """A perfect sheet's answers@1 (the key's own values, in the sheet's layout)."""
    heads, final = grid_shapes(p)
    doc = {"format": "attnsheet/answers@1", "problem": problem_to_json(p)}
    sol = solution_to_json(s)
    for name in final:
        doc[name] = sol[name]
    if heads:
        doc["heads"] = []
        for grids in sol["heads"]:
            grids = dict(grids, Q_copy=grids["Q"], K_T=[list(r) for r in zip(*grids["K"])], V_copy=grids["V"])
            doc["heads"].append(grids)
    return doc


def graded(p, doc, carry=True):
    (pending,) = parse_answers_json(json.dumps(doc), "a")
    return grade(p, pending.answers(p, pending.student, None), carry=carry)


@settings(max_examples=60)
@given(p=ffns() | blocks())
def test_the_key_grades_all_correct(p):
    g = graded(p, key_answers(p, solve(p)))
    assert g.points == g.total > 0
    assert {v for s in g.steps for r in s.verdicts for v in r} <= {"correct", "masked"}


def simulate_student(p, slip: tuple[int, int]) -> dict:
    """An independent student: H_pre with one slip (+1 in one cell), then every later step worked
    right from their own numbers, by plain arithmetic (not the code under test)."""
    s = solve(p)
    source = s.R if p.kind == "transformer" else p.X  # given to the FFN part (R: the key's, written right)
    H_pre = [list(r) for r in s.H_pre]
    H_pre[slip[0]][slip[1]] += 1
    H = [[max(0, x) for x in r] for r in H_pre]
    Y = [[sum(Fraction(w) * h for w, h in zip(p.W2[i], col)) + p.b2[i] for col in zip(*H)] for i in range(len(p.W2))]
    out = [[a + b for a, b in zip(r, y)] for r, y in zip(source, Y)]
    doc = key_answers(p, s)

    def enc(m):
        return [
            [x if isinstance(x, int) else (str(x) if Fraction(x).denominator != 1 else int(x)) for x in r] for r in m
        ]

    doc.update(H_pre=enc(H_pre), H=enc(H), Y=enc(Y))
    if "out" in doc:
        doc["out"] = enc(out)
    return doc


@settings(max_examples=80)
@given(p=ffns() | blocks(), data=st.data())
def test_one_slip_in_H_pre_costs_exactly_one_point(p, data):
    rows, cols = len(p.b1), p.n_tokens
    slip = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    g = graded(p, simulate_student(p, slip))
    assert g.points == g.total - 1
    assert g.step(None, "H_pre").verdicts[slip[0]][slip[1]] == "wrong"
    strict = graded(p, simulate_student(p, slip), carry=False)
    assert strict.points <= g.points


@settings(max_examples=40)
@given(p=blocks(computed=True))
def test_a_computed_blocks_attention_is_the_attention_kinds(p):
    s = solve(p)
    alone = solve(Problem(X=p.X, heads=p.heads, W_O=p.W_O, rules=Rules(), causal=p.causal))
    assert s.heads == alone.heads and s.Z == alone.Z and s.output == alone.output
    attended = alone.output if p.W_O is not None else alone.Z
    assert s.R == tuple(tuple(x + z for x, z in zip(r, q)) for r, q in zip(p.X, attended))


# --- the draw -------------------------------------------------------------------------------------

from generator.kinds.ffn.draw import LAYER_PRESETS  # noqa: E402
from generator.draw.choose import kind_options  # noqa: E402
from generator.draw.rebuild import rebuild  # noqa: E402
from generator.draw.search import draw  # noqa: E402

SHAPES = [
    kind_options("ffn", preset=p, tokens=n, d_model=d, d_ff=f, convention=c)
    for p in LAYER_PRESETS
    for n, d, f in ((3, 3, 4), (2, 2, 2), (4, 3, 3), (5, 4, 4))
    for c in ("column", "row")
]
SHAPES += [
    kind_options("transformer", preset=p, tokens=n, d_model=d, d_ff=f)
    for p in LAYER_PRESETS
    for n, d, f in ((3, 3, 3), (4, 3, 4), (2, 2, 2))
]
SHAPES += [
    kind_options("transformer", attention="computed", preset=p, tokens=3, d_model=3, d_ff=3, d_k=2)
    for p in LAYER_PRESETS
]
SHAPES += [
    kind_options(
        "transformer",
        attention="computed",
        tokens=3,
        d_model=3,
        d_ff=3,
        d_k=2,
        heads=2,
        output_projection=True,
        causal=True,
    )
]


def guarantees_hold(p) -> None:
    lim = LAYER_PRESETS[p.code and rebuild_options(p.code).preset]
    s = solve(p)
    H_pre = [x for r in s.H_pre for x in r]
    assert min(H_pre) < 0 < max(H_pre)  # ReLU matters
    assert max(abs(x) for x in H_pre) <= lim.hidden
    assert max(abs(x) for r in s.Y for x in r) <= lim.out
    if s.out is not None:
        assert max(abs(x) for r in s.out for x in r) <= lim.out
    if p.kind == "transformer" and p.attention == "given":
        columns = t(p.A) if p.convention == "column" else p.A
        assert all(sorted(c)[-1] in (1, F("1/2")) for c in columns)
        assert sum(1 for c in columns if F("1/2") in c) >= min(lim.halves, p.n_tokens)


def rebuild_options(code: str):
    from generator.draw.sheetcodes import decode_code

    return decode_code(code).options


@pytest.mark.parametrize(
    "o",
    SHAPES,
    ids=lambda o: (
        f"{o.kind}-{getattr(o, 'attention', '')}-{o.preset}-"
        f"{o.tokens}{o.d_model}{o.d_ff}-{o.convention}-h{getattr(o, 'heads', 1)}"
    ),
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=12)
    assert len({p.code for p in problems}) == 12
    for p in problems:
        guarantees_hold(p)
        assert p.convention == o.convention
    for p in problems[::4]:
        assert rebuild(p.code) == p  # the code alone rebuilds the sheet
        assert rebuild_options(p.code) == o


def test_the_draw_is_the_same_in_any_count():
    o = kind_options("transformer")
    assert draw(o, 5, count=6)[4] == draw(o, 5, count=1, start=4)[0]


DRAW_ERRORS = [
    (["--kind", "ffn", "--d-v", "2"], "--d-v is for attention sheets"),
    (["--d-ff", "3"], "--d-ff is for ffn, transformer and moe sheets, not attention"),
    (["--kind", "transformer", "--attention", "computed", "--heads", "2"], "with several --heads, add --output"),
    (["--kind", "transformer", "--no-residual"], "always adds its input back"),
    (["--kind", "transformer", "--causal"], "are for --attention computed"),
    (["--kind", "ffn", "--tokens", "9"], "ffn sheets take 2 to 8"),
    (["--kind", "ffn", "--tokens", "8", "--d-model", "1"], "X's columns must all differ"),
]


@pytest.mark.parametrize("args, line", DRAW_ERRORS, ids=[" ".join(a) for a, _ in DRAW_ERRORS])
def test_impossible_settings_are_refused_up_front(run, args, line):
    r = run("draw", "--seed", "1", *args)
    assert r.code == 2 and line in r.err and r.err.count("\n") == 1, r.err


def test_draw_answers_and_grade_an_ffn_and_a_block_from_their_codes(run, tmp_path):
    for kind in (["--kind", "ffn"], ["--kind", "transformer"], ["--kind", "transformer", "--attention", "computed"]):
        r = run("draw", "--seed", "4", *kind, "--stats")
        assert r.code == 0 and "cells ReLU sets to 0" in r.err, r.err
        p = parse_problems(r.out)[0]
        skeleton = json.loads(run("answers", p.code).out)
        assert (
            skeleton["code"] == p.code
            and "H_pre" in skeleton
            and ("heads" in skeleton) == (p.kind == "transformer" and p.attention == "computed")
        )
        sol = solution_to_json(solve(p))
        for name in grid_shapes(p)[1]:
            skeleton[name] = sol[name]
        for h, grids in enumerate(skeleton.get("heads", [])):
            for name in grids:
                source = {"Q_copy": "Q", "V_copy": "V"}.get(name, name)
                grids[name] = (
                    [list(r) for r in zip(*sol["heads"][h]["K"])] if name == "K_T" else sol["heads"][h][source]
                )
        (tmp_path / "a.json").write_text(json.dumps(skeleton))
        r = run("grade", str(tmp_path / "a.json"), "--json")
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        assert doc["points"] == doc["total"] > 0


def test_a_huge_written_score_under_exact_rules_grades_as_wrong_not_a_crash():
    # Found by the fuzzed-answers property: the key's scaling rule on a student's int past any float.
    p = Problem(
        X=((0, 0, -1),), heads=(Head(((0,), (0,), (2,)), ((0,), (0,), (2,)), ((1,),)),), rules=Rules("exact", "base3")
    )
    doc = {
        "format": "attnsheet/answers@1",
        "problem": problem_to_json(p),
        "heads": [{"scores": [[10**350, None, None], [None] * 3, [None] * 3]}],
    }
    g = graded(p, doc)
    assert g.step(1, "scores").verdicts[0][0] == "wrong" and g.step(1, "scaled").carried[0][0] is None
