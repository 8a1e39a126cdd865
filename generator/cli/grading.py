"""`attnsheet answers` and `attnsheet grade`: answer skeletons to fill, and grading with error carried forward."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from generator.app.files import write_atomic
from generator.app.grading import (
    CSV_DIALECTS,
    PAPERS,
    SCHOOL_SYSTEMS,
    Listed,
    answer_skeletons,
    dumps,
    grade_all,
    grades_text,
    languages,
    parse_answers,
    write_grades,
)
from generator.app.grading import load_manifest as checked_manifest
from generator.cli.common import InFile, OutPath, check_encoding, emit, load_secret, once, read_text, say, secret_option


def load_manifest(path: Optional[str], secret=None) -> tuple[Optional[dict[str, Listed]], dict]:
    """The sheets of a manifest file, by code, each checked against its code (with the teacher's
    `secret` for private codes; None when no manifest was given), and its paper, language and title."""
    if path is None:
        return None, {}
    return checked_manifest(read_text(path), path, secret)


@click.command("answers")
@click.argument("code", required=False)
@click.option(
    "--manifest",
    type=InFile(),
    multiple=True,
    callback=once,
    help="A batch's manifest.json: its sheets' problems and students.",
)
@click.option("--all", "every", is_flag=True, help="One skeleton per sheet of --manifest, as a JSON list.")
@click.option(
    "--out",
    type=OutPath(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="Write the JSON to this file instead of stdout (- is stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@secret_option(make=False)
def answers_command(code, manifest, every, out, force, secret_file) -> None:
    """Write the empty attnsheet/answers@1 skeleton of sheet CODE, to fill with what a student wrote.

    Every grid is in the shape and layout the sheet prints, every cell null. A cell takes an
    integer, a fraction such as "3/8", a decimal ("0.38", "0,38") or both ("3/8 0.38").

    \b
    Example:
      attnsheet answers 72Y2-F --out ana.json
      attnsheet answers --manifest output/manifest.json --all --out answers.json
    """
    secret = load_secret(secret_file)
    sheets, _ = load_manifest(manifest, secret)
    if every and (sheets is None or code is not None):
        raise click.UsageError("--all writes one skeleton per sheet of --manifest; give --manifest and no CODE")
    if not every and code is None:
        raise click.UsageError("give a sheet CODE, or --manifest M --all")
    skeletons = answer_skeletons(code, sheets, every, str(manifest), secret)
    value = skeletons if every else skeletons[0]
    text = dumps(value) + "\n"
    if out is None or str(out) == "-":
        emit(text)
    else:
        write_atomic(out, text.encode(), force=force)
        say(f"wrote {len(value) if every else 1} answer skeleton{'s' if every else ''} to {out}")


@click.command("grade")
@click.argument("answer_files", metavar="ANSWERS...", nargs=-1, required=True, type=InFile(dash=True))
@click.option(
    "--manifest",
    type=InFile(),
    multiple=True,
    callback=once,
    help="A batch's manifest.json: each sheet's problem and student.",
)
@click.option("--json", "as_json", is_flag=True, help="Print attnsheet/grade@1 JSON (a list for several sheets).")
@click.option(
    "--out",
    type=OutPath(file_okay=False, path_type=Path),
    default=None,
    help="Also write gradebook.csv, grades.json, a class report (report.pdf) and each student's graded "
    "sheet (graded/NN-name.pdf).",
)
@click.option("--no-carry", is_flag=True, help="Grade strictly: a step right from wrong numbers earns nothing.")
@click.option(
    "--trivial-credit",
    "trivial",
    type=click.Choice(["none", "half", "full"]),
    default="none",
    show_default=True,
    help="What a cell earns that is right only from the student's own numbers where "
    "those left its step nothing to compute (Q written as zeros).",
)
@click.option(
    "--encoding",
    default=None,
    callback=check_encoding,
    help="The answer files' text encoding, e.g. cp1252 (default: UTF-8, or UTF-16 with a BOM).",
)
@click.option(
    "--paper",
    type=click.Choice(list(PAPERS)),
    default=None,
    show_default="the manifest's, else a4",
    help="Paper of the graded sheets and the report (--out).",
)
@click.option(
    "--lang",
    type=click.Choice(languages()),
    default=None,
    show_default="the manifest's, else en",
    help="Language of the graded sheets and the report (--out).",
)
@click.option(
    "--csv-dialect",
    type=click.Choice(list(CSV_DIALECTS)),
    default="excel",
    show_default=True,
    help="gradebook.csv's separator: commas, or semicolons (and decimal commas) for Excel in such locales.",
)
@click.option(
    "--gradebook",
    "systems",
    type=click.Choice(SCHOOL_SYSTEMS),
    multiple=True,
    help="Also write gradebook-SYSTEM.csv in the columns that school system imports (repeatable).",
)
@click.option("--force", is_flag=True, help="Overwrite files in --out that already exist.")
@secret_option(make=False)
def grade_command(
    answer_files,
    manifest,
    as_json,
    out,
    no_carry,
    trivial,
    encoding,
    paper,
    lang,
    csv_dialect,
    systems,
    force,
    secret_file,
) -> None:
    """Grade what students wrote (answers@1 JSON files or long CSVs), with error carried forward.

    A step done right from the student's own wrong numbers earns its point ("carried"). Each
    sheet is found from its code: a drawn code rebuilds it; --manifest supplies any sheet of a
    batch, with its student. Prints one line per sheet and one for the class.

    \b
    Example:
      attnsheet grade ana.json ben.json --manifest output/manifest.json
      attnsheet grade answers.csv --manifest output/manifest.json --out grades
    """
    if systems and out is None:
        raise click.UsageError("--gradebook writes into --out: give --out DIR")
    secret = load_secret(secret_file)
    sheets, chosen = load_manifest(manifest, secret)  # and the batch's own paper, language and title
    pendings = []
    for path in answer_files:
        label = "stdin" if path == "-" else path
        pendings += parse_answers(read_text(path, encoding), label)
    graded = grade_all(
        pendings, sheets, carry=not no_carry, manifest_label=str(manifest), secret=secret, trivial=trivial
    )
    if out is not None:
        unanswered = write_grades(
            graded, out, chosen, force, paper, lang, csv_dialect, systems, list((sheets or {}).values())
        )
    emit(grades_text(graded, as_json))
    if out is not None:
        extra = "".join(f", gradebook-{system}.csv" for system in dict.fromkeys(systems))
        say(
            f"wrote gradebook.csv{extra}, grades.json, report.pdf and {len(graded)} graded sheet"
            f"{'s' if len(graded) != 1 else ''} to {out}"
        )
        if unanswered:
            say(
                f"the gradebook lists the whole class: {unanswered} of its {len(sheets)} sheets had no answers "
                "(listed without points)"
            )
