"""`attnsheet user`: teachers' accounts on a server, made and kept from its own machine."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.app.errors import InputError
from generator.cli.common import OutPath, open_store, say

DATA = click.option(
    "--data",
    type=OutPath(file_okay=False, path_type=Path),
    default=None,
    help="The web app's data folder (default: your user data folder).",
)
DATABASE = click.option(
    "--database", default=None, metavar="URL", help="The server's PostgreSQL database, if it uses one."
)


@click.group("user")
def user_group() -> None:
    """Teachers' accounts: add, list, disable and enable teachers, or set a password.

    Once a teacher exists, every teacher signs in to `attnsheet serve`, and each sees only their
    own classes and those shared with them; students' links and PINs work as before. The first
    admin takes the classes made before accounts.

    \b
    Example:
      attnsheet user add ana --admin --data ~/classes
      attnsheet user disable bo --data ~/classes
    """


def _store(data, database):
    from generator.app.folders import folder_of

    return open_store(folder_of(data), database)


def _password(from_stdin: bool) -> str:
    """A new password: the first line of standard input, or asked twice (not echoed)."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise InputError("give the password on standard input with --password-stdin (it is asked only at a terminal)")
    return click.prompt("password", hide_input=True, confirmation_prompt=True)


def _said(work, *args):
    """An account's refusal (a name, a password, the last admin) as one line, exit 1."""
    from generator.app.accounts import AccountError

    try:
        return work(*args)
    except AccountError as error:
        raise InputError(str(error)) from None


@user_group.command("add")
@click.argument("name")
@click.option(
    "--admin",
    is_flag=True,
    help="May add, disable and enable teachers (the first admin takes the classes made before accounts).",
)
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of standard input.")
@DATA
@DATABASE
def add_command(name: str, admin: bool, password_stdin: bool, data, database) -> None:
    """Add a teacher NAME, who signs in with the password given."""
    from generator.app.accounts import check_name

    _said(check_name, name)  # before the password is asked for
    password = _password(password_stdin)
    store = _store(data, database)
    try:
        teacher = _said(store.add_teacher, name, password, admin)
    finally:
        store.close()
    say(f"added {teacher.name}{' (an admin)' if teacher.admin else ''}: teachers now sign in to attnsheet serve")


@user_group.command("list")
@DATA
@DATABASE
def list_command(data, database) -> None:
    """List the teachers: name, admin, disabled."""
    store = _store(data, database)
    try:
        teachers = store.teachers()
    finally:
        store.close()
    for teacher in teachers:
        click.echo(
            f"{teacher.name}\t{'admin' if teacher.admin else 'teacher'}\t"
            f"{'disabled' if teacher.disabled else 'enabled'}"
        )
    if not teachers:
        say("no teachers yet: attnsheet serve has no sign-in (add one with `attnsheet user add NAME --admin`)")


def _switch(name: str, data, database, disabled: bool) -> None:
    store = _store(data, database)
    try:
        teacher = _said(store.set_disabled, name, disabled)
    finally:
        store.close()
    say(f"{teacher.name} is disabled: signed out everywhere" if disabled else f"{teacher.name} may sign in again")


@user_group.command("disable")
@click.argument("name")
@DATA
@DATABASE
def disable_command(name: str, data, database) -> None:
    """Disable teacher NAME: signed out everywhere at once, unable to sign in; their classes stay."""
    _switch(name, data, database, True)


@user_group.command("enable")
@click.argument("name")
@DATA
@DATABASE
def enable_command(name: str, data, database) -> None:
    """Let a disabled teacher NAME sign in again."""
    _switch(name, data, database, False)


@user_group.command("password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of standard input.")
@DATA
@DATABASE
def password_command(name: str, password_stdin: bool, data, database) -> None:
    """Set teacher NAME's password: every session of theirs ends."""
    store = _store(data, database)
    try:
        _said(store.teacher, name)
        _said(store.set_password, name, _password(password_stdin))
    finally:
        store.close()
    say(f"set {name}'s password: they sign in again with it")
