"""`attnsheet generate` and `attnsheet key`: worksheets, answer keys and their manifest."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import click

from generator.app.batches import Batch, RequestError, generate, key_sheet, request, roster_students, sheets_of
from generator.app.batches import with_files
from generator.app.batches import LARGE_PRINT, PRINT_SIZES, Settings, timestamp
from generator.app.files import check_writable
from generator.app.settings import SETTINGS
from generator.cli.common import (
    InFile,
    check_encoding,
    explicit,
    load_problems,
    load_secret,
    open_store,
    read_text,
    say,
    secret_option,
    sheet_options,
)
from generator.cli.drawopts import DRAW_OPTION_NAMES, draw_options
from generator.cli.settingopts import setting_option


def report(written, sheets: int, out: Path, blank: bool = False) -> None:
    """The one-line summary at the end of a batch."""
    pages = f", {written.pages} page{'s' if written.pages != 1 else ''}" if written.pages else ""
    removed = f"; removed {len(written.removed)} files of the earlier batch" if written.removed else ""
    what = (
        f"{sheets} blank template{'s' if sheets != 1 else ''}{pages}; no key or manifest"
        if blank
        else f"{sheets} sheet{'s' if sheets != 1 else ''}{pages}"
    )
    files = f"{len(written.files)} file{'s' if len(written.files) != 1 else ''}"
    say(f"wrote {files} to {out} ({what}) in {written.seconds:.1f} s{removed}")


def run_batch(batch: Batch) -> None:
    """Generate a batch with a progress bar on a terminal, and nothing extra otherwise."""
    batch = replace(batch, stop=click.get_current_context().obj)  # main's Stop, set by its signal handlers
    total = len(batch.sheets)
    if sys.stderr is not None and sys.stderr.isatty() and total > 1:
        with click.progressbar(length=2 * total, label="rendering", file=sys.stderr) as bar:
            written = generate(batch, progress=bar.update)
    else:
        written = generate(batch)
    report(written, total, batch.out, batch.settings.blank)


def read_students(roster: Optional[str], encoding: Optional[str], strict: bool) -> Optional[list]:
    """The students of --roster (what looks wrong said, or refused with --strict); None without one."""
    if roster is None:
        return None
    students, said = roster_students(read_text(roster, encoding), roster, strict)
    for line in said:
        say(line)
    return students


@click.command("generate")
@setting_option("count")
@click.option("--roster", type=InFile(), default=None, help=SETTINGS["roster"].help)
@click.option(
    "--encoding",
    default=None,
    callback=check_encoding,
    help="The roster's text encoding, e.g. cp1252 (default: UTF-8, or UTF-16 with a BOM).",
)
@click.option("--strict", is_flag=True, help="Refuse a roster with unbalanced quotes or ragged rows.")
@setting_option("seed")
@click.option("--problem", "problem_file", type=InFile(dash=True), default=None, help=SETTINGS["problem"].help)
@setting_option("blank")
@draw_options
@setting_option("title")
@setting_option("split")
@setting_option("large_print", is_flag=False, flag_value=LARGE_PRINT)
@secret_option(make=True)
@click.option(
    "--server-url",
    default=None,
    metavar="URL",
    help="Make the batch for a classroom server at URL (its --data folder): each worksheet's QR opens "
    "its student's link, its PIN printed beside the code.",
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --server-url: the server's data folder (default: your user data folder).",
)
@click.option("--database", default=None, metavar="URL", help="With --server-url: the server's PostgreSQL database.")
@sheet_options
@click.pass_context
def generate_command(
    ctx: click.Context,
    count,
    roster,
    encoding,
    strict,
    seed,
    problem_file,
    blank,
    title,
    split,
    large_print,
    secret_file,
    server_url,
    data,
    database,
    out,
    paper,
    lang,
    fmt,
    worked,
    decimal_comma,
    force,
    stamp,
    jobs,
    **params,
) -> None:
    """Print worksheets and matching answer keys for a class, with a manifest for grading.

    Writes worksheets.pdf and answer-keys.pdf (or, with --split, worksheets/NN-name.pdf and
    keys/NN-name.pdf) and manifest.json into --out. Every sheet carries its code, which
    rebuilds it with `attnsheet key CODE`.

    With --problem FILE the sheets carry your own numbers (a lecture's, a textbook's), each
    with a code made from its content: `attnsheet key CODE --problem FILE` rebuilds it. With
    --blank they are templates for a student's own numbers: no key, no manifest. With
    --secret-file FILE the codes are private: only `attnsheet key CODE --secret-file FILE`
    rebuilds a key, so a student holding the code and the public tool cannot.

    \b
    Example:
      attnsheet generate --count 30 --preset easy --out period3
      attnsheet generate --roster roster.csv --lang es --paper letter --split
      attnsheet generate --problem generator/examples/classic.json --count 30
      attnsheet generate --blank --heads 2 --output-projection
      attnsheet generate --count 30 --secret-file ~/attnsheet.secret
      attnsheet generate --roster roster.csv --server-url http://192.168.1.20:8000 --data ~/classes
    """
    if problem_file is not None and secret_file is not None:
        raise click.UsageError("--problem takes no --secret-file: its codes name your own numbers, which you hold")
    if blank and secret_file is not None:
        raise click.UsageError("--blank takes no --secret-file: a blank template has no numbers to keep private")
    if server_url is not None:
        clash = [
            flag
            for flag, given in (
                ("--problem", problem_file),
                ("--blank", blank),
                ("--secret-file", secret_file),
                ("--out", bool(explicit(ctx, ("out",)))),
            )
            if given
        ]
        if clash:
            raise click.UsageError(
                f"--server-url makes the batch in the server's data folder, with its own secret: drop {clash[0]}"
            )
    elif data is not None or database is not None:
        raise click.UsageError("--data and --database are for --server-url")
    values = {
        **params,
        "count": count,
        "seed": seed,
        "blank": blank,
        "title": title,
        "split": split,
        "large_print": large_print,
        "paper": paper,
        "lang": lang,
        "worked": worked,
        "decimal_comma": decimal_comma,
        "timestamp": timestamp(stamp),
    }
    given = tuple(explicit(ctx, ("count", "seed", "blank") + DRAW_OPTION_NAMES))
    try:
        req = request(values, given, roster=roster, problem_file=problem_file)  # checked before any file is read
    except RequestError as error:
        raise click.UsageError(str(error)) from None
    problems = load_problems(problem_file) if problem_file is not None else None
    req = with_files(req, count, problems, read_students(roster, encoding, strict))
    if server_url is not None:
        make_for_server(server_url, data, database, req, fmt, jobs)
        return
    check_writable(out)  # an unwritable destination fails before any work
    secret = load_secret(secret_file, make=True) if req.source == "draw" else None
    sheets, origin, drawn_seed = sheets_of(req, secret)
    if req.source == "draw" and seed is None:
        say(f"seed {drawn_seed} (rebuild this batch with --seed {drawn_seed})")
    run_batch(
        Batch(
            sheets=sheets,
            settings=req.settings,
            out=out,
            split=split,
            fmt=fmt,
            force=force,
            origin=origin,
            seed=drawn_seed,
            jobs=jobs,
        )
    )


def make_for_server(server_url: str, data, database, req, fmt, jobs) -> None:
    """A batch made straight into a classroom server's store: private codes under its secret,
    each worksheet's QR its student's link (the server lists it on its next page load)."""
    from generator.app.classroom import create_batch
    from generator.app.folders import folder_of

    if not server_url.startswith(("http://", "https://")):
        raise click.UsageError(f"--server-url: expected http://… or https://…, got {server_url[:60]!r}")
    store = open_store(folder_of(data), database)
    try:
        sheets, origin, seed = sheets_of(req, store.secret)
        batch = Batch(
            sheets=sheets,
            settings=req.settings,
            out=store.root,
            split=req.split,
            fmt=fmt,
            origin=origin,
            seed=seed,
            jobs=jobs,
        )
        stored = create_batch(store, batch, base_url=server_url)
    finally:
        store.close()
    say(
        f"made {stored.id} in {store.root} ({len(sheets)} sheets); students hand in at {server_url.rstrip('/')}/s "
        f"(each worksheet's QR opens its own link)"
    )


@click.command("key")
@click.argument("code")
@click.option(
    "--problem",
    "problem_file",
    type=InFile(dash=True),
    default=None,
    help="The problem file a teacher's own sheet was printed from (its code names its content).",
)
@secret_option(make=False)
@setting_option("large_print", is_flag=False, flag_value=LARGE_PRINT)
@sheet_options
def key_command(
    code, problem_file, secret_file, large_print, out, paper, lang, fmt, worked, decimal_comma, force, stamp, jobs
) -> None:
    """Rebuild one sheet's worksheet and answer key from its CODE alone.

    Writes CODE-worksheet.pdf, CODE-key.pdf and CODE-manifest.json (the code as printed)
    into --out. A sheet of your own numbers needs its problem file too (--problem); a sheet
    with a private code, the secret file it was made with (--secret-file).

    \b
    Example:
      attnsheet key 72Y2-F --out rebuilt --worked
      attnsheet key YWDE-9FU2-E22 --problem generator/examples/classic.json
      attnsheet key 72Y2-F --large-print 2
    """
    try:
        problems = load_problems(problem_file) if problem_file is not None else ()
        sheet, origin, seed = key_sheet(code, problems, problem_file or "the file", load_secret(secret_file))
    except RequestError as error:
        raise click.UsageError(str(error)) from None
    stem = sheet.problem.code
    if large_print in PRINT_SIZES:  # a student with low vision's own sheet, again
        sheet = replace(sheet, student=replace(sheet.student, print_size=large_print))
    settings = Settings(paper=paper, lang=lang, worked=worked, timestamp=timestamp(stamp), decimal_comma=decimal_comma)
    batch = Batch(
        sheets=(sheet,),
        settings=settings,
        out=out,
        split=False,
        fmt=fmt,
        force=force,
        origin=origin,
        seed=seed,
        jobs=jobs,
        names=(f"{stem}-worksheet", f"{stem}-key", f"{stem}-manifest"),
    )
    run_batch(batch)
