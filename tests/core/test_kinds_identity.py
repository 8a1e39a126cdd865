"""The step graph changed no number: attention batches' manifests match the ones printed before it."""

from __future__ import annotations

import json
import math

import pytest
from conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "manifests"
# Written by the commit before the step graph (864c4ad) with `generate ARGS --format html`.
BATCHES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def same(a, b) -> bool:
    """Equal to the letter, but for floats (exact rules only), which may differ in the last bit:
    Z is now V·A, as a student computes it, where it was (V·powers)/sum."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", BATCHES)
def test_a_batch_draws_and_solves_as_before(run, tmp_path, name):
    golden = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    r = run("generate", *golden["args"], "--out", str(tmp_path), "--format", "html")
    assert r.code == 0, r.err
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    sheets = [{k: s[k] for k in ("index", "code", "metrics", "problem", "solution")} for s in manifest["sheets"]]
    if "exact" in golden["args"]:
        assert same(sheets, golden["sheets"])
    else:
        assert sheets == golden["sheets"]  # to the letter: every int, every "p/q"
