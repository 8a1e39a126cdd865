"""`attnsheet solve`: problem files in, every step of their exact solutions out, as text or JSON."""

from __future__ import annotations

import click

from generator.cli.common import InFile, emit, label_of, load_problems
from generator.app.errors import AttnsheetError
from generator.app.solving import dumps, solution_text, solution_to_json, solve


@click.command("solve")
@click.argument("problem_file", metavar="PROBLEM", type=InFile(dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print attnsheet/solution@1 JSON instead of text.")
@click.option(
    "--decimals",
    type=click.IntRange(0, 12),
    default=3,
    show_default=True,
    help="Decimals printed beside fractions and for real-valued results.",
)
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
            raise type(error)(f"{label_of(problem_file)}{f'[{i}]' if many else ''}: {error}") from None
        if as_json:
            text = dumps(solution_to_json(solution), _level=1 if many else 0)
            emit(("  " + text + (",\n" if i + 1 < len(problems) else "\n")) if many else text + "\n")
        else:
            text = solution_text(solution, decimals)
            emit(f"{'' if i == 0 else chr(10)}##### Problem {i + 1} of {len(problems)}\n\n{text}" if many else text)
    if as_json and many:
        emit("]\n")
