"""The teacher's own numbers (--problem) and blank templates (--blank), end to end."""

from __future__ import annotations

import json
import re
from collections import Counter

from conftest import EXAMPLES
from pypdf import PdfReader

from generator.kinds.attention.draw.presets import DrawOptions
from generator.app.batches import blank_problem
from generator.sheet.i18n import translations
from generator.kinds.attention.sheet.rules import rules_lines

CLASSIC = EXAMPLES / "classic.json"


def test_own_numbers_give_the_key_solve_gives(run, tmp_path):
    r = run("generate", "--problem", str(CLASSIC), "--count", "3", "--out", str(tmp_path / "b"), "--jobs", "1")
    assert r.code == 0, r.err
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    solved = json.loads(run("solve", str(CLASSIC), "--json").out)
    codes = [sheet["code"] for sheet in manifest["sheets"]]
    assert len(set(codes)) == 3  # one class, one problem, a code per sheet
    for sheet in manifest["sheets"]:
        ours = {k: v for k, v in sheet["solution"].items() if k != "problem"}
        assert ours == {k: v for k, v in solved.items() if k != "problem"}
        assert {k: v for k, v in sheet["problem"].items() if k != "code"} == solved["problem"]
    assert manifest["options"]["problem_file"] == str(CLASSIC) and manifest["seed"] is None
    text = PdfReader(tmp_path / "b" / "answer-keys.pdf").pages[0].extract_text()
    assert codes[0] in text and all(str(v) in text for v in solved["heads"][0]["A"][0])
    # The code names the content: `key` rebuilds the sheet with the file, and says so without it.
    r = run("key", codes[1], "--out", str(tmp_path / "k"))
    assert r.code == 1 and "--problem FILE" in r.err and r.err.count("\n") == 1
    r = run("key", codes[1], "--problem", str(CLASSIC), "--out", str(tmp_path / "k"))
    assert r.code == 0, r.err
    rebuilt = json.loads((tmp_path / "k" / f"{codes[1]}-manifest.json").read_text())["sheets"][0]
    assert rebuilt["solution"] == manifest["sheets"][1]["solution"] and rebuilt["code"] == codes[1]
    other = tmp_path / "other.json"
    other.write_text((EXAMPLES / "worked.json").read_text())
    r = run("key", codes[1], "--problem", str(other), "--out", str(tmp_path / "k2"))
    assert r.code == 1 and "no problem in" in r.err


def test_own_numbers_refuse_draw_options_and_mismatched_counts(run, tmp_path):
    assert run("generate", "--problem", str(CLASSIC), "--preset", "hard", "--out", str(tmp_path)).code == 2
    assert run("generate", "--problem", str(CLASSIC), "--seed", "3", "--out", str(tmp_path)).code == 2
    two = tmp_path / "two.json"
    problem = json.loads(CLASSIC.read_text())
    two.write_text(json.dumps([problem, problem]))
    r = run("generate", "--problem", str(two), "--count", "3", "--out", str(tmp_path / "x"))
    assert r.code == 1 and "2 problems for 3 sheets" in r.err
    r = run("generate", "--problem", str(two), "--out", str(tmp_path / "y"), "--format", "html")
    assert r.code == 0 and "2 sheets" in r.err  # one sheet per problem of the file
    r = run("generate", "--problem", str(CLASSIC), "--convention", "row", "--out", str(tmp_path / "z"))
    assert r.code == 2


def _integers(text: str) -> Counter:
    return Counter(t for t in text.replace("−", "-").split() if re.fullmatch(r"-?\d+[.,]?", t))


def test_blank_templates_have_no_numbers_in_their_matrices(run, tmp_path):
    for args in (
        (),
        ("--heads", "2", "--output-projection"),
        ("--convention", "row", "--lang", "es"),
        ("--causal", "--paper", "letter"),
    ):
        out = tmp_path / "-".join(args or ("default",))
        r = run("generate", "--blank", *args, "--out", str(out), "--jobs", "1")
        assert r.code == 0 and "blank template" in r.err and "no key" in r.err, r.err
        assert sorted(p.name for p in out.iterdir()) == ["worksheets.pdf"]
        pages = PdfReader(out / "worksheets.pdf").pages
        text = "\n".join(page.extract_text() for page in pages)
        lang = "es" if "es" in args else "en"
        options = DrawOptions(convention="row" if "row" in args else "column", causal="--causal" in args)
        _ = translations(lang).gettext
        words = "\n".join(rules_lines(blank_problem(options), False, lang))
        heads = int(args[args.index("--heads") + 1]) if "--heads" in args else 1
        words += " " + " ".join(_("Head %(n)s") % {"n": n} for n in range(1, heads + 1) if heads > 1)
        footers = " ".join(f"{n} / {len(pages)}" for n in range(1, len(pages) + 1))
        # Every whole number on the page is one of the rules' or the footer's: none in a matrix.
        assert not _integers(text) - _integers(words + " " + footers), (args, _integers(text))


def test_blank_and_worked_or_seed_are_refused(run, tmp_path):
    assert run("generate", "--blank", "--worked", "--out", str(tmp_path)).code == 2
    assert run("generate", "--blank", "--seed", "4", "--out", str(tmp_path)).code == 2


def test_names_in_any_script_print_or_are_warned_about(tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT
    from pypdf import PdfReader

    roster = tmp_path / "class.csv"
    roster.write_text("name\n王小明\nZoë Ødegård\n", encoding="utf-8")
    cli = [
        sys.executable,
        "-m",
        "generator",
        "generate",
        "--roster",
        str(roster),
        "--seed",
        "1",
        "--split",
        "--jobs",
        "1",
    ]
    r = subprocess.run([*cli, "--out", str(tmp_path / "a")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr, "no CJK font: `make test` installs fonts-wqy-microhei (make system)"
    names = sorted(p.name for p in (tmp_path / "a" / "worksheets").iterdir())
    assert names == ["01-wangxiaoming.pdf", "02-zoe-odegard.pdf"]  # transliterated, not dropped
    assert "王小明" in PdfReader(tmp_path / "a" / "worksheets" / names[0]).pages[0].extract_text()
    # A machine without a font for the script: fontconfig sees only DejaVu; the row is named.
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        "<dir>/usr/share/fonts/truetype/dejavu</dir>"
        f"<cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>"
    )
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    r = subprocess.run([*cli, "--out", str(tmp_path / "b")], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "line 2" in warnings[0] and "王小明" in warnings[0], r.stderr
