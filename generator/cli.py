"""The attnsheet command line: parse options, call the library, report in one line."""

from __future__ import annotations

import json
import sys
from typing import Optional

import click

from generator import __version__
from generator.engine import solve
from generator.errors import AttnsheetError, InputError
from generator.problem import Problem, parse_problems, solution_to_json
from generator.text import solution_text

MAX_INPUT_BYTES = 16 * 1024 * 1024
"""Largest problem file read: far beyond any real problem or batch."""


def read_text(path: str) -> str:
    """A UTF-8 text file's content, or stdin's for '-'; any failure is one InputError line."""
    label = "stdin" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise InputError(f"cannot read {label}: {error.strerror or error}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"cannot read {label}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read {label}: not UTF-8 text (byte {error.start})") from None


def load_problems(path: str) -> list[Problem]:
    """Problems from a problem@1 file (one object or a list), naming the file in errors."""
    text = read_text(path)
    try:
        return parse_problems(text)
    except AttnsheetError as error:
        label = "stdin" if path == "-" else path
        raise type(error)(f"{label}: {error}") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="attnsheet")
def cli() -> None:
    """Self-attention worksheets and exact answer keys, worked by hand.

    \b
    Example:
      attnsheet solve generator/examples/classic.json
    """


@cli.command("solve")
@click.argument("problem_file", metavar="PROBLEM", type=click.Path(dir_okay=False, allow_dash=True))
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
    solutions = [solve(p) for p in problems]
    if as_json:
        docs = [solution_to_json(s) for s in solutions]
        click.echo(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return
    texts = []
    for i, solution in enumerate(solutions, start=1):
        text = solution_text(solution, decimals)
        if len(solutions) > 1:
            text = f"##### Problem {i} of {len(solutions)}\n\n{text}"
        texts.append(text)
    click.echo("\n".join(texts), nl=False)


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the CLI, turning every expected error into one line on stderr."""
    try:
        cli.main(args=argv, prog_name="attnsheet", standalone_mode=False)
    except click.UsageError as error:
        click.echo(f"attnsheet: error: {error.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"attnsheet: error: {error.format_message()}", err=True)
        sys.exit(error.exit_code)
    except AttnsheetError as error:
        click.echo(f"attnsheet: error: {error}", err=True)
        sys.exit(1)
    except click.Abort:
        click.echo("attnsheet: interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("attnsheet: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing more to say, and nowhere to say it.
        sys.stderr.close()
        sys.exit(1)
