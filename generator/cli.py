"""The attnsheet command line: parse options, call the library, report in one line."""

from __future__ import annotations

import datetime
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import click

from generator import __version__
from generator.draw import MAX_COUNT, MAX_SEED, PRESET_NAMES, DrawOptions, decode_code, draw, fresh_seed
from generator.engine import solve
from generator.errors import AttnsheetError, InputError
from generator.files import check_free, ensure_folder, write_atomic
from generator.i18n import languages
from generator.model import PAPERS, Settings, Student
from generator.roster import clean_text, parse_roster
from generator.sheets import Batch, Interrupted, generate, make_sheets, request_stop
from generator.metrics import metrics, stats_text
from generator.problem import Problem, dumps, parse_problems, problem_to_json, solution_to_json
from generator.text import solution_text
from generator.answers import parse_answers, skeleton
from generator.gradebook import code_key, grade_all, gradebook_csv, grades_json, read_manifest, summary_lines

MAX_TITLE = 120
"""Longest --title: two lines across the top of a sheet."""

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


class RangeType(click.ParamType):
    """LO..HI, two integers."""

    name = "LO..HI"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        lo, sep, hi = str(value).partition("..")
        try:
            if not sep:
                raise ValueError
            pair = (int(lo), int(hi))
        except ValueError:
            self.fail(f"expected LO..HI such as 0..2, got {value!r}", param, ctx)
        if pair[0] > pair[1]:
            self.fail(f"LO must not exceed HI, got {value!r}", param, ctx)
        return pair


def draw_options(command: Callable) -> Callable:
    """The shape, preset and rule options shared by `draw` and `generate`."""
    options = [
        click.option("--preset", type=click.Choice(PRESET_NAMES), default="medium", show_default=True,
                     help="Value ranges and guarantees: how hard the arithmetic is."),
        click.option("--tokens", type=click.IntRange(1, 12), default=4, show_default=True, help="Tokens n."),
        click.option("--d-model", type=click.IntRange(1, 16), default=6, show_default=True,
                     help="Features per token."),
        click.option("--d-k", type=click.IntRange(1, 8), default=3, show_default=True, help="Query/key size."),
        click.option("--d-v", type=click.IntRange(1, 8), default=3, show_default=True, help="Value size."),
        click.option("--heads", type=click.IntRange(1, 4), default=1, show_default=True, help="Attention heads."),
        click.option("--output-projection", is_flag=True, help="Add an output projection W_O."),
        click.option("--causal", is_flag=True, help="Causal mask: query j sees keys 1..j only."),
        click.option("--convention", type=click.Choice(["column", "row"]), default="column", show_default=True,
                     help="column: tokens are columns (by hand); row: tokens are rows (PyTorch)."),
        click.option("--rules", type=click.Choice(["hand", "exact"]), default="hand", show_default=True,
                     help="hand: floor(x/2) and 3^x; exact: /√d_k and e^x."),
        click.option("--x-range", type=RangeType(), default=None, help="Override: X entries in LO..HI, e.g. 0..3."),
        click.option("--w-range", type=RangeType(), default=None, help="Override: weights in LO..HI, e.g. -1..2."),
        click.option("--max-score", type=int, default=None, help="Override: largest scaled score (3^N)."),
        click.option("--max-sum", type=int, default=None, help="Override: largest column sum of powers."),
        click.option("--allow-negative-exponents", is_flag=True,
                     help="Allow scaled scores of -1, so 3^-1 = 1/3 appears."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


DRAW_OPTION_NAMES = (
    "preset", "tokens", "d_model", "d_k", "d_v", "heads", "output_projection", "causal", "convention",
    "rules", "x_range", "w_range", "max_score", "max_sum", "allow_negative_exponents",
)


def options_from(params: dict) -> DrawOptions:
    """DrawOptions from the CLI's parsed parameters."""
    return DrawOptions(**{name: params[name] for name in DRAW_OPTION_NAMES})


def explicit(ctx: click.Context, names: tuple[str, ...]) -> list[str]:
    """Options among `names` that the user typed (not left at their defaults)."""
    return [
        name for name in names
        if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
    ]


def say(message: str) -> None:
    """One line of information for the user, on stderr so stdout stays data."""
    click.echo(f"attnsheet: {message}", err=True)


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
        click.echo(dumps(docs[0] if len(docs) == 1 else docs))
        return
    texts = []
    for i, solution in enumerate(solutions, start=1):
        text = solution_text(solution, decimals)
        if len(solutions) > 1:
            text = f"##### Problem {i} of {len(solutions)}\n\n{text}"
        texts.append(text)
    click.echo("\n".join(texts), nl=False)


@cli.command("draw")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="Seed of the batch; without it a fresh one is chosen and printed.")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=1, show_default=True,
              help="Problems to draw.")
@draw_options
@click.option("--code", default=None, help="Rebuild the one problem a sheet code was printed for.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON to this file instead of stdout.")
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
    if out is None:
        click.echo(text, nl=False)
    else:
        write_atomic(out, text.encode(), force=force)
        say(f"wrote {len(problems)} problem{'s' if len(problems) > 1 else ''} to {out}")
    if stats:
        click.echo(stats_text([p.metrics for p in problems]), err=True)


def sheet_options(command: Callable) -> Callable:
    """Paper, language and output options shared by `generate` and `key`."""
    options = [
        click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("output"),
                      show_default=True, help="Folder to write into (created if missing)."),
        click.option("--paper", type=click.Choice(list(PAPERS)), default="a4", show_default=True,
                     help="Paper size."),
        click.option("--lang", type=click.Choice(languages()), default="en", show_default=True,
                     help="Language of the sheets."),
        click.option("--format", "fmt", type=click.Choice(["pdf", "html"]), default="pdf", show_default=True,
                     help="Write PDF, or HTML (with the fonts copied beside it)."),
        click.option("--worked", is_flag=True, help="Keys also work out one dot product and one softmax."),
        click.option("--force", is_flag=True, help="Overwrite files that already exist."),
        click.option("--timestamp", "stamp", is_flag=True,
                     help="Write the creation time into the files (SOURCE_DATE_EPOCH if set).",),
        click.option("--jobs", type=click.IntRange(1, 64), default=os.cpu_count() or 1, show_default="CPUs",
                     help="Processes rendering PDF files at once (output is the same for any number)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def timestamp(asked: bool) -> str:
    """The time to stamp files with: none unless asked, SOURCE_DATE_EPOCH when it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not asked and epoch is None:
        return ""
    if epoch is None:
        moment = datetime.datetime.now(datetime.timezone.utc)
    else:
        try:
            moment = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH must be a whole number of seconds, not {epoch[:40]!r}") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def report(written, sheets: int, out: Path) -> None:
    """The one-line summary at the end of a batch."""
    pages = f", {written.pages} pages" if written.pages else ""
    say(f"wrote {len(written.files)} files to {out} ({sheets} sheet{'s' if sheets != 1 else ''}{pages}) "
        f"in {written.seconds:.1f} s")


def run_batch(batch: Batch) -> None:
    """Generate a batch with a progress bar on a terminal, and nothing extra otherwise."""
    total = len(batch.sheets)
    if sys.stderr.isatty() and total > 1:
        with click.progressbar(length=2 * total, label="rendering", file=sys.stderr) as bar:
            written = generate(batch, progress=bar.update)
    else:
        written = generate(batch)
    report(written, total, batch.out)


@cli.command("generate")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=None,
              help="Number of sheets (default 1); or use --roster.")
@click.option("--roster", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV with a 'name' column (optional 'id', 'group'): one named sheet per row.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="Seed of the batch; without it a fresh one is chosen and printed.")
@draw_options
@click.option("--title", default="", help="Title printed on every sheet.")
@click.option("--split", is_flag=True, help="One file per student and per key, not two combined files.")
@sheet_options
@click.pass_context
def generate_command(ctx: click.Context, count, roster, seed, title, split, out, paper, lang, fmt, worked, force,
                     stamp, jobs, **params) -> None:
    """Print worksheets and matching answer keys for a class, with a manifest for grading.

    Writes worksheets.pdf and answer-keys.pdf (or, with --split, worksheets/NN-name.pdf and
    keys/NN-name.pdf) and manifest.json into --out. Every sheet carries its code, which
    rebuilds it with `attnsheet key CODE`.

    \b
    Example:
      attnsheet generate --count 30 --preset easy --out period3
      attnsheet generate --roster class.csv --lang es --paper letter --split
    """
    if count is not None and roster is not None:
        raise click.UsageError("use --count or --roster, not both")
    if len(title) > MAX_TITLE:
        raise click.UsageError(f"--title: at most {MAX_TITLE} characters, got {len(title)}")
    title = clean_text(title)
    if roster is not None:
        students = parse_roster(read_text(str(roster)), label=str(roster))
    else:
        students = [Student()] * (count or 1)
    options = options_from(params)
    settings = Settings(paper=paper, lang=lang, title=title, worked=worked, timestamp=timestamp(stamp))
    ensure_folder(out)  # an unwritable destination fails before any work
    fresh = seed is None
    seed = fresh_seed() if fresh else seed
    sheets = make_sheets(options, seed, students)
    if fresh:
        say(f"seed {seed} (rebuild this batch with --seed {seed})")
    recorded = {name: ctx.params[name] for name in DRAW_OPTION_NAMES}
    recorded.update(count=len(students), roster=None if roster is None else str(roster), title=title,
                    split=split, paper=paper, lang=lang, format=fmt, worked=worked)
    batch = Batch(sheets=sheets, settings=settings, out=out, split=split, fmt=fmt,
                  force=force, options=recorded, seed=seed, jobs=jobs)
    run_batch(batch)


@cli.command("key")
@click.argument("code")
@sheet_options
def key_command(code, out, paper, lang, fmt, worked, force, stamp, jobs) -> None:
    """Rebuild one sheet's worksheet and answer key from its CODE alone.

    Writes CODE-worksheet.pdf, CODE-key.pdf and CODE-manifest.json (the code as printed)
    into --out.

    \b
    Example:
      attnsheet key 72Y2-F --out rebuilt --worked
    """
    decoded = decode_code(code)
    (sheet,) = make_sheets(decoded.options, decoded.seed, [Student()], start=decoded.index)
    settings = Settings(paper=paper, lang=lang, worked=worked, timestamp=timestamp(stamp))
    recorded = {"code": decoded.code, "paper": paper, "lang": lang, "format": fmt, "worked": worked}
    stem = decoded.code
    batch = Batch(sheets=(sheet,), settings=settings, out=out, split=False, fmt=fmt, force=force,
                  options=recorded, seed=decoded.seed, jobs=jobs,
                  names=(f"{stem}-worksheet", f"{stem}-key", f"{stem}-manifest"))
    run_batch(batch)


def load_manifest(path: Optional[Path]):
    """The sheets of a manifest file, by code, or None when no manifest was given."""
    return None if path is None else read_manifest(read_text(str(path)), str(path))


@cli.command("answers")
@click.argument("code", required=False)
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A batch's manifest.json: its sheets' problems and students.")
@click.option("--all", "every", is_flag=True, help="One skeleton per sheet of --manifest, as a JSON list.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON to this file instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def answers_command(code, manifest, every, out, force) -> None:
    """Write the empty attnsheet/answers@1 skeleton of sheet CODE, to fill with what a student wrote.

    Every grid is in the shape and layout the sheet prints, every cell null. A cell takes an
    integer, a fraction such as "3/8", a decimal ("0.38", "0,38") or both ("3/8 0.38").

    \b
    Example:
      attnsheet answers 72Y2-F --out ana.json
      attnsheet answers --manifest output/manifest.json --all --out class-answers.json
    """
    sheets = load_manifest(manifest)
    if every:
        if sheets is None or code is not None:
            raise click.UsageError("--all writes one skeleton per sheet of --manifest; give --manifest and no CODE")
        value = [skeleton(s.problem, s.code, s.student) for s in sheets.values()]
    elif code is None:
        raise click.UsageError("give a sheet CODE, or --manifest M --all")
    elif sheets is not None:
        listed = sheets.get(code_key(code))
        if listed is None:
            raise InputError(f"sheet {code[:40]!r} is not in {manifest}")
        value = skeleton(listed.problem, listed.code, listed.student)
    else:
        decoded = decode_code(code)
        (problem,) = draw(decoded.options, decoded.seed, count=1, start=decoded.index)
        value = skeleton(problem, decoded.code)
    text = dumps(value) + "\n"
    if out is None:
        click.echo(text, nl=False)
    else:
        write_atomic(out, text.encode(), force=force)
        say(f"wrote {len(value) if every else 1} answer skeleton{'s' if every else ''} to {out}")


@cli.command("grade")
@click.argument("answer_files", metavar="ANSWERS...", nargs=-1, required=True,
                type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--manifest", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A batch's manifest.json: each sheet's problem and student.")
@click.option("--json", "as_json", is_flag=True, help="Print attnsheet/grade@1 JSON (a list for several sheets).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write gradebook.csv and grades.json into this folder.")
@click.option("--no-carry", is_flag=True, help="Grade strictly: a step right from wrong numbers earns nothing.")
@click.option("--force", is_flag=True, help="Overwrite files in --out that already exist.")
def grade_command(answer_files, manifest, as_json, out, no_carry, force) -> None:
    """Grade what students wrote (answers@1 JSON files or long CSVs), with error carried forward.

    A step done right from the student's own wrong numbers earns its point ("carried"). Each
    sheet is found from its code: a drawn code rebuilds it; --manifest supplies any sheet of a
    batch, with its student. Prints one line per sheet and one for the class.

    \b
    Example:
      attnsheet grade ana.json ben.json --manifest output/manifest.json
      attnsheet grade class.csv --manifest output/manifest.json --out grades
    """
    sheets = load_manifest(manifest)
    pendings = []
    for path in answer_files:
        label = "stdin" if path == "-" else path
        pendings += parse_answers(read_text(path), label)
    grades = grade_all(pendings, sheets, carry=not no_carry, manifest_label=str(manifest))
    if out is not None:
        targets = {out / "gradebook.csv": gradebook_csv(grades), out / "grades.json": dumps(grades_json(grades)) + "\n"}
        check_free(list(targets), force)
        ensure_folder(out)
        for path, text in targets.items():
            write_atomic(path, text.encode("utf-8"), force=force)
    if as_json:
        click.echo(dumps(grades_json(grades)))
    else:
        click.echo("\n".join(summary_lines(grades)))
    if out is not None:
        say(f"wrote gradebook.csv and grades.json to {out}")


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: stop cleanly, then exit 143."""


def _on_signal(signum, frame) -> None:
    error = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    request_stop(error)  # in case a library swallows what we raise (see request_stop)
    raise error


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the CLI, turning every expected error into one line on stderr."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_signal)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when SIGINT is ignored
            signal.signal(signal.SIGINT, _on_signal)
    try:
        cli.main(args=argv, prog_name="attnsheet", standalone_mode=False)
    except click.UsageError as error:
        click.echo(f"attnsheet: error: {error.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as error:
        click.echo(f"attnsheet: error: {error.format_message()}", err=True)
        sys.exit(error.exit_code)
    except Interrupted as error:
        click.echo(f"attnsheet: {error}", err=True)
        sys.exit(143 if isinstance(error.__context__, Terminated) else 130)
    except AttnsheetError as error:
        click.echo(f"attnsheet: error: {error}", err=True)
        sys.exit(1)
    except (click.Abort, KeyboardInterrupt) as error:
        click.echo("attnsheet: interrupted; nothing was written", err=True)
        sys.exit(143 if isinstance(error, Terminated) else 130)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing more to say, and nowhere to say it.
        sys.stderr.close()
        sys.exit(1)
