"""Grades you can trust (issue 23): the teacher's truth, spreadsheets' CSVs, all or nothing, clean start-up.

BAD_INPUTS is the table of bad inputs the README's reliability section counts: each row is a
file (made by `case_files`), a command, the exit code and the line it must print.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.core.answers import parse_answers
from generator.core.grades import grade_to_json
from generator.core.usertext import decode
from generator.app.grading import grade_all
from generator.output.manifest import read_manifest

STEPS = ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """A class of three, its manifest, and every kind of answers file the table needs."""
    folder = tmp_path_factory.mktemp("batch")
    r = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--count", "3", "--seed", "5", "--out", str(folder / "b")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    case_files(folder)
    return folder


def right_rows(sheet: dict) -> list[list[str]]:
    """A perfect sheet's long-CSV rows (the key's own values)."""
    sol = sheet["solution"]["heads"][0]
    rows = [
        [sheet["code"], "1", step, str(i + 1), str(j + 1), str(v)]
        for step in STEPS
        for i, row in enumerate(sol[step])
        for j, v in enumerate(row)
    ]
    rows += [[sheet["code"], "1", "sums", "1", str(j + 1), str(v)] for j, v in enumerate(sol["sums"])]
    return rows


def as_csv(rows: list[list[str]], sep: str = ",", end: str = "\n") -> str:
    return end.join(sep.join(r) for r in [["code", "head", "step", "row", "col", "value"], *rows]) + end


def case_files(folder: Path) -> None:
    manifest = json.loads((folder / "b" / "manifest.json").read_text())
    sheet = manifest["sheets"][0]
    rows = right_rows(sheet)
    w = lambda name, text: (folder / name).write_text(text, encoding="utf-8")  # noqa: E731
    w("right.csv", as_csv(rows))
    w("right-semicolon.csv", as_csv(rows, ";"))
    w("right-tab.csv", as_csv(rows, "\t"))
    w("right-cr.csv", as_csv(rows, ",", "\r"))
    w("right-crlf.csv", as_csv(rows, ",", "\r\n"))
    a_row = next(i for i, r in enumerate(rows) if r[2] == "A")
    split = copy.deepcopy(rows)
    split[a_row][5] = "0,38"  # unquoted: splits a comma-separated row in two
    w("decimal-comma.csv", as_csv(split))
    quoted = copy.deepcopy(rows)
    quoted[a_row][5] = '"0,38"'
    w("decimal-comma-quoted.csv", as_csv(quoted))
    thousands = copy.deepcopy(rows)
    thousands[a_row][5] = '"1,000"'
    w("thousands.csv", as_csv(thousands))
    stray = copy.deepcopy(rows)
    stray[3][5] = '"5'
    w("stray-quote.csv", as_csv(stray))
    w("stray-quote-long.csv", as_csv(stray + [[sheet["code"], "1", "Q", "1", "1", "1"]] * 7000))
    for name, column, digit in (("row-superscript", 3, "²"), ("col-circled", 4, "①"), ("head-superscript", 1, "¹")):
        odd = copy.deepcopy(rows)
        odd[2][column] = digit
        w(f"{name}.csv", as_csv(odd))
    huge = copy.deepcopy(rows)
    huge[2][5] = "9" * 140_000
    w("huge-field.csv", as_csv(huge))
    w("header-only.csv", as_csv([]))
    (folder / "cp1252.csv").write_bytes(
        as_csv([r + ["José"] for r in rows])
        .replace("code,head,step,row,col,value", "code,head,step,row,col,value,name")
        .encode("cp1252")
    )
    skeleton = {
        "format": "attnsheet/answers@1",
        "code": sheet["code"],
        "heads": [{step: sheet["solution"]["heads"][0][step] for step in STEPS}],
    }
    forged = {
        **skeleton,
        "problem": {
            "format": "attnsheet/problem@1",
            "X": [[1, 0], [0, 1]],
            "heads": [{"W_Q": [[1, 0]], "W_K": [[1, 0]], "W_V": [[1, 0]]}],
        },
    }
    forged["heads"] = []
    w("forged.json", json.dumps(forged))
    stranger = copy.deepcopy(skeleton)
    stranger["code"] = "72Y2-F"  # a real code, of another batch
    w("not-in-manifest.json", json.dumps(stranger))
    twice = copy.deepcopy(manifest)
    twice["sheets"][1]["code"] = twice["sheets"][0]["code"]
    w("duplicate-codes.json", json.dumps(twice))
    swapped = copy.deepcopy(manifest)
    s0, s1 = swapped["sheets"][0], swapped["sheets"][1]
    s0["problem"], s1["problem"] = s1["problem"], s0["problem"]
    w("swapped.json", json.dumps(swapped))


M = "b/manifest.json"
BAD_INPUTS = [
    # (what, command, exit code, the line it prints, in part)
    (
        "a real code with an invented problem",
        ["grade", "forged.json", "--manifest", M],
        1,
        "forged.json: its problem is not the one b/manifest.json lists for sheet",
    ),
    ("the same file without a manifest", ["grade", "forged.json"], 1, "its problem is not the one sheet"),
    (
        "a code not in the manifest",
        ["grade", "not-in-manifest.json", "--manifest", M],
        1,
        "sheet '72Y2-F' is not in b/manifest.json",
    ),
    (
        "a manifest listing one code twice",
        ["grade", "right.csv", "--manifest", "duplicate-codes.json"],
        1,
        "sheets[1]: the same code as sheets[0]",
    ),
    (
        "a manifest whose problems were swapped",
        ["grade", "right.csv", "--manifest", "swapped.json"],
        1,
        "its problem is not the one its code draws",
    ),
    ("an unquoted decimal comma", ["grade", "decimal-comma.csv", "--manifest", M], 1, "decimal-comma.csv: line"),
    ("a thousands separator", ["grade", "thousands.csv", "--manifest", M], 1, "thousands separator"),
    ("a stray quote", ["grade", "stray-quote.csv", "--manifest", M], 1, "stray-quote.csv: line 5: a stray quote"),
    (
        "a stray quote before 7,000 lines",
        ["grade", "stray-quote-long.csv", "--manifest", M],
        1,
        "line 5: a stray quote",
    ),
    ("a cp1252 file read as UTF-8", ["grade", "cp1252.csv", "--manifest", M], 1, "try --encoding cp1252"),
    ("a header and no answers", ["grade", "header-only.csv", "--manifest", M], 1, "a header row but no answers"),
    (
        "a superscript digit as a row",
        ["grade", "row-superscript.csv", "--manifest", M],
        1,
        "line 4: row must be a whole number from 1 in the digits 0-9, got '²'",
    ),
    (
        "a circled digit as a column",
        ["grade", "col-circled.csv", "--manifest", M],
        1,
        "line 4: col must be a whole number",
    ),
    (
        "a superscript digit as a head",
        ["grade", "head-superscript.csv", "--manifest", M],
        1,
        "line 4: head must be a whole number",
    ),
    (
        "a field over 131,072 characters",
        ["grade", "huge-field.csv", "--manifest", M],
        1,
        "line 4 is longer than 65,536 characters",
    ),
    (
        "a swapped manifest, for answers",
        ["answers", "--manifest", "swapped.json", "--all"],
        1,
        "its problem is not the one its code draws",
    ),
]


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("attnsheet: ") and "Traceback" not in err


@pytest.mark.parametrize("what, args, code, line", BAD_INPUTS, ids=[row[0] for row in BAD_INPUTS])
def test_bad_inputs(batch, monkeypatch, run, what, args, code, line):
    monkeypatch.chdir(batch)
    r = run(*args)
    assert r.code == code, r.err
    assert one_line(r.err) and line in r.err, r.err


GOOD_INPUTS = ["right.csv", "right-semicolon.csv", "right-tab.csv", "right-cr.csv", "right-crlf.csv"]


@pytest.mark.parametrize("name", GOOD_INPUTS)
def test_every_separator_and_line_ending_grades_the_same(batch, monkeypatch, run, name):
    monkeypatch.chdir(batch)
    r = run("grade", name, "--manifest", M, "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["points"] == 116  # everything but the three copies, which the file leaves blank


def test_a_quoted_decimal_comma_and_an_encoding_are_read(batch, monkeypatch, run):
    monkeypatch.chdir(batch)
    quoted = run("grade", "decimal-comma-quoted.csv", "--manifest", M, "--json")
    assert quoted.code == 0, quoted.err
    r = run("grade", "cp1252.csv", "--manifest", M, "--encoding", "cp1252")
    assert r.code == 0 and r.out.startswith("José"), r.err


def test_without_a_manifest_a_drawn_code_is_drawn_again(batch, monkeypatch, run):
    monkeypatch.chdir(batch)
    with_manifest = run("grade", "right.csv", "--manifest", M, "--json")
    alone = run("grade", "right.csv", "--json")
    assert alone.code == 0 and json.loads(alone.out) == json.loads(with_manifest.out)


# --- all or nothing ------------------------------------------------------------------------------


def snapshot(folder: Path) -> dict:
    """Every name under `folder` with its bytes and mode: what 'exactly as it was' compares."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None, stat.S_IMODE(p.lstat().st_mode))
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def small_disk(tmp_path):
    """A 400 KB tmpfs (root only; skipped elsewhere), unmounted after the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path, leave: int) -> None:
    """Fill the disk but for about `leave` bytes."""
    free = shutil.disk_usage(disk).free
    (disk / "ballast").write_bytes(b"\0" * max(0, free - leave))


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


FULL_DISK = [  # (what, command, bytes left free: room for a file or two, so the run fails part-way)
    ("generate", lambda b: ["generate", "--count", "3", "--seed", "9", "--out", "OUT", "--force"], 24_000),
    (
        "generate split",
        lambda b: ["generate", "--count", "3", "--seed", "9", "--split", "--out", "OUT", "--force"],
        24_000,
    ),
    ("key", lambda b: ["key", "72U2-X", "--out", "OUT", "--force"], 24_000),
    (
        "grade --out",
        lambda b: ["grade", str(b / "right.csv"), "--manifest", str(b / M), "--out", "OUT", "--force"],
        24_000,
    ),
    (
        "answers --all",
        lambda b: ["answers", "--manifest", str(b / M), "--all", "--out", "OUT/all.json", "--force"],
        2_000,
    ),
]


@pytest.mark.parametrize("what, args, leave", FULL_DISK, ids=[row[0] for row in FULL_DISK])
def test_a_full_disk_leaves_the_folder_exactly_as_it_was(batch, small_disk, what, args, leave):
    out = small_disk / "out"
    out.mkdir()
    (out / "worksheets.pdf").write_bytes(b"an earlier batch's file, to keep")
    (out / "notes.txt").write_text("the teacher's own")
    before = snapshot(out)
    fill(small_disk, leave)
    r = cli(*[a.replace("OUT", str(out)) for a in args(batch)], cwd=batch)
    assert r.returncode == 1, r.stderr
    assert one_line(r.stderr) and "no space left" in r.stderr, r.stderr
    assert snapshot(out) == before


def test_a_full_disk_into_a_new_folder_leaves_no_folder(batch, small_disk):
    fill(small_disk, 24_000)
    r = cli(
        "generate", "--count", "3", "--seed", "9", "--split", "--out", str(small_disk / "new" / "period3"), cwd=batch
    )
    assert r.returncode == 1 and one_line(r.stderr)
    assert sorted(p.name for p in small_disk.iterdir()) == ["ballast"]


def test_a_failed_move_puts_back_what_it_replaced(tmp_path, monkeypatch):
    import generator.output.staging as staging
    from generator.output.files import OutputError

    out = tmp_path / "out"
    out.mkdir()
    for name in ("a.txt", "b.txt"):
        (out / name).write_text(f"old {name}")
    real_replace, calls = os.replace, []

    def failing(src, dst):  # the fourth move (b.txt's new content) fails: the disk is full
        calls.append(dst)
        if len(calls) == 4:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", failing)
    with pytest.raises(OutputError, match="no space left.*nothing was changed"):
        with staging.Staging(out, force=True) as stage:
            stage.write(out / "a.txt", b"new a")
            stage.write(out / "b.txt", b"new b")
            stage.write(out / "c.txt", b"new c")
            stage.commit()
    assert {p.name: p.read_text() for p in out.iterdir()} == {"a.txt": "old a.txt", "b.txt": "old b.txt"}


def test_leftovers_of_a_killed_run_are_removed_by_the_next(run, tmp_path):
    out = tmp_path / "out"
    (out / ".attnsheet-stage-999999999-abc" / "keys").mkdir(parents=True)
    (out / ".worksheets.pdf.999999999~x1.part").write_bytes(b"half")
    (out / ".manifest.json.k2j3.part").write_bytes(b"an older version's")
    (out / f".attnsheet-stage-{os.getpid()}-live").mkdir()  # a run still going: left alone
    r = run("generate", "--count", "1", "--seed", "1", "--out", str(out))
    assert r.code == 0, r.err
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [f".attnsheet-stage-{os.getpid()}-live"]


def test_written_files_follow_the_umask(tmp_path):
    r = subprocess.run(
        [
            "sh",
            "-c",
            f"umask 077 && exec {sys.executable} -m generator generate --count 1 --seed 1 --out {tmp_path / 'out'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "out").iterdir()}
    assert modes and set(modes.values()) == {0o600}, modes
    r = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--count", "1", "--seed", "1", "--out", str(tmp_path / "b")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert {stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "b").iterdir()} == {0o666 & ~current_umask()}


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --- serve start-up ------------------------------------------------------------------------------


def serve(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "serve", "--no-browser", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_on_a_port_in_use_says_so_before_serving(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = serve("--port", str(port), "--data", str(tmp_path / "data"), cwd=ROOT)
    assert r.returncode == 1 and one_line(r.stderr), r.stderr
    assert f"port {port} is in use" in r.stderr and "--port" in r.stderr and "serving" not in r.stderr


def test_serve_on_a_host_that_does_not_resolve(tmp_path):
    r = serve("--host", "no-such-host.invalid", "--data", str(tmp_path / "data"), cwd=ROOT)
    assert r.returncode == 1 and one_line(r.stderr), r.stderr
    assert "does not resolve" in r.stderr and "serving" not in r.stderr and "token" not in r.stderr


def test_serve_with_a_data_folder_that_cannot_be_made(tmp_path):
    (tmp_path / "file").write_text("in the way")
    r = serve("--data", str(tmp_path / "file" / "data"), cwd=ROOT)
    assert r.returncode == 1 and one_line(r.stderr), r.stderr
    assert "cannot create folder" in r.stderr and "serving" not in r.stderr


# --- Excel's three CSV dialects grade as their answers@1 twin --------------------------------------

EXCEL = {
    # Excel's "CSV UTF-8": commas, a byte-order mark, decimal points
    "csv-utf8": {"delimiter": ",", "encoding": "utf-8-sig", "comma": False},
    # "CSV" in a European locale: semicolons, the Windows code page, decimal commas
    "csv-semicolon": {"delimiter": ";", "encoding": "cp1252", "comma": True},
    # "Unicode text": tabs, UTF-16 with a byte-order mark
    "unicode-text": {"delimiter": "\t", "encoding": "utf-16", "comma": False},
}


@pytest.fixture(scope="module")
def class_manifest(batch) -> tuple[dict, dict]:
    text = (batch / M).read_text()
    return json.loads(text), read_manifest(text, M)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), dialect=st.sampled_from(sorted(EXCEL)), comma_file=st.booleans())
def test_an_excel_csv_grades_as_its_json_twin(class_manifest, data, dialect, comma_file):
    manifest, listed = class_manifest
    sheet = manifest["sheets"][data.draw(st.integers(0, 2))]
    how = EXCEL[dialect]
    heads: dict = {}
    rows = []
    for step in STEPS + ("sums",):
        grid = sheet["solution"]["heads"][0][step]
        grid = [grid] if step == "sums" else grid
        written = []
        for i, row in enumerate(grid):
            out = []
            for j, v in enumerate(row):
                text = data.draw(st.sampled_from(_forms(v)))
                out.append(text or None)
                if text:
                    shown = text.replace(".", ",") if how["comma"] or (comma_file and "." in text) else text
                    rows.append([sheet["code"], "1", step, str(i + 1), str(j + 1), shown])
            written.append(out)
        heads[step] = written[0] if step == "sums" else written
    twin = json.dumps({"format": "attnsheet/answers@1", "code": sheet["code"], "heads": [heads]})
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=how["delimiter"], lineterminator="\r\n")
    writer.writerow(["code", "head", "step", "row", "col", "value"])
    writer.writerows(rows)
    if not rows:
        return
    raw = buffer.getvalue().encode(how["encoding"])
    encoding = "cp1252" if how["encoding"] == "cp1252" else None
    from_csv = grade_all(parse_answers(decode(raw, "x.csv", encoding), "x.csv"), listed, carry=True)
    from_json = grade_all(parse_answers(twin, "x.json"), listed, carry=True)
    assert [grade_to_json(g.grade) for g in from_csv] == [grade_to_json(g.grade) for g in from_json]


def _forms(v) -> list[str]:
    """What a student may write for a true value v: right in any form, wrong, or nothing."""
    from fractions import Fraction

    value = Fraction(v) if isinstance(v, (int, str)) else None
    forms = ["", str(v), str(int(value) + 1 if value is not None and value.denominator == 1 else "1/7")]
    if value is not None and value.denominator != 1:
        forms += [f"{float(value):.2f}", f"{v} {float(value):.2f}"]
    return forms
