"""`attnsheet boxes` and `attnsheet scan`: where a worksheet's answer boxes are, and reading them from scans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from generator.cli.common import InFile, emit, load_problems, load_secret, secret_option
from generator.cli.settingopts import setting_option
from generator.core.kinds import solve
from generator.core.student import Student
from generator.draw.rebuild import rebuild
from generator.draw.sheetcodes import read_own_code
from generator.output.boxes import worksheet_boxes
from generator.sheet.boxes import boxes_json
from generator.sheet.model import Settings


@click.command("boxes")
@click.argument("code")
@click.option("--problem", "problem_file", type=InFile(dash=True), default=None,
              help="The problem file a teacher's own sheet was printed from (its code names its content).")
@secret_option(make=False)
@setting_option("paper")
@setting_option("lang")
@click.option("--json", "as_json", is_flag=True, help="Write attnsheet/boxes@1 JSON instead of a table.")
def boxes_command(code: str, problem_file: Optional[str], secret_file: Optional[Path], paper: str, lang: str,
                  as_json: bool) -> None:
    """Where sheet CODE's answer boxes are printed: every page's registration marks and QR code,
    and every box in points from the page's top left (rows and columns 1-based, as in the
    answers CSV; a fraction's box as its fraction and decimal parts).

    \b
    Example:
      attnsheet boxes 72Y2-F --json > boxes.json
    """
    if read_own_code(code) is None and problem_file is not None:
        raise click.UsageError("--problem is for a sheet of your own numbers; this code rebuilds its draw alone")
    problems = load_problems(problem_file) if problem_file is not None else ()
    problem = rebuild(code, problems, problem_file or "the file", secret=load_secret(secret_file))
    pages = worksheet_boxes(problem, solve(problem), Student(), Settings(paper=paper, lang=lang))
    if as_json:
        emit(json.dumps({"code": problem.code, **boxes_json(pages)}, ensure_ascii=False) + "\n")
        return
    lines = [f"sheet {problem.code}: {len(pages)} page(s), {sum(len(p.boxes) for p in pages)} answer boxes, "
             "points from each page's top left"]
    for p in pages:
        marks = "  ".join(f"({x:.1f}, {y:.1f})" for x, y in p.marks)
        lines += [f"page {p.page} ({p.width:.1f} x {p.height:.1f}): QR {p.qr!r}; marks' centres {marks}",
                  f"  {'head':>4} {'step':<8} {'row':>3} {'col':>3} {'x':>7} {'y':>7} {'w':>6} {'h':>6}  parts"]
        for b in p.boxes:
            parts = "  ".join(f"{k} y {v[1]:.1f} h {v[3]:.1f}" for k, v in b.parts.items())
            lines.append(f"  {b.head or '':>4} {b.step:<8} {b.row:>3} {b.col:>3} {b.x:>7.2f} {b.y:>7.2f} "
                         f"{b.w:>6.2f} {b.h:>6.2f}  {parts}".rstrip())
    emit("\n".join(lines) + "\n")
