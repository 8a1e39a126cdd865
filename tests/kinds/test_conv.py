"""A convolution layer: worked on paper, against an independent sliding window, as properties, drawn, printed and graded."""

from __future__ import annotations

import json

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
from generator.kinds.conv.draw import PRESETS
from generator.kinds.conv.steps import ConvProblem, Kernel

CONV = parse_problems((EXAMPLES / "conv.json").read_text())[0]


def maps(p: ConvProblem) -> dict[str, list[list[int]]]:
    """Every map by plain loops (not the code under test): the kernel slid over the image, ReLU, the pool."""
    out = {}
    h, w = len(p.X), len(p.X[0])
    for c, kernel in enumerate(p.kernels, start=1):
        k = len(kernel.K)
        Z = [
            [
                sum(kernel.K[u][v] * p.X[i + u][j + v] for u in range(k) for v in range(k)) + kernel.b
                for j in range(w - k + 1)
            ]
            for i in range(h - k + 1)
        ]
        H = [[max(0, x) for x in r] for r in Z]
        out[f"Z{c}"], out[f"H{c}"] = Z, H
        if p.pool:
            out[f"P{c}"] = [
                [
                    max(H[2 * i][2 * j], H[2 * i][2 * j + 1], H[2 * i + 1][2 * j], H[2 * i + 1][2 * j + 1])
                    for j in range(len(H[0]) // 2)
                ]
                for i in range(len(H) // 2)
            ]
    return out


def test_the_conv_example_on_paper():
    s = solve(CONV)
    assert [list(r) for r in s["Z1"]] == [[2, -1, 1, 3], [0, 0, 2, -1], [1, 2, 1, 0], [3, 0, -1, 3]]
    assert [list(r) for r in s["H1"]] == [[2, 0, 1, 3], [0, 0, 2, 0], [1, 2, 1, 0], [3, 0, 0, 3]]
    assert [list(r) for r in s["P1"]] == [[2, 3], [3, 3]]


def test_docs_exercise_md_shows_the_numbers_solve_finds():
    text = (ROOT / "docs" / "exercise.md").read_text(encoding="utf-8")
    part = text[text.index("## A convolution layer (`conv`)") :]
    assert "Z1 = | 2 -1  1  3 |" in part and "P1 = | 2 3 |" in part and "| 3 3 |" in part
    assert maps(CONV)["P1"] == [[2, 3], [3, 3]]


def test_solve_prints_every_map(run):
    r = run("solve", str(EXAMPLES / "conv.json"))
    assert r.code == 0, r.err
    assert "Z1 = K1 * X + b1" in r.out and "P1 = max-pool(H1)" in r.out
    doc = json.loads(run("solve", str(EXAMPLES / "conv.json"), "--json").out)
    assert doc["kind"] == "conv" and doc["P1"] == [[2, 3], [3, 3]]


@st.composite
def layers(draw):
    pool = draw(st.sampled_from([0, 2]))
    k = draw(st.integers(1, 3))
    h, w = draw(st.integers(k, 6)), draw(st.integers(k, 6))
    if pool:  # a map of even sides
        h, w = h + (h - k + 1) % 2, w + (w - k + 1) % 2
    kernels = tuple(
        Kernel(draw(int_matrix(k, k, -1, 1)), draw(st.integers(-2, 2))) for _ in range(draw(st.integers(1, 2)))
    )
    return ConvProblem(X=draw(int_matrix(h, w, 0, 3)), kernels=kernels, pool=pool)


@settings(max_examples=80)
@given(p=layers())
def test_the_solution_is_the_plain_sliding_window(p):
    s, want = solve(p), maps(p)
    assert set(s.grids) == set(want)
    for name, grid in want.items():
        assert [list(r) for r in s[name]] == grid, name
        assert grid_shapes(p)[1][name] == (len(grid), len(grid[0]))
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p


@settings(max_examples=60)
@given(p=layers(), data=st.data())
def test_one_slip_in_a_map_costs_one_point_and_its_relu_and_pool_carry(p, data):
    assert graded(p, key_answers(p)).points == graded(p, key_answers(p)).total > 0
    c = data.draw(st.integers(1, len(p.kernels)))
    own = maps(p)
    Z = own[f"Z{c}"]
    i, j = data.draw(st.integers(0, len(Z) - 1)), data.draw(st.integers(0, len(Z[0]) - 1))
    Z[i][j] += 5  # a slip; ReLU and the pool worked right on the student's own map
    H = own[f"H{c}"] = [[max(0, x) for x in r] for r in Z]
    doc = key_answers(p)
    doc[f"Z{c}"], doc[f"H{c}"] = [[str(x) for x in r] for r in Z], [[str(x) for x in r] for r in H]
    if p.pool:
        doc[f"P{c}"] = [
            [
                str(max(H[2 * a][2 * b], H[2 * a][2 * b + 1], H[2 * a + 1][2 * b], H[2 * a + 1][2 * b + 1]))
                for b in range(len(H[0]) // 2)
            ]
            for a in range(len(H) // 2)
        ]
    g = graded(p, doc)
    assert g.step(None, f"Z{c}").verdicts[i][j] == "wrong" and g.points == g.total - 1


def test_a_pool_is_graded_from_the_students_own_map():
    doc = key_answers(CONV)
    doc["Z1"][0][0], doc["H1"][0][0], doc["P1"][0][0] = "5", "5", "5"  # Z1's first cell written 5 (the key: 2)
    g = graded(CONV, doc)
    assert g.step(None, "H1").verdicts[0][0] == "carried" and g.step(None, "P1").verdicts[0][0] == "carried"
    assert g.points == g.total - 1


SHAPES = [
    kind_options("conv", preset=pr, height=h, width=w, kernels=n, kernel_size=k, pool=pool)
    for pr in PRESETS
    for h, w, n, k, pool in ((5, 5, 1, 2, True), (6, 6, 2, 3, True), (4, 6, 2, 2, False), (6, 4, 1, 3, False))
]


@pytest.mark.parametrize(
    "o", SHAPES, ids=lambda o: f"{o.preset}-{o.height}{o.width}{o.kernels}{o.kernel_size}-{o.pool}"
)
def test_every_shape_draws_with_its_guarantees_and_its_codes_rebuild_it(o):
    problems = draw(o, 2026, count=8)
    assert len({p.code for p in problems}) == 8
    lim = PRESETS[o.preset]
    for p in problems:
        found = maps(p)
        assert p.convention == "column" and len(p.kernels) == o.kernels and p.pool == (2 if o.pool else 0)
        for c in range(1, o.kernels + 1):
            Z = [x for r in found[f"Z{c}"] for x in r]
            assert max(map(abs, Z)) <= lim.z and min(Z) < 0 < max(Z)  # ReLU zeroes one, leaves one
            if o.pool:
                H = found[f"H{c}"]
                corners = [
                    [H[a][b], H[a][b + 1], H[a + 1][b], H[a + 1][b + 1]]
                    for a in range(0, len(H), 2)
                    for b in range(0, len(H[0]), 2)
                ]
                assert len({block.index(max(block)) for block in corners}) > 1 or len(corners) == 1
    codes_rebuild(o, problems)


@pytest.mark.parametrize(
    "args, line",
    [
        (["--height", "7"], "--height"),
        (["--kernel-size", "3"], "--pool: a 5×5 image under a 3×3 kernel"),
        (["--tokens", "3"], "--tokens is for"),
        (["--convention", "row"], "--convention is for"),
    ],
)
def test_settings_it_cannot_take_are_one_line(run, args, line):
    refuses_setting(run, "conv", args, line)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"kernels": [{"K": [[1, 0, 0], [0, 1, 0]], "b": 0}]}, "kernels[0].K: expected a square k × k kernel"),
        ({"kernels": [{"K": [[1, 0, 0], [0, 1, 0], [1, 1, 1]], "b": 0}]}, "pool: kernel 1's map is 3×3"),
        ({"pool": 3}, "pool: expected 0 (none) or 2"),
        ({"convention": "row"}, "convention: an image has no row twin"),
        ({"kernels": [{"K": [[1, 0], [0, 1]], "b": 0.5}]}, "kernels[0].b: expected an integer"),
        ({"W": [[1]]}, "unknown key 'W'"),
    ],
)
def test_bad_problem_files_are_one_clear_line(run, tmp_path, change, message):
    refuses_problem(run, tmp_path, EXAMPLES / "conv.json", change, message)


def test_draw_stats_show_each_guarantee_held(run, tmp_path):
    r = run("draw", "--kind", "conv", "--seed", "4", "--count", "40", "--stats")
    assert r.code == 0, r.err
    assert "ReLU zeroes an entry of every map: 40 of 40" in r.err and "not all in one corner: 40 of 40" in r.err
    assert run("key", parse_problems(r.out)[0].code, "--out", str(tmp_path / "k")).code == 0


@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_sheet_is_one_page_inside_its_margins_and_its_class_grades(run, tmp_path, lang, paper):
    prints_and_grades(
        run,
        tmp_path,
        "conv",
        ["--kernels", "2", "--kernel-size", "3", "--height", "6", "--width", "6"],
        lang,
        paper,
        ("Z1", "H2", "P2", "K2"),
        gradebook=("P2",),
    )


def test_a_blank_template_and_a_teachers_own_problem_print(run, tmp_path):
    assert run("generate", "--kind", "conv", "--blank", "--count", "1", "--out", str(tmp_path / "blank")).code == 0
    r = run("generate", "--problem", str(EXAMPLES / "conv.json"), "--out", str(tmp_path / "own"), "--worked")
    assert r.code == 0, r.err
    words = " ".join(w[4] for _, _, ws in pages(tmp_path / "own" / "answer-keys.pdf") for w in ws)
    assert "Z1, row 1, column 1 = K1 over the window of X" in words
