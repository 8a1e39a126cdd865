"""The attnsheet command line: parse options, call the library, report in one line."""

from __future__ import annotations

import functools
import importlib
import os
import signal
import sys
import threading
from typing import Optional

import click

from generator import __version__
from generator.cli.common import unexpected
from generator.app.errors import AttnsheetError, Interrupted, Stop

COMMANDS = {
    # name: (module, command, the line `attnsheet --help` shows for it)
    "generate": (
        "generator.cli.sheets",
        "generate_command",
        "Print worksheets and matching answer keys for a class, with a manifest for grading.",
    ),
    "key": ("generator.cli.sheets", "key_command", "Rebuild one sheet's worksheet and answer key from its CODE alone."),
    "grade": (
        "generator.cli.grading",
        "grade_command",
        "Grade what students wrote (answers@1 JSON files or long CSVs), with error carried forward.",
    ),
    "answers": (
        "generator.cli.grading",
        "answers_command",
        "Write the empty attnsheet/answers@1 skeleton of sheet CODE, to fill with what a student wrote.",
    ),
    "solve": (
        "generator.cli.solving",
        "solve_command",
        "Solve PROBLEM (a problem@1 JSON file, or - for stdin) exactly, step by step.",
    ),
    "draw": (
        "generator.cli.drawing",
        "draw_command",
        "Draw hand-friendly problems at random, as a JSON list of problem@1 objects.",
    ),
    "serve": (
        "generator.cli.serving",
        "serve_command",
        "Serve the web app: make batches, enter students' answers and grade them, in a browser.",
    ),
    "boxes": (
        "generator.cli.scanning",
        "boxes_command",
        "Where sheet CODE's answer boxes are printed: marks, QR code and every box, in points.",
    ),
    "scan": (
        "generator.cli.scanning",
        "scan_command",
        "Read scanned worksheets: every page found by its marks and codes, every answer box read and checked.",
    ),
    "export": (
        "generator.cli.serving",
        "export_command",
        "Write a web batch's saved answers and grades as answers@1 and grade@1 files, for the CLI.",
    ),
    "worker": (
        "generator.cli.serving",
        "worker_command",
        "Run the server's long work (batches to render, piles of scans to read) beside it, on any machine.",
    ),
    "jobs": (
        "generator.cli.serving",
        "jobs_command",
        "List the server's unfinished jobs (batches being made, piles being read), or cancel one.",
    ),
    "user": (
        "generator.cli.accounts",
        "user_group",
        "Teachers' accounts: add, list, disable and enable teachers, or set a password.",
    ),
}
"""Each command is imported only when it runs: `solve` never loads numpy, `--help` loads neither
numpy, Jinja nor WeasyPrint (a test checks the lines above match the commands' own help)."""


class LazyGroup(click.Group):
    """A group whose commands are imported on first use, and listed without importing them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, line) for name, (_, _, line) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="attnsheet")
def cli() -> None:
    """Self-attention worksheets and exact answer keys, worked by hand.

    \b
    Example:
      attnsheet solve generator/examples/classic.json
    """


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (the terminal closed), handled like Ctrl-C: stop cleanly, then exit."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.exit_code = 128 + signum


def _on_signal(stop: Stop, signum, frame) -> None:
    error = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
    stop.request(error)  # in case a library swallows what we raise (see Stop)
    raise error


def _exit_code(error: BaseException) -> int:
    return error.exit_code if isinstance(error, Terminated) else 130


def _fail(message: str, code: int) -> None:
    click.echo(f"attnsheet: {message}", err=True)
    sys.exit(code)


def _silence_stdout() -> None:
    """After a failed write to stdout, point it at /dev/null so that the exit's flush is quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: run the CLI, turning every expected error into one line on stderr."""
    stop = Stop()  # handed to the commands (as Click's context object), so batches can check it
    if threading.current_thread() is threading.main_thread():
        handler = functools.partial(_on_signal, stop)
        signal.signal(signal.SIGTERM, handler)
        if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) is signal.SIG_DFL:
            signal.signal(signal.SIGHUP, handler)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when SIGINT is ignored
            signal.signal(signal.SIGINT, handler)
    try:
        cli.main(args=argv, prog_name="attnsheet", standalone_mode=False, obj=stop)
        if sys.stdout is not None:
            sys.stdout.flush()  # a full disk or a closed pipe is found here, not at exit
    except click.UsageError as error:
        _fail(f"error: {error.format_message()}", 2)
    except click.ClickException as error:
        _fail(f"error: {error.format_message()}", error.exit_code)
    except Interrupted as error:
        _fail(str(error), _exit_code(error.__context__) if error.__context__ else 130)
    except AttnsheetError as error:
        _fail(f"error: {error}", 1)
    except (click.Abort, KeyboardInterrupt) as error:
        _fail("interrupted; nothing was written", _exit_code(error))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing more to say, and nowhere to say it.
        _silence_stdout()
        sys.exit(1)
    except OSError as error:
        # Writing to stdout failed (a full disk: `> /dev/full`); every file we write says so itself.
        _silence_stdout()
        _fail(f"error: cannot write to stdout: {error.strerror or error}", 1)
    except MemoryError as error:
        _fail(f"error: {unexpected(error)}", 1)
