"""One small SQL layer over two databases: SQLite (a file, the standard library's) and PostgreSQL (a URL).

Statements are written once, with `?` placeholders and `{serial}` / `{real}` for the two types the
dialects spell differently. Each thread has its own connection; `transaction()` is all or nothing.
Schema changes are numbered migrations, applied once, in order, by whichever process opens the
database first (the others wait for it).
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from generator.core.errors import AttnsheetError

TYPES = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL", "for_update": "", "for_share": ""},
    "postgresql": {
        "serial": "BIGSERIAL PRIMARY KEY",
        "real": "DOUBLE PRECISION",
        "for_update": " FOR UPDATE",
        "for_share": " FOR SHARE",
    },
}
"""The types each dialect spells its own way, and its row locks (SQLite's transactions hold the
whole database from their start, so a row needs none)."""
MIGRATION_LOCK = 726_571_441
"""PostgreSQL advisory lock held while migrating: two processes starting at once migrate one at a time."""


class DatabaseError(AttnsheetError):
    """A database that cannot be opened or used, in one line."""


class DiskFull(DatabaseError):
    """The database's disk is full: nothing of the statement was kept."""


@contextmanager
def _disk_said():
    """A database's full disk (SQLite's "database or disk is full", PostgreSQL's DiskFull) as DiskFull."""
    try:
        yield
    except Exception as error:
        if type(error).__name__ == "DiskFull" or (
            isinstance(error, sqlite3.OperationalError) and "full" in str(error).lower()
        ):
            raise DiskFull("the disk is full: nothing was saved") from None
        raise


class Database:
    """A database by path (SQLite) or by URL (postgresql://…), with a connection per thread."""

    def __init__(self, where: str | Path) -> None:
        text = str(where)
        self.dialect = "postgresql" if text.startswith(("postgresql://", "postgres://")) else "sqlite"
        self.where = text
        self._local = threading.local()
        self._all: list = []
        self._guard = threading.Lock()
        if self.dialect == "postgresql":
            try:
                import psycopg  # noqa: F401  (the server store's driver, loaded only for a URL)
            except ImportError:
                raise DatabaseError(
                    "a PostgreSQL URL needs the psycopg package (pip install 'psycopg[binary]')"
                ) from None

    def _connect(self):
        if self.dialect == "sqlite":
            try:
                conn = sqlite3.connect(self.where, timeout=30, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
                conn.execute("PRAGMA synchronous=FULL")  # a save that said "saved" survives a crash
                conn.execute("PRAGMA foreign_keys=ON")
            except sqlite3.Error as error:
                raise DatabaseError(f"cannot open the database {self.where}: {error}") from None
            return conn
        import psycopg

        try:
            return psycopg.connect(self.where, autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise DatabaseError(f"cannot connect to the PostgreSQL database: {first}") from None

    def connection(self):
        """This thread's connection (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
            with self._guard:
                self._all.append(conn)
        return conn

    def sql(self, statement: str) -> str:
        """A statement in this dialect: its placeholders and types."""
        statement = statement.format(**TYPES[self.dialect])
        return statement.replace("?", "%s") if self.dialect == "postgresql" else statement

    @contextmanager
    def transaction(self) -> Iterator["Cursor"]:
        """All of the statements in the block, or none: a write lock from the start (no deadlock
        between two writers), committed at the end, rolled back on any error."""
        conn = self.connection()
        if self.dialect == "sqlite":
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Cursor(self, conn)
                with _disk_said():
                    conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:  # a COMMIT that failed (a full disk) has rolled back already
                    conn.execute("ROLLBACK")
                raise
        else:
            with _disk_said(), conn.transaction():
                yield Cursor(self, conn)

    def query(self, statement: str, params: Sequence = ()) -> list[tuple]:
        """Rows of one read, outside any transaction."""
        return Cursor(self, self.connection()).rows(statement, params)

    def migrate(self, migrations: Sequence[Sequence[str]]) -> int:
        """Apply the migrations not yet applied, in order; the schema's version after."""
        with self.transaction() as cur:
            if self.dialect == "postgresql":
                cur.run("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            cur.run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            rows = cur.rows("SELECT version FROM schema_version")
            version = rows[0][0] if rows else 0
            if not rows:
                cur.run("INSERT INTO schema_version (version) VALUES (0)")
            if version > len(migrations):
                raise DatabaseError(
                    f"the database's schema is version {version}, newer than this attnsheet's "
                    f"({len(migrations)}): use the attnsheet that wrote it"
                )
            for number, statements in enumerate(migrations[version:], start=version + 1):
                for statement in statements:
                    cur.run(statement)
                cur.run("UPDATE schema_version SET version = ?", (number,))
        return len(migrations)

    def close(self) -> None:
        """Close every thread's connection."""
        with self._guard:
            for conn in self._all:
                try:
                    conn.close()
                except Exception:  # closing is best effort: the process is ending
                    pass
            self._all.clear()
        self._local = threading.local()


class Cursor:
    """Statements inside one transaction (or one read)."""

    def __init__(self, db: Database, conn) -> None:
        self.db, self.conn = db, conn

    def run(self, statement: str, params: Sequence = ()) -> None:
        """One statement."""
        with _disk_said():
            self.conn.execute(self.db.sql(statement), tuple(params))

    def rows(self, statement: str, params: Sequence = ()) -> list[tuple]:
        """One statement's rows."""
        with _disk_said():
            return list(self.conn.execute(self.db.sql(statement), tuple(params)).fetchall())
