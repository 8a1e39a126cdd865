"""Every code and sheet printed so far rebuilds byte for byte: a corpus of batches, keys and grades, by hash.

The hashes in tests/golden/rebuilds.json were written before the kinds became folders (issue
34) and must never change for a code printed then (PRINTED below): a sheet a teacher printed last year is rebuilt from its code as it
was. `pytest tests/sheets/test_rebuilds.py --update-golden` rewrites them (only for a deliberate
change of every sheet, reviewed).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "rebuilds.json"

BATCHES = {
    "attention": ["--count", "3", "--seed", "2026"],
    "hard": ["--count", "2", "--seed", "5", "--preset", "hard"],
    "easy-worked": ["--count", "2", "--seed", "11", "--preset", "easy", "--worked"],
    "heads-wo": ["--count", "2", "--seed", "9", "--heads", "3", "--output-projection"],
    "row-es-letter": [
        "--count",
        "2",
        "--seed",
        "4",
        "--convention",
        "row",
        "--lang",
        "es",
        "--paper",
        "letter",
        "--worked",
    ],
    "causal": ["--count", "2", "--seed", "3", "--causal", "--worked"],
    "exact": ["--count", "1", "--seed", "8", "--rules", "exact"],
    "wide": ["--count", "1", "--seed", "6", "--tokens", "6", "--d-model", "7", "--d-k", "4"],
    "ffn": ["--count", "2", "--seed", "1", "--kind", "ffn", "--worked"],
    "ffn-row": ["--count", "2", "--seed", "12", "--kind", "ffn", "--convention", "row", "--no-residual"],
    "block": ["--count", "2", "--seed", "2", "--kind", "transformer", "--worked"],
    "block-computed": ["--count", "1", "--seed", "3", "--kind", "transformer", "--attention", "computed"],
    "block-heads-row-es": [
        "--count",
        "1",
        "--seed",
        "7",
        "--kind",
        "transformer",
        "--attention",
        "computed",
        "--heads",
        "2",
        "--output-projection",
        "--convention",
        "row",
        "--lang",
        "es",
        "--worked",
    ],
    "blank": ["--count", "1", "--blank"],
    "blank-ffn": ["--count", "1", "--blank", "--kind", "ffn"],
    "blank-block": ["--count", "1", "--blank", "--kind", "transformer", "--attention", "computed"],
    "split": ["--count", "2", "--seed", "13", "--split"],
    "comma": ["--count", "1", "--seed", "14", "--decimal-comma"],
    "html": ["--count", "1", "--seed", "15", "--format", "html"],
    "html-ffn": ["--count", "1", "--seed", "16", "--format", "html", "--kind", "ffn"],
}


PRINTED = {"ffn": "KCEK-2J2M"}
"""Codes printed by a kind's earlier draw, rebuilt as they were printed: the FFN's batch above now
prints its later draw's codes (its boxes grown where the page has room, issue 55), so the key, the
problem and the solution are taken from the code the first draw printed for that sheet."""


def digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (fonts copied beside HTML left out: they are the bundled ones), by its SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "fonts" not in p.parts
    }


def corpus(run, tmp: Path) -> dict:
    found = {}
    for name, args in BATCHES.items():
        out = tmp / name
        r = run("generate", *args, "--out", str(out))
        assert r.code == 0, (name, r.err)
        found[name] = digest(out)
    # A key rebuilt from each kind's code; a class graded (graded sheets, the report, the gradebook).
    for name in ("attention", "ffn", "block", "block-computed", "row-es-letter"):
        manifest = json.loads((tmp / name / "manifest.json").read_text())
        code = PRINTED.get(name, manifest["sheets"][0]["code"])
        r = run("key", code, "--out", str(tmp / f"key-{name}"), "--worked")
        assert r.code == 0, r.err
        found[f"key-{name}"] = digest(tmp / f"key-{name}")
        if name in PRINTED:  # the problem as its key's manifest records it
            manifest = json.loads((tmp / f"key-{name}" / f"{code}-manifest.json").read_text())
        r = run("solve", "-", "--json", stdin=json.dumps(manifest["sheets"][0]["problem"]))
        found[f"solve-{name}"] = hashlib.sha256(r.out.encode()).hexdigest()
        r = run("draw", "--code", code)
        found[f"draw-{name}"] = hashlib.sha256(r.out.encode()).hexdigest()
    manifest = json.loads((tmp / "attention" / "manifest.json").read_text())
    lines = ["code,head,step,row,col,value"]
    for sheet in manifest["sheets"]:
        q = sheet["solution"]["heads"][0]["Q"]
        lines += [
            f"{sheet['code']},1,Q,{i + 1},{j + 1},{v if (i, j) != (0, 0) else 99}"
            for i, row in enumerate(q)
            for j, v in enumerate(row)
        ]
    (tmp / "answers.csv").write_text("\n".join(lines) + "\n")
    r = run(
        "grade",
        str(tmp / "answers.csv"),
        "--manifest",
        str(tmp / "attention" / "manifest.json"),
        "--out",
        str(tmp / "graded"),
    )
    assert r.code == 0, r.err
    found["graded"] = {k: v for k, v in digest(tmp / "graded").items() if k != "report.pdf"}
    return found


def test_every_code_and_sheet_rebuilds_byte_for_byte(run, tmp_path, request):
    found = corpus(run, tmp_path)
    if request.config.getoption("--update-golden"):
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        return
    golden = json.loads(GOLDEN.read_text())
    changed = [
        f"{name}: {file}"
        for name, files in golden.items()
        for file in (files if isinstance(files, dict) else {"": files})
        if (found.get(name, {}).get(file) if isinstance(files, dict) else found.get(name))
        != (files[file] if isinstance(files, dict) else files)
    ]
    assert not changed, "these no longer rebuild as they were printed:\n" + "\n".join(changed)
