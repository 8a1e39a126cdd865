"""The recurrent layer: worked on paper, against an independent unrolling, as properties, drawn, printed and graded."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from kindcases import codes_rebuild, graded, key_answers, refuses_problem, refuses_setting
from conftest import EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import int_matrix
from test_kind_sheets import inside
from test_pages import pages

from generator.core.formats import parse_problems, problem_from_json, problem_to_json
from generator.core.problem import same_numbers
from generator.core.registry import grid_shapes, solve
from generator.kinds.rnn.draw import PRESETS
from generator.kinds.rnn.steps import RNNProblem
from generator.draw.choose import kind_options
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.draw.sheetcodes import decode_code

RNN = parse_problems((EXAMPLES / "rnn.json").read_text())[0]


def t(m):
    return tuple(zip(*m))


def unrolled(p: RNNProblem) -> dict[str, list[int]]:
    """The recurrence by plain loops, in the column convention's terms (not the code under test)."""
    row = p.convention == "row"
    X, W_x, W_h = (t(p.X), t(p.W_x), t(p.W_h)) if row else (p.X, p.W_x, p.W_h)
    W_y = None if p.W_y is None else (t(p.W_y) if row else p.W_y)
    h = [0] * len(p.b)
    out = {}
    for step in range(len(X[0])):
        x = [r[step] for r in X]
        if step:
            out[f"h{step}_copy"] = list(h)
        a = [
            sum(w * v for w, v in zip(W_x[i], x)) + sum(w * v for w, v in zip(W_h[i], h)) + p.b[i]
            for i in range(len(p.b))
        ]
        h = [max(0, v) for v in a]
        out[f"a{step + 1}"], out[f"h{step + 1}"] = a, list(h)
        if W_y is not None:
            out[f"y{step + 1}"] = [sum(w * v for w, v in zip(r, h)) for r in W_y]
    return out


def flat(m) -> list:
    return [x for r in m for x in r]


# --- on paper: docs/exercise.md's worked example -------------------------------------------------


def test_the_rnn_example_on_paper():
    s = solve(RNN)
    assert [flat(s[f"a{k}"]) for k in (1, 2, 3)] == [[1, 1], [-1, 2], [0, 4]]
    assert [flat(s[f"h{k}"]) for k in (1, 2, 3)] == [[1, 1], [0, 2], [0, 4]]
    assert [flat(s[f"y{k}"]) for k in (1, 2, 3)] == [[1], [-2], [-4]]
    assert flat(s["h1_copy"]) == [1, 1] and flat(s["h2_copy"]) == [0, 2]


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = re.sub(r"\s+", " ", text[text.index("## The recurrent layer") : text.index("## The mixture of experts")])
    s = solve(RNN)
    for k in (1, 2, 3):
        assert f"y{chr(0x2080 + k)} = {str(flat(s[f'y{k}'])[0]).rjust(2)}".replace("  ", " ") in part.replace(
            "=  ", "= "
        ), k
    assert "a₂ = [W_x | W_h | b]·[x₂ ; h₁ ; 1] = | -1 | h₂ = | 0 |" in part.replace("|  ", "| ")


def test_solve_prints_every_step(run):
    r = run("solve", str(EXAMPLES / "rnn.json"))
    assert r.code == 0, r.err
    assert "a2 = W_x·x2 + W_h·h1 + b\n  [ -1 ]\n  [  2 ]" in r.out and "y3 = W_y·h3\n  [ -4 ]" in r.out
    doc = json.loads(run("solve", str(EXAMPLES / "rnn.json"), "--json").out)
    assert doc["kind"] == "rnn" and doc["a2"] == [[-1], [2]] and doc["h1_copy"] == [[1], [1]]


# --- as properties, against the plain unrolling ---------------------------------------------------


@st.composite
def rnns(draw, convention=None):
    steps, d_x, d_h, d_y = (
        draw(st.integers(1, 5)),
        draw(st.integers(1, 4)),
        draw(st.integers(1, 4)),
        draw(st.integers(0, 3)),
    )
    p = RNNProblem(
        X=draw(int_matrix(d_x, steps)),
        W_x=draw(int_matrix(d_h, d_x)),
        W_h=draw(int_matrix(d_h, d_h)),
        b=draw(int_matrix(1, d_h))[0],
        W_y=draw(int_matrix(d_y, d_h)) if d_y else None,
    )
    if (convention or draw(st.sampled_from(["column", "row"]))) == "row":
        p = RNNProblem(
            X=t(p.X), W_x=t(p.W_x), W_h=t(p.W_h), b=p.b, W_y=None if p.W_y is None else t(p.W_y), convention="row"
        )
    return p


@settings(max_examples=80)
@given(p=rnns())
def test_the_solution_is_the_plain_unrolling_in_either_convention(p):
    s, want = solve(p), unrolled(p)
    assert set(s.grids) == set(want)
    for name, values in want.items():
        assert flat(s[name]) == values, name
        rows, cols = grid_shapes(p)[1][name]
        assert (rows, cols) == ((1, len(values)) if p.convention == "row" else (len(values), 1))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


def shaped(p, values: list) -> list:
    return [values] if p.convention == "row" else [[v] for v in values]


def student(p, slip_step: str, slip: int) -> dict:
    """A student who slips (+1) in one cell of `slip_step` and works every later step right from
    their own numbers, copies included: by plain loops, not the code under test."""
    row = p.convention == "row"
    X, W_x, W_h = (t(p.X), t(p.W_x), t(p.W_h)) if row else (p.X, p.W_x, p.W_h)
    W_y = None if p.W_y is None else (t(p.W_y) if row else p.W_y)
    doc = key_answers(p)
    h = [0] * len(p.b)
    for step in range(len(X[0])):
        name = f"h{step}_copy"
        if step:
            h = list(h)
            if slip_step == name:
                h[slip] += 1
            doc[name] = shaped(p, h)
        a = [
            sum(w * v for w, v in zip(W_x[i], [r[step] for r in X])) + sum(w * v for w, v in zip(W_h[i], h)) + p.b[i]
            for i in range(len(p.b))
        ]
        if slip_step == f"a{step + 1}":
            a[slip] += 1
        h = [max(0, v) for v in a]
        doc[f"a{step + 1}"], doc[f"h{step + 1}"] = shaped(p, a), shaped(p, h)
        if W_y is not None:
            doc[f"y{step + 1}"] = shaped(p, [sum(w * v for w, v in zip(r, h)) for r in W_y])
    return doc


@settings(max_examples=80)
@given(p=rnns(), data=st.data())
def test_one_slip_costs_one_point_and_everything_after_it_carries(p, data):
    assert graded(p, key_answers(p)).points == graded(p, key_answers(p)).total > 0
    names = [n for n in grid_shapes(p)[1] if n.startswith("a") or n.endswith("_copy")]
    name = data.draw(st.sampled_from(names))
    slip = data.draw(st.integers(0, len(p.b) - 1))
    g = graded(p, student(p, name, slip))
    assert g.points == g.total - 1
    cells = g.step(None, name).verdicts
    assert (cells[0][slip] if p.convention == "row" else cells[slip][0]) == "wrong"
    assert graded(p, student(p, name, slip), carry=False).points <= g.points


def test_a_state_copied_wrong_carries_into_the_next_step():
    doc = student(RNN, "h1_copy", 0)  # h1 = (1, 1) copied as (2, 1)
    g = graded(RNN, doc)
    assert g.step(None, "h1_copy").verdicts == (("wrong",), ("correct",))
    assert {v for r in g.step(None, "a2").verdicts for v in r} == {"carried"}  # a2 from the wrong copy
    assert g.points == g.total - 1


# --- the draw -------------------------------------------------------------------------------------

SHAPES = [
    kind_options("rnn", preset=pr, tokens=n, d_model=d, d_h=h, readout=y, convention=c)
    for pr in PRESETS
    for n, d, h, y in ((3, 2, 2, 1), (4, 3, 3, 0), (2, 1, 2, 2), (5, 4, 4, 3))
    for c in ("column", "row")
]


@pytest.mark.parametrize(
    "o", SHAPES, ids=lambda o: f"{o.preset}-{o.tokens}{o.d_model}{o.d_h}{o.readout}-{o.convention}"
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=8)
    assert len({p.code for p in problems}) == 8
    lim = PRESETS[o.preset]
    for p in problems:
        steps = unrolled(p)
        pre = [x for k, v in steps.items() if k.startswith("a") for x in v]
        assert max(abs(x) for x in pre) <= lim.pre <= 60 and min(pre) < 0  # hand-sized, ReLU matters
        assert all(any(steps[f"h{k}"]) for k in range(1, o.tokens + 1))  # the state never dies
        assert any(any(x for x in (t(p.W_h) if p.convention == "row" else p.W_h)[i]) for i in range(o.d_h))
        assert all(abs(x) <= lim.out for k, v in steps.items() if k.startswith("y") for x in v)
        assert (p.W_y is None) == (o.readout == 0) and p.convention == o.convention
    codes_rebuild(o, problems)


@pytest.mark.parametrize(
    "args, line",
    [
        (["--tokens", "6"], "rnn sheets take 2 to 5"),
        (["--d-h", "5"], "--d-h"),
        (["--d-ff", "3"], "--d-ff is for"),
        (["--readout", "4"], "--readout"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "rnn", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"W_h": [[1, 0, 0], [0, 1, 0]]}, "W_h: expected 2×2 (d_h × d_h), got 2×3"),
        ({"X": [[1] * 6, [0] * 6]}, "X: a sheet unrolls 1 to 5 time steps, got 6"),
        ({"W_y": [[1, 2, 3]]}, "W_y: expected 1×2 (d_y × d_h), got 1×3"),
        ({"b": [1.5, 0]}, "b"),
        ({"W_z": [[1]]}, "unknown key 'W_z'"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "rnn.json", change, message)


# --- printed, graded -----------------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_is_one_page_inside_its_margins_and_its_class_grades(run, tmp_path, convention, lang, paper):
    out = tmp_path / "b"
    r = run(
        "generate",
        "--kind",
        "rnn",
        "--count",
        "2",
        "--seed",
        "5",
        "--tokens",
        "4",
        "--d-h",
        "3",
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
        assert len(found) == 2, (name, len(found))
        inside(name, found)
        words = " ".join(w[4] for _, _, ws in found for w in ws)
        assert all(f"a{k}" in words.split() for k in (1, 2, 3, 4)) and "W_x" in words
        assert ("mano" in words.split()) == (lang == "es")
    skeletons = tmp_path / "answers.json"
    assert run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(skeletons)).code == 0
    assert "h3_copy" in json.loads(skeletons.read_text())[0]
    r = run("grade", str(skeletons), "--manifest", str(out / "manifest.json"), "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    assert len(list((tmp_path / "g" / "graded").iterdir())) == 2
    assert "h1_copy" in (tmp_path / "g" / "gradebook.csv").read_text().splitlines()[0]


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "rnn", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "blank" / "worksheets.pdf") for w in ws)
    assert "a3" in words and "1" in words.split()
    r = run("generate", "--problem", str(EXAMPLES / "rnn.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "a2, unit 1 = row 1 of [W_x | W_h | b]" in words


def test_draw_stats_and_a_code_key(run, tmp_path):
    r = run("draw", "--kind", "rnn", "--seed", "4", "--count", "5", "--stats")
    assert r.code == 0 and "largest |a|" in r.err and "cells ReLU sets to 0" in r.err, r.err
    code = parse_problems(r.out)[0].code
    assert run("key", code, "--out", str(tmp_path / "k")).code == 0
    assert (tmp_path / "k").is_dir()


# --- the second draw: every unit of the state alive; the first draw's codes rebuild as printed ----


def test_codes_of_the_first_draw_rebuild_what_it_drew():
    # Drawn by the attnsheet of before the second draw (tests/golden/rnn-draw1.json): each code
    # still rebuilds its problem, its options saying which draw made it.
    for doc in json.loads((ROOT / "tests" / "golden" / "rnn-draw1.json").read_text()):
        assert rebuild(doc["code"]) == problem_from_json(doc)
        assert decode_code(doc["code"]).options.draw_version == 1


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_second_draw_keeps_every_unit_of_the_state_alive(preset):
    for shape in ((3, 2, 2, 1), (5, 4, 4, 3), (2, 1, 3, 0)):
        n, d, h, y = shape
        o = kind_options("rnn", preset=preset, tokens=n, d_model=d, d_h=h, readout=y)
        assert o.draw_version == 3  # the third draws as the second (its sheets' boxes grow)
        for version in (2, 3):
            for p in draw(replace(o, draw_version=version), 31, count=40 if version == 3 else 5):
                steps = unrolled(p)
                assert all(any(steps[f"h{k}"][unit] > 0 for k in range(1, n + 1)) for unit in range(h)), p
                assert decode_code(p.code).options.draw_version == version and rebuild(p.code) == p
        assert same_numbers(draw(replace(o, draw_version=2), 31, count=1)[0], draw(o, 31, count=1)[0])


def test_the_first_draw_let_units_die_and_a_code_says_its_draw():
    from dataclasses import replace

    o = replace(kind_options("rnn", preset="medium", tokens=3, d_model=2, d_h=4, readout=1), draw_version=1)
    problems = draw(o, 31, count=40)
    dead = [p for p in problems if not all(any(unrolled(p)[f"h{k}"][u] > 0 for k in (1, 2, 3)) for u in range(4))]
    assert dead  # what the second draw mends
    assert all(decode_code(p.code).options == o and rebuild(p.code) == p for p in problems[:5])
    assert decode_code(problems[0].code).options.draw_version == 1
