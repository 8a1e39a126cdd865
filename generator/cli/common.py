"""What every command shares: reading inputs, writing to stdout, option types and option sets."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path
from typing import Callable, Optional

import click

from generator.app.errors import AttnsheetError, InputError, OutputError
from generator.app.solving import decode, parse_problems

MAX_INPUT_BYTES = 256 * 1024 * 1024
"""Largest input file read: `draw --count 100000` writes about 90 MiB."""


def read_bytes(path: str) -> bytes:
    """A file's bytes, or stdin's for '-'; a missing, unreadable or folder input is one InputError."""
    label = "stdin" if path == "-" else path
    try:
        if path == "-":
            if sys.stdin is None:
                raise InputError("cannot read stdin: it is closed")
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except IsADirectoryError:
        raise InputError(f"cannot read {label}: it is a folder, not a file") from None
    except OSError as error:
        raise InputError(f"cannot read {label}: {error.strerror or error}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"cannot read {label}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    return data


def read_text(path: str, encoding: Optional[str] = None) -> str:
    """A text file's content (see `decode`), or stdin's for '-'."""
    return decode(read_bytes(path), "stdin" if path == "-" else path, encoding)


def emit(text: str) -> None:
    """Write data to stdout; a closed stdout is an error, not silence."""
    if sys.stdout is None:
        raise OutputError("cannot write to stdout: it is closed")
    click.echo(text, nl=False)


def say(message: str) -> None:
    """One line of information for the user, on stderr so stdout stays data."""
    click.echo(f"attnsheet: {message}", err=True)


class InFile(click.Path):
    """An input file name: whether it can be read is checked when it is read (exit 1, not 2)."""

    def __init__(self, dash: bool = False) -> None:
        super().__init__(allow_dash=dash, path_type=None)


class OutPath(click.Path):
    """An output file or folder name; an empty one (the current folder, by accident) is refused."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)


def check_encoding(ctx, param, value: Optional[str]) -> Optional[str]:
    """--encoding names a codec Python knows."""
    if value is not None:
        try:
            codecs.lookup(value)
        except LookupError:
            raise click.BadParameter(f"unknown encoding {value[:40]!r} (for example utf-8, cp1252, latin-1)")
    return value


def once(ctx, param, values: tuple) -> Optional[str]:
    """An option that may be given at most once (declared `multiple=True`): a second one is
    refused rather than silently replacing the first (which of two manifests is the batch's?)."""
    if len(values) > 1:
        raise click.UsageError(f"{param.opts[0]} given {len(values)} times: give it once")
    return values[0] if values else None


def explicit(ctx: click.Context, names: tuple[str, ...]) -> list[str]:
    """Options among `names` that the user typed (not left at their defaults)."""
    return [name for name in names if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)]


def sheet_options(command: Callable) -> Callable:
    """Paper, language and output options shared by `generate` and `key`."""
    from generator.cli.settingopts import setting_option  # the settings load the draw (numpy): not for --help

    options = [
        click.option(
            "--out",
            type=OutPath(file_okay=False, path_type=Path),
            default=Path("output"),
            show_default=True,
            help="Folder to write into (created if missing).",
        ),
        setting_option("paper"),
        setting_option("lang"),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["pdf", "html"]),
            default="pdf",
            show_default=True,
            help="Write PDF, or HTML (with the fonts copied beside it).",
        ),
        setting_option("worked"),
        setting_option("decimal_comma"),
        click.option("--force", is_flag=True, help="Overwrite files that already exist."),
        click.option(
            "--timestamp",
            "stamp",
            is_flag=True,
            help="Write the creation time into the files (SOURCE_DATE_EPOCH if set).",
        ),
        click.option(
            "--jobs",
            type=click.IntRange(1, 64),
            default=None,
            show_default="CPUs",
            help="Processes rendering PDF files at once, at most the CPUs (output is the same for any number).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def unexpected(error: Exception) -> AttnsheetError:
    """An error of the system (memory, a stream) as one line."""
    if isinstance(error, MemoryError):
        return AttnsheetError("out of memory; try a smaller input or batch")
    return AttnsheetError(str(error).splitlines()[0][:200])


def load_problems(path: str) -> list:
    """Problems from a problem@1 file (one object or a list), naming the file in errors."""
    text = read_text(path)
    try:
        return parse_problems(text)
    except AttnsheetError as error:
        raise type(error)(f"{label_of(path)}: {error}") from None


def label_of(path: str) -> str:
    """How an input is named in messages."""
    return "stdin" if path == "-" else path


def secret_option(make: bool) -> Callable:
    """--secret-file: the teacher's secret, which alone draws (and redraws) a private batch's numbers."""
    words = (
        "Make the codes private: the numbers are drawn from this secret file, and only it rebuilds "
        "the keys (made on first use; keep it safe)."
        if make
        else "The secret file a batch with private codes was made with (generate --secret-file)."
    )
    return click.option(
        "--secret-file", "secret_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help=words
    )


def load_secret(path: Optional[Path], make: bool = False):
    """The secret in --secret-file (None without one); with `make`, a missing file is made; what is
    to say of it, said."""
    from generator.app.secrets import load_secret as loaded

    secret, words = loaded(path, make)
    for line in words:
        say(line)
    return secret


def open_store(root: Path, database: Optional[str]):
    """The classroom store of a data folder, its warnings said once."""
    from generator.app.folders import open_store as opened

    store, warnings = opened(root, database)
    for warning in warnings:
        say(f"warning: {warning}")
    return store


def data_store(data, database):
    """The store of the web app's data folder (the user's by default); one line when it is none."""
    from generator.app.folders import existing_store

    store, warnings = existing_store(data, database)
    for warning in warnings:
        say(f"warning: {warning}")
    return store
