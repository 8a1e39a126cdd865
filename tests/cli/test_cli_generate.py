"""The CLI: readable and JSON output, stdin, and one clean line for every bad input."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from test_formats import BAD

WORKED = EXAMPLES / "worked.json"


def test_solve_prints_steps_with_fractions_and_decimals(run):
    r = run("solve", str(WORKED))
    assert r.code == 0, r.err
    assert "S' = floor(S / 2)" in r.out
    assert "column sums of E: 15, 15, 15" in r.out
    assert "3/5" in r.out and "0.600" in r.out
    assert r.err == ""


def test_decimals_option(run):
    r = run("solve", str(WORKED), "--decimals", "1")
    assert "0.6" in r.out and "0.600" not in r.out


def test_solve_json_reads_stdin(run):
    r = run("solve", "-", "--json", stdin=WORKED.read_text())
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["Z"] == [["4/5", "2/5", "2/5"], ["8/5", "8/5", "8/5"]]
    assert doc["problem"]["rules"] == {"scale": "floor", "softmax": "base3"}


def test_list_of_problems_gives_list_of_solutions(run):
    one = json.loads(WORKED.read_text())
    r = run("solve", "-", "--json", stdin=json.dumps([one, {**one, "causal": True}]))
    assert [s["problem"]["causal"] for s in json.loads(r.out)] == [False, True]
    r = run("solve", "-", stdin=json.dumps([one, one]))
    assert "Problem 2 of 2" in r.out


@pytest.mark.parametrize(
    "rules", [{"scale": s, "softmax": m} for s in ("floor", "exact", "none") for m in ("base3", "e")]
)
@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("causal", [False, True])
def test_every_variant_solves(run, rules, convention, causal):
    doc = json.loads((EXAMPLES / "classic.json").read_text())
    doc.update(rules=rules, causal=causal)
    doc["heads"] = doc["heads"] * 2
    doc["W_O"] = [[1 if i == j else 0 for j in range(6)] for i in range(6)]
    if convention == "row":
        t = lambda m: [list(r) for r in zip(*m)]  # noqa: E731
        doc.update(convention="row", X=t(doc["X"]), W_O=t(doc["W_O"]))
        doc["heads"] = [{k: t(v) for k, v in h.items()} for h in doc["heads"]]
    text = json.dumps(doc)
    for args in (("solve", "-"), ("solve", "-", "--json")):
        r = run(*args, stdin=text)
        assert r.code == 0, r.err
    assert len(json.loads(r.out)["output"]) == (4 if convention == "row" else 6)


@pytest.mark.parametrize("name", BAD)
def test_bad_problem_is_one_line_exit_1(run, name):
    doc, message = BAD[name]
    r = run("solve", "-", stdin=json.dumps(doc))
    assert r.code == 1
    assert r.out == ""
    assert r.err.count("\n") == 1 and message in r.err and r.err.startswith("attnsheet: error: stdin: ")


def test_not_json_file(run, tmp_path):
    path = tmp_path / "p.json"
    path.write_text("this is not json")
    r = run("solve", str(path))
    assert (r.code, r.err.count("\n")) == (1, 1)
    assert f"{path}: not valid JSON" in r.err


def test_missing_file(run, tmp_path):
    r = run("solve", str(tmp_path / "nope.json"))
    assert r.code == 1 and "cannot read" in r.err and r.err.count("\n") == 1


def test_directory_and_unreadable_and_binary(run, tmp_path):
    # A missing file, a folder and bytes that are not text are all bad input: exit 1, one line.
    # (Exit 2 for a folder before issue 15: it was a usage error of Click's.)
    for path in (tmp_path, tmp_path / "missing.json"):
        r = run("solve", str(path))
        assert r.code == 1 and r.err.count("\n") == 1 and "cannot read" in r.err, r.err
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\x00garbage")
    r = run("solve", str(binary))
    assert r.code == 1 and "not UTF-8" in r.err
    utf16 = tmp_path / "u.json"
    utf16.write_bytes(WORKED.read_text().encode("utf-16"))  # a byte-order mark says which
    assert run("solve", str(utf16)).code == 0


def test_usage_errors_exit_2_in_one_line(run):
    for args in (
        ("solve",),
        ("solve", str(WORKED), "--decimals", "-1"),
        ("nonsense",),
        ("solve", str(WORKED), "--bogus"),
    ):
        r = run(*args)
        assert r.code == 2, args
        assert r.err.count("\n") == 1 and r.err.startswith("attnsheet: error:"), r.err


def test_help_and_version(run):
    assert run("--help").code == 0
    r = run("--version")
    assert r.code == 0 and "attnsheet" in r.out
