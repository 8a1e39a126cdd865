"""attnsheet benchmark: measures in one run, prints one table, exits 1 when a target is missed.

The machines are shared and noisy, so each figure is taken in this one run and the targets
are stated as rates or as ratios to a floor measured alongside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.core.registry import solve  # noqa: E402
from generator.kinds.attention.draw.presets import DrawOptions  # noqa: E402
from generator.draw.search import draw  # noqa: E402

ATTNSHEET = [sys.executable, "-m", "generator"]


@dataclass
class Row:
    """One measured figure, its target and whether it is met (None: no target)."""

    name: str
    value: float
    unit: str
    target: str = ""
    ok: Optional[bool] = None


def median_ms(works: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median wall time of each work over `repeats` rounds, in milliseconds (after a warm-up).

    The works take turns within each round, so that a change in the host's load weighs on
    all of them alike and their ratios hold.
    """
    times: dict[str, list[float]] = {name: [] for name in works}
    for work in works.values():
        work()
    for _ in range(repeats):
        for name, work in works.items():
            start = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - start)
    return {name: 1000 * statistics.median(t) for name, t in times.items()}


def page_costs(repeats: int) -> list[Row]:
    """(a) the blank-page floor, (b) a default worksheet page and a key page: through WeasyPrint,
    and written straight from their layout (as `generate` writes them)."""
    from generator.core.student import Student
    from generator.output import direct
    from generator.output.pdf import painted_html, renderer
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    r = renderer()
    blank = "<html><body><p>x <span style='font-family: \"Sheet Mono\"'>1</span></p></body></html>"
    problem = draw(DrawOptions(), 2026)[0]
    solution = solve(problem)
    settings = Settings()
    page = {}
    for key in (False, True):
        # Through WeasyPrint: the HTML with the boxes to paint in, then layout, painting and
        # the PDF. What is timed is what the floor times: render and write.
        view = sheet_view(problem, solution, Student("Ada Lovelace"), settings, key)
        prepared = painted_html(view, settings)
        page[key] = lambda prepared=prepared: r.pdf([r.render(*prepared)])
        page["direct", key] = lambda view=view: direct.document([view], settings)
    ms = median_ms(
        {
            "floor": lambda: r.pdf([r.render(blank)]),
            "worksheet": page[False],
            "key": page[True],
            "direct key": page["direct", True],
        },
        repeats,
    )
    floor = ms["floor"]
    pages = {False: ms["worksheet"], True: ms["key"]}
    return [
        Row("(a) blank page floor (render + write)", floor, "ms"),
        Row("(b) worksheet page (render + write)", pages[False], "ms"),
        Row("(b) answer key page (render + write)", pages[True], "ms"),
        Row("(b) worksheet page / floor", pages[False] / floor, "x", "<= 4", pages[False] / floor <= 4),
        Row("(b) key page / floor", pages[True] / floor, "x", "<= 4", pages[True] / floor <= 4),
        Row("(b) key page written directly, as generate writes it (no WeasyPrint)", ms["direct key"], "ms"),
        Row(
            "(b) key page written directly / floor",
            ms["direct key"] / floor,
            "x",
            "<= 3",
            ms["direct key"] / floor <= 3,
        ),
    ]


def kinds(repeats: int) -> list[Row]:
    """(n) A key page of each kind after attention, written directly as generate writes it,
    against an attention key page taken in the same rounds; and a draw of each, alone."""
    from generator.core.student import Student
    from generator.draw.choose import kind_options
    from generator.output import direct
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    settings = Settings()
    from generator.core.registry import kinds as registered

    # Every registered kind at its defaults (a new kind is measured without a line here), and
    # the block with attention computed, which takes two pages.
    shapes = {name: kind_options(name) for name in registered()}
    shapes["transformer computed"] = kind_options("transformer", attention="computed")
    shapes["moe weighted"] = kind_options("moe", weighted=True)  # the gate's softmax too: the most steps
    works, draws, views = {}, {}, {}
    for name, options in shapes.items():
        problem = draw(options, 2026)[0]
        view = sheet_view(problem, solve(problem), Student("Ada Lovelace"), settings, True)
        works[name], views[name] = (lambda view=view: direct.document([view], settings)), view
        draws[name] = lambda options=options: draw(options, 2026, count=1, start=7)
    ms = median_ms(works, repeats)
    drawn = median_ms(draws, repeats)
    rows = []
    for name in shapes:
        if name == "attention":
            continue
        ratio = ms[name] / ms["attention"]
        pages = " (two pages)" if direct.document([views[name]], settings)[1][0] > 1 else ""
        rows.append(
            Row(
                f"(n) {name} key page{pages} / attention key page, written directly",
                ratio,
                "x",
                "" if pages else "<= 1.5",
                None if pages else ratio <= 1.5,
            )
        )
        rows.append(Row(f"(n) draw of one {name} problem", drawn[name], "ms", "<= 50", drawn[name] <= 50))
    return rows


class TreeRSS:
    """Peak resident memory of a process and all its descendants, sampled from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as handle:
                        ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                children.setdefault(ppid, []).append(int(entry))
        tree, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for pid in self._tree():
                try:
                    with open(f"/proc/{pid}/status") as handle:
                        for line in handle:
                            if line.startswith("VmRSS:"):
                                total += int(line.split()[1])
                except OSError:
                    pass
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(0.05)

    def stop(self) -> float:
        """Stop sampling; the peak in MB."""
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


def measure(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak tree RSS (MB) of one attnsheet run, start-up included.

    The output goes to a temporary folder (a file in it for `draw`); a failed run stops the
    benchmark with its message.
    """
    with tempfile.TemporaryDirectory() as out:
        target = out if args[0] == "generate" else f"{out}/problems.json"
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*ATTNSHEET, *args, "--out", target], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT
        )
        rss = TreeRSS(proc.pid)
        _, err = proc.communicate()
        seconds = time.perf_counter() - start
        peak = rss.stop()
        if proc.returncode != 0:
            raise SystemExit(f"attnsheet {' '.join(args)} failed: {err.decode().strip()}")
    return seconds, peak


def run_generate(args: list[str]) -> tuple[float, float]:
    """`measure` of one `attnsheet generate` run with the benchmark's seed."""
    return measure(["generate", "--seed", "2026", *args])


def batches(sheets: int) -> list[Row]:
    """(c) a class of 30, end to end; (d, e) a large --split batch with 1 and 2 jobs."""
    rows = []
    seconds, _ = run_generate(["--count", "30"])
    rows.append(Row("(c) class of 30, combined, default jobs", seconds, "s", "<= 2.5", seconds <= 2.5))
    pages = 2 * sheets
    results = {}
    for jobs in (1, 2):
        seconds, peak = run_generate(["--count", str(sheets), "--split", "--jobs", str(jobs)])
        results[jobs] = (pages / seconds, peak)
        rows.append(Row(f"(e) {sheets} sheets, --split, --jobs {jobs}", pages / seconds, "pages/s"))
        rows.append(Row(f"(e) {sheets} sheets, --jobs {jobs}: peak RSS", peak, "MB", "<= 300", peak <= 300))
    rate = results[2][0]
    rows.append(Row(f"(d) {sheets} sheets with 2 jobs", rate, "pages/s", ">= 40", rate >= 40))
    rows.append(Row("(e) speed-up of 2 jobs over 1", results[2][0] / results[1][0], "x"))
    _, small_peak = run_generate(["--count", str(max(1, sheets // 4)), "--split", "--jobs", "2"])
    growth = results[2][1] / small_peak
    rows.append(
        Row(f"(d) peak RSS, {sheets} vs {max(1, sheets // 4)} sheets", growth, "x", "<= 1.2 (flat)", growth <= 1.2)
    )
    # Combined files too: written a part at a time, so as flat.
    _, big = run_generate(["--count", str(sheets), "--jobs", "2"])
    _, small = run_generate(["--count", str(max(1, sheets // 4)), "--jobs", "2"])
    rows.append(Row(f"(d) combined files, {sheets} sheets: peak RSS", big, "MB", "<= 300", big <= 300))
    rows.append(
        Row(
            f"(d) combined, peak RSS {sheets} vs {max(1, sheets // 4)} sheets",
            big / small,
            "x",
            "<= 1.1 (flat)",
            big / small <= 1.1,
        )
    )
    return rows


def draw_and_solve(count: int, repeats: int) -> Row:
    """(f) Draw `count` medium problems in one batch and solve each one, on one core."""
    options = DrawOptions(preset="medium")

    def work():
        for problem in draw(options, 1, count):
            solve(problem)

    rate = count / (median_ms({"draw": work}, repeats)["draw"] / 1000)
    return Row("(f) draw + solve, medium preset, one core", rate, "problems/s", ">= 5000", rate >= 5000)


def shape_grid(seeds: int) -> list[Row]:
    """(k) Over a sample of the shape grid (tokens × d_model × d_k × d_v, medium and easy), the
    share of the shapes allowed that draw within a second, each with `seeds` seeds; the share
    refused before any draw; and the slowest draw or refusal."""
    from generator.draw.options import DrawError

    shapes = [
        (p, n, d, k, v)
        for p in ("medium", "easy")
        for n in (2, 3, 4, 6, 8, 10, 12)
        for d in (2, 3, 4, 6, 8, 12, 16)
        for k in (1, 2, 3, 4, 6, 8)
        for v in (1, 3, 8)
    ]
    drawn, refused, slowest, total = 0, 0, 0.0, 0
    for p, n, d, k, v in shapes:
        for seed in range(1, seeds + 1):
            start = time.perf_counter()
            try:
                options = DrawOptions(preset=p, tokens=n, d_model=d, d_k=k, d_v=v)
                draw(options, seed)
                ok = True
            except DrawError:
                ok = False
            took = time.perf_counter() - start
            slowest, total = max(slowest, took), total + 1
            try:
                DrawOptions(preset=p, tokens=n, d_model=d, d_k=k, d_v=v).check_drawable()
            except DrawError:
                refused += 1
                continue
            drawn += ok and took <= 1.0
    share = 100 * drawn / (total - refused)
    return [
        Row(
            f"(k) shape grid ({total - refused} allowed shapes × seeds, medium and easy): drawn within 1 s",
            share,
            "%",
            ">= 99",
            share >= 99,
        ),
        Row(f"(k) shape grid: refused before any draw (of {total})", 100 * refused / total, "%"),
        Row("(k) shape grid: slowest draw or refusal", slowest * 1000, "ms", "<= 1000", slowest <= 1.0),
    ]


def key_answers_json(problem, solution, slip: bool) -> str:
    """A sheet's answers@1 as text, filled with its key's values; `slip` makes one Q cell wrong
    and carries it into Q_copy and the scores' first column, as a student would."""
    from generator.core.numbers import encode, encode_matrix

    heads = []
    for h in solution.heads:
        g = {k: encode_matrix(getattr(h, k)) for k in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")}
        g.update(
            sums=[encode(x) for x in h.sums],
            Q_copy=encode_matrix(h.Q),
            K_T=[list(r) for r in zip(*encode_matrix(h.K))],
            V_copy=encode_matrix(h.V),
        )
        if slip:
            g["Q"][0][0] += 1
            g["Q_copy"][0][0] += 1
        heads.append(g)
    import json

    return json.dumps({"format": "attnsheet/answers@1", "code": problem.code, "heads": heads})


def grading(count: int, repeats: int) -> Row:
    """(g) Grade `count` default sheets from answers@1 text, solving each sheet, on one core."""
    from generator.core.answers import parse_answers
    from generator.core.registry import grade

    problems = draw(DrawOptions(), 3, count)
    texts = [key_answers_json(p, solve(p), slip=i % 2 == 1) for i, p in enumerate(problems)]

    def work():
        for p, text in zip(problems, texts):
            (pending,) = parse_answers(text, "bench")
            grade(p, pending.answers(p, pending.student, p.code))

    rate = count / (median_ms({"grade": work}, repeats)["grade"] / 1000)
    return Row("(g) grading, default sheets, one core", rate, "sheets/s", ">= 2000", rate >= 2000)


def graded_pages(repeats: int) -> list[Row]:
    """(h) A graded sheet (the student's values, marks, expected values) against a key page,
    both rendered and written as `grade --out` and `generate` do, taking turns."""
    from generator.core.answers import parse_answers
    from generator.core.registry import grade
    from generator.core.student import Student
    from generator.output.gradebook import Graded, graded_pdf
    from generator.output.pdf import renderer
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    problem = draw(DrawOptions(), 2026)[0]
    solution = solve(problem)
    (pending,) = parse_answers(key_answers_json(problem, solution, slip=True), "bench")
    graded = Graded(grade(problem, pending.answers(problem, Student("Ada Lovelace"), problem.code)), problem)
    settings = Settings()
    # Both as their commands make them: the key's view is built per page, as render_task does.
    ms = median_ms(
        {
            "key": lambda: renderer().document(
                [sheet_view(problem, solution, Student("Ada Lovelace"), settings, True)], settings
            ),
            "graded": lambda: graded_pdf(graded, settings),
        },
        repeats,
    )
    ratio = ms["graded"] / ms["key"]
    return [
        Row("(h) graded sheet page (render + write)", ms["graded"], "ms"),
        Row("(h) graded sheet / key page", ratio, "x", "<= 1.2", ratio <= 1.2),
    ]


def against_typst(pairs: int, sheets: int = 0) -> list[Row]:
    """(i) Typst as the reference (bench/typst_ref.py, the bench-only extra `typst`): a key page
    and a class of 30 end to end from a fresh process, taking turns, as ratios; and `sheets`
    sheets (when not 0), ours with --split and 2 jobs against the Typst script, in pages/s."""
    try:
        import typst  # noqa: F401
    except ImportError:
        return [Row("(i) Typst reference: not installed (pip install -e '.[bench]')", 0, "")]
    sys.path.insert(0, str(ROOT / "bench"))
    import typst_ref

    from generator.core.student import Student
    from generator.output.documents import document
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    problem = draw(DrawOptions(), 2026)[0]
    solution = solve(problem)
    markup = typst_ref.PREAMBLE + typst_ref.page(problem, solution, True)
    ms = median_ms(
        {
            "ours": lambda: document([sheet_view(problem, solution, Student(), Settings(), True)], Settings()),
            "typst": lambda: typst_ref.compile_pdf(markup),
        },
        20,
    )
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(pairs):
            ours.append(measure(["generate", "--seed", "2026", "--count", "30"])[0])
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, str(ROOT / "bench" / "typst_ref.py"), "--count", "30", "--out", f"{out}/class.pdf"],
                check=True,
                capture_output=True,
            )
            theirs.append(time.perf_counter() - start)
    ratio = statistics.median(a / b for a, b in zip(ours, theirs))
    rows = [
        Row("(i) key page / the same page by Typst", ms["ours"] / ms["typst"], "x"),
        Row("(i) class of 30, fresh process / Typst script", ratio, "x", "<= 1.0", ratio <= 1.0),
    ]
    if sheets:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "bench" / "typst_ref.py"),
                    "--count",
                    str(sheets),
                    "--out",
                    f"{out}/all.pdf",
                ],
                check=True,
                capture_output=True,
            )
            typst_rate = 2 * sheets / (time.perf_counter() - start)
        our_rate = 2 * sheets / run_generate(["--count", str(sheets), "--split", "--jobs", "2"])[0]
        rows.append(
            Row(
                f"(i) {sheets} sheets, pages/s: ours (2 jobs) / Typst",
                our_rate / typst_rate,
                "x",
                ">= 1.5",
                our_rate / typst_rate >= 1.5,
            )
        )
    return rows


def _free_port() -> int:
    """A port nothing listens on now (the server takes it a moment later)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def web_app(repeats: int) -> list[Row]:
    """(j) The warm web app (`attnsheet serve`, a real server process) beside the CLI's cold start:
    a one-sheet preview, a class of 30 written, one entered sheet graded."""
    import json
    import re
    import urllib.parse
    import urllib.request

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [*ATTNSHEET, "serve", "--port", str(port), "--no-browser", "--data", data],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        try:
            for _ in range(200):  # up in a few seconds: WeasyPrint and the fonts load before it listens
                try:
                    home = urllib.request.urlopen(base + "/", timeout=5).read().decode()
                    break
                except OSError:
                    time.sleep(0.05)
            else:
                raise SystemExit(f"attnsheet serve did not start: {server.stderr.read().decode()}")
            csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)

            def get(path: str) -> bytes:
                return urllib.request.urlopen(base + path, timeout=60).read()

            def post(path: str, body: bytes, kind: str) -> bytes:
                request = urllib.request.Request(
                    base + path, data=body, method="POST", headers={"content-type": kind, "x-csrf-token": csrf}
                )
                return urllib.request.urlopen(request, timeout=120).read()

            form = urllib.parse.urlencode({"csrf": csrf, "count": "30", "seed": "2026"}).encode()
            made = {"n": 0}

            def make_class():
                post("/batches", form, "application/x-www-form-urlencoded")
                made["n"] += 1

            preview = median_ms({"preview": lambda: get("/preview?seed=2026&key=1")}, repeats)["preview"]
            make_class()
            batch = "batch-0001"
            sheet = json.loads(get(f"/batches/{batch}/files/manifest.json"))["sheets"][0]
            from generator.core.formats import problem_from_json

            problem = problem_from_json(sheet["problem"])
            answers = json.loads(key_answers_json(problem, solve(problem), slip=True))
            body = json.dumps({k: v for k, v in answers.items() if k not in ("format", "code")}).encode()
            graded = median_ms(
                {"grade": lambda: post(f"/api/batches/{batch}/sheets/1/grade", body, "application/json")}, repeats * 5
            )["grade"]
            warm, cold = [], []
            for _ in range(3):  # taking turns with the CLI's cold start of the same batch
                start = time.perf_counter()
                make_class()
                warm.append(time.perf_counter() - start)
                cold.append(run_generate(["--count", "30", "--jobs", "1"])[0])
        finally:
            server.terminate()
            server.wait(10)
    seconds, speedup = statistics.median(warm), statistics.median(c / w for c, w in zip(cold, warm))
    return [
        Row("(j) web: one-sheet preview (key), warm server", preview, "ms", "<= 150", preview <= 150),
        Row("(j) web: class of 30 written, warm server", seconds, "s", "<= 1.0", seconds <= 1.0),
        Row("(j) web: CLI cold start / warm server, class of 30", speedup, "x", ">= 2", speedup >= 2),
        Row("(j) web: grading one entered sheet", graded, "ms", "<= 20", graded <= 20),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 100-sheet batch instead of 1,000: a smoke run")
    parser.add_argument(
        "--only", choices=["pages", "kinds", "batches", "draw", "grade", "typst", "web"], help="measure one group only"
    )
    args = parser.parse_args(argv)
    rows: list[Row] = []
    if args.only in (None, "pages"):
        rows += page_costs(20)
    if args.only in (None, "kinds"):
        rows += kinds(20)
    if args.only in (None, "batches"):
        rows += batches(100 if args.quick else 1000)
    if args.only in (None, "draw"):
        rows.append(draw_and_solve(1000 if args.quick else 5000, 3))
        rows += shape_grid(1 if args.quick else 2)
    if args.only in (None, "grade"):
        rows.append(grading(500 if args.quick else 2000, 3))
        rows += graded_pages(10 if args.quick else 20)
    if args.only in (None, "typst"):
        rows += against_typst(3, 0 if args.quick else 1000)
    if args.only in (None, "web"):
        rows += web_app(5 if args.quick else 10)
    width = max(len(r.name) for r in rows)
    print(f"{'measure':<{width}}  {'value':>9}  {'unit':<10}  {'target':<14}  ok")
    for r in rows:
        ok = "" if r.ok is None else ("yes" if r.ok else "NO")
        print(f"{r.name:<{width}}  {r.value:>9.1f}  {r.unit:<10}  {r.target:<14}  {ok}")
    return 0 if all(r.ok is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
