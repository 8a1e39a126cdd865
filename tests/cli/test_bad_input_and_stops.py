"""Nothing lost, nothing leaked: reproducible bytes, stopped batches, hostile text, bad options."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from procs import children
from pypdf import PdfReader

from generator.core.errors import AttnsheetError
from generator.core.formats import parse_problems

CLI = [sys.executable, "-m", "generator"]


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, env=full_env, **kw)


def test_same_command_same_bytes_across_processes_and_jobs(tmp_path):
    runs = [("a", "1"), ("b", "2"), ("c", "1")]
    for name, jobs in runs:
        # Ten sheets: each combined file is rendered in two parts and joined.
        r = cli("generate", "--count", "10", "--seed", "11", "--causal", "--out", str(tmp_path / name), "--jobs", jobs)
        assert r.returncode == 0, r.stderr
    first = digests(tmp_path / "a")
    assert set(first) == {"worksheets.pdf", "answer-keys.pdf", "manifest.json"}
    assert digests(tmp_path / "b") == first and digests(tmp_path / "c") == first
    assert b"CreationDate" not in (tmp_path / "a" / "worksheets.pdf").read_bytes()
    assert "created" not in json.loads((tmp_path / "a" / "manifest.json").read_text())


def test_source_date_epoch_is_honoured(tmp_path):
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    for name in ("a", "b"):
        assert cli("generate", "--seed", "4", "--count", "9", "--out", str(tmp_path / name), env=env).returncode == 0
    assert digests(tmp_path / "a") == digests(tmp_path / "b")
    assert PdfReader(tmp_path / "a" / "worksheets.pdf").metadata["/CreationDate"] == "D:20231114221320Z"
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["created"] == "2023-11-14T22:13:20Z"
    bad = cli("generate", "--seed", "4", "--out", str(tmp_path / "c"), env={"SOURCE_DATE_EPOCH": "soon"})
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "SOURCE_DATE_EPOCH" in bad.stderr


STOPPER = ROOT / "tests" / "stopper.py"


def start_batch(out: Path, jobs: str, action: str, after: int = 5, scratch: Path | None = None) -> subprocess.Popen:
    """A 40-sheet split batch that `action` stops from inside after its `after`-th task (tests/stopper.py):
    the same point every run, however fast the machine."""
    # A fresh session with the default SIGINT handler, as from a terminal.
    env = {**os.environ, "TMPDIR": str(scratch)} if scratch else None
    return subprocess.Popen(
        [
            sys.executable,
            str(STOPPER),
            action,
            str(after),
            "generate",
            "--count",
            "40",
            "--seed",
            "3",
            "--split",
            "--out",
            str(out),
            "--jobs",
            jobs,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def check_stopped(out: Path, proc: subprocess.Popen, code: int, what: str) -> None:
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert err.count("\n") == 1 and what in err and "Traceback" not in err
    assert "nothing was written" in err and "files had been rendered" in err
    # All or nothing: the files rendered before the stop were only staged, and the folder the
    # batch would have made is gone with them.
    assert not out.exists() or not list(out.iterdir())


@pytest.mark.parametrize(
    "sig, code, jobs", [(signal.SIGINT, 130, "2"), (signal.SIGTERM, 143, "2"), (signal.SIGTERM, 143, "1")]
)
def test_a_stopped_batch_leaves_nothing(tmp_path, sig, code, jobs):
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    scratch.mkdir()
    proc = start_batch(out, jobs, f"signal:{int(sig)}", scratch=scratch)
    check_stopped(out, proc, code, "interrupted")
    assert not children(proc.pid)  # no job left behind
    assert not list(scratch.iterdir())  # nor its temporary files (WeasyPrint's copies of the fonts)


def test_a_dead_job_process_is_reported(tmp_path):
    proc = start_batch(tmp_path / "out", "2", "kill-worker")
    check_stopped(tmp_path / "out", proc, 1, "a rendering process stopped unexpectedly")


HOSTILE = [
    '<img src="file:///etc/passwd">',
    "<script>alert(1)</script><style>body{display:none}</style>",
    "Robert'); DROP TABLE students;--",
    'url(file:///etc/passwd) </span><span style="background:url(file:///etc/hostname)">',
    "=cmd|' /C calc'!A0",
    "שרה כהן",
    "محمد",
    "Zoë 🙂 🦜",
    "A\u202eevil\u202c B",
    "x" * 10_000,
]


def test_hostile_roster_names_end_as_plain_text(tmp_path, run):
    roster = tmp_path / "roster.csv"
    rows = ["name,group"] + [f'"{n.replace(chr(34), chr(34) * 2)}",G' for n in HOSTILE] + ['"Ada\x00Lovelace",G']
    roster.write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = run(
        "generate",
        "--roster",
        str(roster),
        "--seed",
        "1",
        "--out",
        str(tmp_path / "out"),
        "--split",
        "--title",
        "<b>Quiz</b> url(file:///etc/passwd)",
    )
    assert r.code == 0, r.err
    passwd = Path("/etc/passwd").read_text()
    names = sorted((tmp_path / "out" / "worksheets").iterdir())
    assert len(names) == len(HOSTILE) + 1 and all(p.name[3:].replace("-", "").isascii() for p in names)
    for pdf in names:
        data = pdf.read_bytes()
        assert b"root:x:0:0" not in data and passwd[:30].encode() not in data
    first = PdfReader(names[0]).pages[0].extract_text()
    assert '<img src="file:///etc/passwd">' in first and "<b>Quiz</b>" in first
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["sheets"][-1]["student"]["name"] == "AdaLovelace"
    assert len(manifest["sheets"][-2]["student"]["name"]) == 200
    assert "\u202e" not in manifest["sheets"][8]["student"]["name"]


def test_the_renderer_reads_only_its_own_assets(tmp_path):
    from generator.output.pdf import AssetFetcher
    from generator.sheet.assets import templates_dir

    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    fetcher = AssetFetcher(templates_dir())
    for url in (
        secret.as_uri(),
        "file:///etc/passwd",
        "http://127.0.0.1:9/x.css",
        "https://example.org/a.png",
        templates_dir().as_uri() + "/../pyproject.toml",
        "data:text/plain,hello",
    ):
        with pytest.raises(ValueError):
            fetcher.fetch(url)
    assert fetcher.fetch((templates_dir() / "sheet.css").as_uri()).read().startswith(b"/*")


def test_html_that_asks_for_a_file_gets_nothing(tmp_path):
    from generator.output.pdf import renderer

    secret = tmp_path / "secret.txt"
    secret.write_text("this text must not appear")
    r = renderer()
    html = (
        f'<html><head><link rel="stylesheet" href="{secret.as_uri()}"></head><body>'
        f'<img src="{secret.as_uri()}"><object data="{secret.as_uri()}"></object>'
        f'<p style="background: url({secret.as_uri()})">x</p></body></html>'
    )
    data = r.pdf([r.render(html)])
    assert b"must not appear" not in data
    assert secret.as_uri() in r.fetcher.refused


def test_wrong_encoding_and_missing_header(run, tmp_path):
    latin = tmp_path / "latin1.csv"
    latin.write_bytes("name\nJosé\n".encode("latin-1"))
    r = run("generate", "--roster", str(latin), "--out", str(tmp_path / "o"))
    assert r.code == 1 and "not UTF-8" in r.err
    headless = tmp_path / "headless.csv"
    headless.write_text("Ada\nGrace\n")
    r = run("generate", "--roster", str(headless), "--out", str(tmp_path / "o"))
    assert r.code == 1 and "no 'name' column" in r.err


BAD_OPTIONS = [
    (("generate", "--count", "0"), 2),
    (("generate", "--count", "-3"), 2),
    (("generate", "--count", "100001"), 2),
    (("generate", "--count", "2", "--roster", "x.csv"), 2),
    (("generate", "--paper", "a3"), 2),
    (("generate", "--lang", "klingon"), 2),
    (("generate", "--format", "docx"), 2),
    (("generate", "--jobs", "0"), 2),
    (("generate", "--tokens", "0"), 2),
    (("generate", "--d-k", "99"), 2),
    (("generate", "--x-range", "5..1"), 2),
    (("generate", "--x-range", "1"), 2),
    # Misused options exit 2 (these two exited 1 before issue 15), as do these new ones.
    (("generate", "--w-range", "-50..50"), 2),
    (("generate", "--max-score", "99"), 2),
    (("generate", "--max-score", "-3"), 2),
    (("generate", "--max-sum", "0"), 2),
    (("generate", "--x-range", "0..10"), 2),
    (("generate", "--out", ""), 2),
    (("draw", "--out", ""), 2),
    (("generate", "--encoding", "nope", "--roster", "x.csv"), 2),
    (("generate", "--title", "t" * 121), 2),
    (("generate", "--roster", "/nonexistent/roster.csv"), 1),
    (("generate", "--roster", "/"), 1),  # a folder is an unreadable input, like a missing one
    (("generate", "--out", "/proc/attnsheet-out"), 1),
    (("generate", "--out", "/etc/passwd/sub"), 1),
    (("generate", "--max-sum", "10", "--tokens", "6"), 1),
    (("key", "NOT-A-CODE"), 1),
    (("key", "72A2-Z", "--lang", "xx"), 2),
    (("draw", "--code", "72A2-Z", "--count", "3"), 2),
    (("draw", "--seed", "abc"), 2),
    (("solve",), 2),
    (("solve", "/nonexistent.json"), 1),
    (("solve", "/"), 1),
    (("grade", "/"), 1),
    (("bogus",), 2),
]


@pytest.mark.parametrize("args, code", BAD_OPTIONS, ids=[" ".join(a)[:40] for a, _ in BAD_OPTIONS])
def test_every_bad_option_is_one_line(run, tmp_path, args, code):
    extra = () if any(a.startswith("--out") for a in args) or args[0] != "generate" else ("--out", str(tmp_path))
    r = run(*args, *extra)
    assert r.code == code, r.err
    assert r.err.count("\n") == 1 and r.err.startswith("attnsheet: ") and "Traceback" not in r.err
    assert not list(tmp_path.rglob("*.pdf"))


def test_full_disk_is_one_line_and_leaves_nothing(run, tmp_path, monkeypatch):
    import errno

    import generator.output.files as files

    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    r = run("generate", "--seed", "1", "--out", str(tmp_path), "--format", "html")
    assert r.code == 1 and "no space left on the device" in r.err and r.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_huge_problem_file(run, tmp_path, monkeypatch):
    import generator.cli.common as common

    monkeypatch.setattr(common, "MAX_INPUT_BYTES", 1024 * 1024)
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"1," * (1024 * 1024) + b"1]")
    r = run("solve", str(big))
    assert r.code == 1 and "larger than 1 MiB" in r.err


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


def mutated_problem():
    base = {
        "format": "attnsheet/problem@1",
        "X": [[1, 0], [0, 1]],
        "heads": [{"W_Q": [[1, 0]], "W_K": [[0, 1]], "W_V": [[1, 1]]}],
    }
    keys = st.sampled_from(["format", "convention", "rules", "causal", "X", "heads", "W_O", "code", "metrics", "Y"])
    return st.dictionaries(keys, JSON, max_size=4).map(lambda d: {**base, **d})


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(JSON, mutated_problem()))
def test_fuzzed_problems_give_a_clean_error_or_a_solution(value):
    from generator.core.registry import solve

    try:
        problems = parse_problems(json.dumps(value))
    except AttnsheetError as error:
        assert "\n" not in str(error)
        return
    for p in problems:
        try:
            s = solve(p)
        except AttnsheetError:
            continue
        assert all(sum(col) == 1 or abs(float(sum(col)) - 1) < 1e-9 for h in s.heads for col in zip(*h.A))


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_fuzzed_text_never_raises_anything_else(text):
    try:
        parse_problems(text)
    except AttnsheetError:
        pass


def test_a_stop_that_the_renderer_swallows_still_stops_the_batch():
    # WeasyPrint catches every exception while it draws an SVG: a signal handler's exception
    # raised there is lost, so the batch checks what the handler recorded after each task.
    from generator.output.jobs import Stop, run_tasks

    stop, worked = Stop(), []

    def work_swallowing(task):
        worked.append(task)
        stop.request(KeyboardInterrupt())  # as the handler does, before its raise is lost
        return task

    with pytest.raises(KeyboardInterrupt):
        list(run_tasks([1, 2, 3], work_swallowing, 1, stop=stop))
    assert worked == [1]


STOPPED_MID_SEND = """
import multiprocessing, sys, time
from pathlib import Path
from generator.output.jobs import run_tasks

MARK = Path(sys.argv[1])


class Sending:
    def __reduce__(self):  # pickled last: the result's bytes go down the pipe next
        MARK.write_text("sending")
        return (str, ("",))


def work(n):
    if multiprocessing.parent_process() is None or n != 1:
        return b""
    return [b"x" * 300_000_000, Sending()]  # far more than a pipe holds: sent for a good while


def done(n):
    while MARK.read_text() != "sending":
        time.sleep(0.005)
    time.sleep(0.02)  # halfway through
    raise KeyboardInterrupt


if __name__ == "__main__":
    try:
        list(run_tasks([0, 1, 2], work, 2, done))
    except KeyboardInterrupt:
        print("stopped")
"""


def test_a_batch_stopped_while_a_job_process_sends_its_result_stops(tmp_path):
    # The job process is terminated halfway through a message; the pool's thread would wait for
    # the rest of it forever, and the batch with it (CPython 3.11), unless its pipe is closed.
    script, mark = tmp_path / "stopped_mid_send.py", tmp_path / "mark"
    script.write_text(STOPPED_MID_SEND)
    mark.write_text("")
    done = subprocess.run(
        [sys.executable, str(script), str(mark)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "stopped\n", done.stderr
