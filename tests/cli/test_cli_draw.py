"""`attnsheet draw`: JSON that solve reads, files, seeds, codes, stats and option errors."""

from __future__ import annotations

import json

import pytest

from generator.core.formats import parse_problems
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw


def test_draw_writes_problems_that_solve_reads(run):
    r = run("draw", "--seed", "7", "--count", "3")
    assert r.code == 0, r.err
    docs = json.loads(r.out)
    assert [d["code"] for d in docs] == [p.code for p in draw(DrawOptions(), 7, 3)]
    assert all(d["metrics"]["multiplications"] == 312 for d in docs)
    assert len(parse_problems(r.out)) == 3
    solved = run("solve", "-", "--json", stdin=r.out)
    assert solved.code == 0 and len(json.loads(solved.out)) == 3


def test_fresh_seed_is_printed_and_rebuilds_the_batch(run):
    r = run("draw", "--count", "2")
    assert r.code == 0
    seed = int(r.err.split("--seed ")[1].split(")")[0])
    again = run("draw", "--count", "2", "--seed", str(seed))
    assert json.loads(again.out) == json.loads(r.out)


def test_code_rebuilds_one_problem(run):
    docs = json.loads(run("draw", "--seed", "41", "--count", "5", "--preset", "hard", "--causal").out)
    r = run("draw", "--code", docs[3]["code"].lower())
    assert r.code == 0, r.err
    assert json.loads(r.out) == [docs[3]]


def test_code_with_other_options_is_a_usage_error(run):
    r = run("draw", "--code", "72A2-Z", "--preset", "easy")
    assert r.code == 2 and "drop --preset" in r.err and r.err.count("\n") == 1


def test_mistyped_code(run):
    code = draw(DrawOptions(), 5)[0].code
    bad = code[:-1] + ("2" if code[-1] != "2" else "3")
    r = run("draw", "--code", bad)
    assert r.code == 1 and "mistyped" in r.err and r.err.count("\n") == 1


def test_out_file_is_never_overwritten_without_force(run, tmp_path):
    out = tmp_path / "class.json"
    assert run("draw", "--seed", "1", "--out", str(out)).code == 0
    first = out.read_text()
    r = run("draw", "--seed", "2", "--out", str(out))
    assert r.code == 1 and "already exists" in r.err and out.read_text() == first
    assert run("draw", "--seed", "2", "--out", str(out), "--force").code == 0
    assert out.read_text() != first
    assert [p.name for p in tmp_path.iterdir()] == ["class.json"]  # no temporary files left


def test_unwritable_folder(run, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("draw", "--seed", "1", "--out", str(blocker / "class.json"))
    assert r.code == 1 and r.err.count("\n") == 1 and "cannot" in r.err


def test_stats_go_to_stderr(run):
    r = run("draw", "--seed", "3", "--count", "20", "--preset", "hard", "--stats")
    assert r.code == 0
    assert "largest number written" in r.err and "fraction before the final division" in r.err
    json.loads(r.out)


def test_every_shape_option_reaches_the_problem(run):
    r = run(
        "draw",
        "--seed",
        "5",
        "--tokens",
        "3",
        "--d-model",
        "4",
        "--d-k",
        "3",
        "--d-v",
        "2",
        "--heads",
        "2",
        "--output-projection",
        "--causal",
        "--convention",
        "row",
        "--rules",
        "exact",
        "--x-range",
        "0..2",
        "--w-range",
        "-1..1",
        "--max-score",
        "4",
        "--max-sum",
        "90",
        "--allow-negative-exponents",
    )
    assert r.code == 0, r.err
    (doc,) = json.loads(r.out)
    assert doc["convention"] == "row" and doc["causal"] is True and doc["rules"] == {"scale": "exact", "softmax": "e"}
    assert len(doc["X"]) == 3 and len(doc["X"][0]) == 4 and len(doc["heads"]) == 2 and len(doc["W_O"]) == 4
    assert json.loads(run("draw", "--code", doc["code"]).out) == [doc]


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("--count", "0"), 2, "--count"),
        (("--count", "100001"), 2, "--count"),
        (("--seed", "-1"), 2, "--seed"),
        (("--tokens", "13"), 2, "--tokens"),
        (("--preset", "insane"), 2, "--preset"),
        (("--x-range", "3..1"), 2, "--x-range"),
        (("--x-range", "a..b"), 2, "--x-range"),
        # Misused options exit 2, as the README says (they exited 1 before issue 15).
        (("--w-range", "-20..2"), 2, "--w-range"),
        (("--x-range", "0..10"), 2, "--x-range"),
        (("--max-score", "40"), 2, "--max-score"),
        (("--max-score", "-3"), 2, "--max-score"),
        (("--max-score", "-1"), 2, "--max-score"),  # below the medium preset's smallest score
        (("--max-sum", "0"), 2, "--max-sum"),
        (("--max-sum", "10", "--tokens", "6"), 1, "cannot draw"),
        (("--tokens", "9", "--d-model", "2"), 2, "makes only 8"),  # refused before any draw
        (("--tokens", "8", "--d-model", "3"), 2, "--tokens 8 needs --d-model 4 or more"),  # the same
        (("--tokens", "1"), 2, "a single token attends only to itself"),
    ],
)
def test_bad_options_are_one_line(run, args, code, message):
    r = run("draw", "--seed", "1", *args)
    assert r.code == code, r.err
    assert r.out == "" and r.err.count("\n") == 1 and message in r.err
