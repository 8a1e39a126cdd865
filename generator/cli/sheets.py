"""`attnsheet generate` and `attnsheet key`: worksheets, answer keys and their manifest."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import click

from generator.cli.common import InFile, check_encoding, draw_options, options_from, read_text, say, sheet_options
from generator.core.student import Student
from generator.core.usertext import MAX_TITLE
from generator.draw.options import MAX_COUNT, MAX_SEED
from generator.draw.search import fresh_seed
from generator.draw.sheetcodes import decode_code
from generator.output.batch import Batch, generate, make_sheets
from generator.output.files import check_writable
from generator.output.manifest import Origin
from generator.sheet.model import Settings, timestamp
from generator.sheet.roster import parse_roster


def report(written, sheets: int, out: Path) -> None:
    """The one-line summary at the end of a batch."""
    pages = f", {written.pages} pages" if written.pages else ""
    removed = f"; removed {len(written.removed)} files of the earlier batch" if written.removed else ""
    say(f"wrote {len(written.files)} files to {out} ({sheets} sheet{'s' if sheets != 1 else ''}{pages}) "
        f"in {written.seconds:.1f} s{removed}")


def run_batch(batch: Batch) -> None:
    """Generate a batch with a progress bar on a terminal, and nothing extra otherwise."""
    batch = replace(batch, stop=click.get_current_context().obj)  # main's Stop, set by its signal handlers
    total = len(batch.sheets)
    if sys.stderr is not None and sys.stderr.isatty() and total > 1:
        with click.progressbar(length=2 * total, label="rendering", file=sys.stderr) as bar:
            written = generate(batch, progress=bar.update)
    else:
        written = generate(batch)
    report(written, total, batch.out)


def read_students(roster: Optional[str], encoding: Optional[str], strict: bool, count: Optional[int]) -> list[Student]:
    """The students of --roster (warnings said, or refused with --strict), or --count blank ones."""
    if roster is None:
        return [Student()] * (count or 1)
    read = parse_roster(read_text(roster, encoding), label=roster, strict=strict)
    for warning in read.warnings:
        say(f"warning: {warning}")
    say(f"read {len(read.students)} student{'s' if len(read.students) != 1 else ''} from {roster}")
    return list(read.students)


@click.command("generate")
@click.option("--count", type=click.IntRange(1, MAX_COUNT), default=None,
              help="Number of sheets (default 1); or use --roster.")
@click.option("--roster", type=InFile(), default=None,
              help="CSV with a 'name' column (optional 'id', 'group'): one named sheet per row.")
@click.option("--encoding", default=None, callback=check_encoding,
              help="The roster's text encoding, e.g. cp1252 (default: UTF-8, or UTF-16 with a BOM).")
@click.option("--strict", is_flag=True, help="Refuse a roster with unbalanced quotes or ragged rows.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
              help="Seed of the batch; without it a fresh one is chosen and printed.")
@draw_options
@click.option("--title", default="", help=f"Title printed on every sheet (at most {MAX_TITLE} characters).")
@click.option("--split", is_flag=True, help="One file per student and per key, not two combined files.")
@sheet_options
@click.pass_context
def generate_command(ctx: click.Context, count, roster, encoding, strict, seed, title, split, out, paper, lang, fmt,
                     worked, force, stamp, jobs, **params) -> None:
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
    options = options_from(params)
    students = read_students(roster, encoding, strict, count)
    settings = Settings(paper=paper, lang=lang, title=title, worked=worked, timestamp=timestamp(stamp))
    check_writable(out)  # an unwritable destination fails before any work
    fresh = seed is None
    seed = fresh_seed() if fresh else seed
    sheets = make_sheets(options, seed, students)
    if fresh:
        say(f"seed {seed} (rebuild this batch with --seed {seed})")
    batch = Batch(sheets=sheets, settings=settings, out=out, split=split, fmt=fmt, force=force,
                  origin=Origin(options=options, roster=roster), seed=seed, jobs=jobs)
    run_batch(batch)


@click.command("key")
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
    stem = decoded.code
    batch = Batch(sheets=(sheet,), settings=settings, out=out, split=False, fmt=fmt, force=force,
                  origin=Origin(code=decoded.code), seed=decoded.seed, jobs=jobs,
                  names=(f"{stem}-worksheet", f"{stem}-key", f"{stem}-manifest"))
    run_batch(batch)
