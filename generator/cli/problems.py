"""`attnsheet solve` and `attnsheet draw`: problems in, solutions or problems out, as text or JSON."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from generator.cli.common import (
    DRAW_OPTION_NAMES,
    InFile,
    OutPath,
    draw_options,
    emit,
    explicit,
    options_from,
    read_text,
    say,
)
from generator.core.engine import solve
from generator.core.errors import AttnsheetError
from generator.core.formats import (
    dumps,
    parse_problems,
    problem_to_json,
    solution_to_json,
)
from generator.core.metrics import metrics, stats_text
from generator.core.problem import Problem
from generator.draw.options import MAX_COUNT, MAX_SEED
from generator.draw.search import draw, fresh_seed
from generator.draw.sheetcodes import decode_code
from generator.output.files import write_atomic
from generator.sheet.text import solution_text


def load_problems(path: str) -> list[Problem]:
    """Problems from a problem@1 file (one object or a list), naming the file in errors."""
    text = read_text(path)
    try:
        return parse_problems(text)
    except AttnsheetError as error:
        raise type(error)(f"{_label(path)}: {error}") from None


def _label(path: str) -> str:
    return "stdin" if path == "-" else path


@click.command("solve")
@click.argument("problem_file", metavar="PROBLEM", type=InFile(dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print attnsheet/solution@1 JSON instead of text.")
@click.option("--decimals", type=click.IntRange(0, 12), default=3, show_default=True,
              help="Decimals printed beside fractions and for real-valued results.")
def solve_command(problem_file: str, as_json: bool, decimals: int) -> None:
    """Solve PROBLEM (a problem@1 JSON file, or - for stdin) exactly, step by step.

    A file holding a list of problems (as `attnsheet draw` writes) is solved problem by
    problem; with --json the result is then a list of solutions.

    \b
    Example:
      attnsheet solve generator/examples/classic.json --decimals 2
      attnsheet draw --seed 7 --count 3 | attnsheet solve - --json
    """
    problems = load_problems(problem_file)
    many = len(problems) > 1
    # Each solution is printed as soon as it is found: memory stays flat over a long list.
    if as_json and many:
        emit("[\n")
    for i, problem in enumerate(problems):
        try:
            solution = solve(problem)
        except AttnsheetError as error:
            raise type(error)(f"{_label(problem_file)}{f'[{i}]' if many else ''}: {error}") from None
        if as_json:
            text = dumps(solution_to_json(solution), _level=1 if many else 0)
            emit(("  " + text + (",\n" if i + 1 < len(problems) else "\n")) if many else text + "\n")
        else:
            text = solution_text(solution, decimals)
            emit(f"{'' if i == 0 else chr(10)}##### Problem {i + 1} of {len(problems)}\n\n{text}" if many else text)
    if as_json and many:
        emit("]\n")


@click.command("draw")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="Seed of the batch; without it a fresh one is chosen and printed.")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=1, show_default=True,
              help="Problems to draw.")
@draw_options
@click.option("--code", default=None, help="Rebuild the one problem a sheet code was printed for.")
@click.option("--out", type=OutPath(dir_okay=False, allow_dash=True, path_type=Path), default=None,
              help="Write the JSON to this file instead of stdout (- is stdout).")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@click.option("--stats", is_flag=True, help="Print the spread of the difficulty metrics on stderr.")
@click.pass_context
def draw_command(ctx: click.Context, seed, count, code, out, force, stats, **params) -> None:
    """Draw hand-friendly problems at random, as a JSON list of problem@1 objects.

    Each problem carries its sheet code (which rebuilds it exactly) and its difficulty
    metrics. `attnsheet solve` reads the list as it is.

    \b
    Example:
      attnsheet draw --seed 7 --count 30 --preset easy --out class.json --stats
      attnsheet draw --code 72A2-Z
    """
    if code is not None:
        clash = explicit(ctx, ("seed", "count") + DRAW_OPTION_NAMES)
        if clash:
            name = clash[0].replace("_", "-")
            raise click.UsageError(f"--code rebuilds a problem from the code alone; drop --{name}")
        decoded = decode_code(code)
        problems = draw(decoded.options, decoded.seed, count=1, start=decoded.index)
    else:
        options = options_from(params)
        fresh = seed is None
        seed = fresh_seed() if fresh else seed
        problems = draw(options, seed, count)
        if fresh:
            say(f"seed {seed} (rebuild this batch with --seed {seed})")
    problems = [replace(p, metrics=metrics(p)) for p in problems]
    text = dumps([problem_to_json(p) for p in problems]) + "\n"
    if out is None or str(out) == "-":
        emit(text)
    else:
        write_atomic(out, text.encode(), force=force)
        say(f"wrote {len(problems)} problem{'s' if len(problems) > 1 else ''} to {out}")
    if stats:
        click.echo(stats_text([p.metrics for p in problems]), err=True)
