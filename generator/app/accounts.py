"""Teachers' accounts on one server: who signs in, which classes each sees, and limits every process shares.

Accounts are on once a teacher exists (`attnsheet user add NAME --admin`, or the first-run page
on the server's own machine); before that a server has one teacher and no sign-in, as always.
A password is kept only as its Argon2id hash. A session is a random id: its cookie carries it
signed with the server's secret, the database only its SHA-256, so neither a copied database nor
a forged cookie opens one. A teacher sees the classes they made and those shared with them (to
read, or to write too); a class made before accounts belongs to the first admin. A disabled
teacher's sessions end at once: each request looks its teacher up. The limits on sign-in tries
(and, on a server of several processes, on students' requests) are counted in the database, so
every process counts the same tries.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Optional

from generator.core.errors import AttnsheetError

MIGRATION = (  # 3: teachers, their sessions, classes' owners and shares, limits every process counts
    "CREATE TABLE teachers (id {serial}, name TEXT NOT NULL UNIQUE, password TEXT NOT NULL, "
    "admin INTEGER NOT NULL DEFAULT 0, disabled INTEGER NOT NULL DEFAULT 0, created {real} NOT NULL)",
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, teacher_id BIGINT NOT NULL REFERENCES teachers(id), "
    "created {real} NOT NULL, expires {real} NOT NULL)",
    "CREATE INDEX sessions_teacher ON sessions (teacher_id)",
    "ALTER TABLE batches ADD COLUMN owner BIGINT REFERENCES teachers(id)",
    "CREATE TABLE shares (batch_id BIGINT NOT NULL REFERENCES batches(id), teacher_id BIGINT NOT NULL "
    "REFERENCES teachers(id), mode TEXT NOT NULL, PRIMARY KEY (batch_id, teacher_id))",
    "CREATE TABLE limits (key TEXT NOT NULL, slot BIGINT NOT NULL, hits INTEGER NOT NULL, PRIMARY KEY (key, slot))",
    "CREATE INDEX limits_slot ON limits (slot)",
)
"""The schema's third migration (app/store lists them all)."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,39}")
"""A teacher's sign-in name: a plain word of up to 40 letters, digits and . _ @ - (an e-mail address fits)."""
MIN_PASSWORD = 10
"""The fewest characters of a password."""
MAX_PASSWORD = 256
"""The most: hashing a megabyte for each try would be a way to tire the server."""
SESSION_FOR = 12 * 3600
"""Seconds a session lasts: a school day; then the teacher signs in again."""
MODES = ("read", "write")
"""What a colleague a class is shared with may do: see it, or change it too."""
SIGN_IN_RATE = (10, 30)
"""Sign-in tries a minute for one name, and from one address: a password cannot be guessed by trying."""
DEVICE_FOR = 365 * 86400
"""Seconds a browser a teacher signed in from is known by its device cookie."""


class AccountError(AttnsheetError):
    """A name, password or share that cannot be, in one line."""


@dataclass(frozen=True)
class Teacher:
    """A teacher's account."""

    id: int
    """Its row."""
    name: str
    """What they sign in with."""
    admin: bool = False
    """May add and disable teachers."""
    disabled: bool = False
    """Signed out everywhere and unable to sign in."""


def _hasher():
    """Argon2id with the library's parameters (RFC 9106's second recommendation, 46 MiB per hash)."""
    from argon2 import PasswordHasher

    return PasswordHasher()


def check_name(name: str) -> str:
    """A sign-in name as given, if it is one (else an AccountError saying what one is)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AccountError("a teacher's name: 1 to 40 letters, digits and . _ @ - (starting with a letter or digit)")
    return name


def check_password(password: str) -> str:
    """A new password, if long enough and not too long."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AccountError(f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")
    return password


class Accounts:
    """The accounts part of the store (its `db` and `secret` are the Store's)."""

    db: object
    secret: object

    # --- teachers --------------------------------------------------------------------------------

    def accounts_on(self) -> bool:
        """Whether any teacher exists: then every teacher's page needs a sign-in."""
        return bool(self.db.query("SELECT 1 FROM teachers LIMIT 1"))

    def add_teacher(self, name: str, password: str, admin: bool = False, first: bool = False) -> Teacher:
        """A new teacher (`first`: only while none exists, as the first-run page makes one); the
        first admin takes every class made before accounts."""
        name, digest = check_name(name), _hasher().hash(check_password(password))
        with self.db.transaction() as cur:
            if self.db.dialect == "postgresql":  # two first runs at once: one of them makes the first
                cur.run("LOCK TABLE teachers IN EXCLUSIVE MODE")
            if first and cur.rows("SELECT 1 FROM teachers LIMIT 1"):
                raise AccountError("accounts are set up already: sign in")
            if cur.rows("SELECT 1 FROM teachers WHERE lower(name) = lower(?)", (name,)):
                raise AccountError(f"a teacher named {name} exists already")
            ((number,),) = cur.rows(
                "INSERT INTO teachers (name, password, admin, created) VALUES (?, ?, ?, ?) RETURNING id",
                (name, digest, int(admin), time.time()),
            )
            if admin:
                cur.run("UPDATE batches SET owner = ? WHERE owner IS NULL", (number,))
        return Teacher(number, name, admin)

    def teachers(self) -> list[Teacher]:
        """Every teacher, by name."""
        return [
            Teacher(i, n, bool(a), bool(d))
            for i, n, a, d in self.db.query("SELECT id, name, admin, disabled FROM teachers ORDER BY lower(name)")
        ]

    def teacher(self, name: str) -> Teacher:
        """The teacher of `name` (any case)."""
        rows = self.db.query(
            "SELECT id, name, admin, disabled FROM teachers WHERE lower(name) = lower(?)", (str(name)[:40],)
        )
        if not rows:
            raise AccountError(f"no teacher is named {str(name)[:40]}")
        number, name, admin, disabled = rows[0]
        return Teacher(number, name, bool(admin), bool(disabled))

    def set_disabled(self, name: str, disabled: bool) -> Teacher:
        """Disable a teacher (their sessions end now) or enable them again; the last admin stays,
        however many admins are disabled at once, by however many processes."""
        teacher = self.teacher(name)
        with self.db.transaction() as cur:
            # Two admins disabling each other at once: each must see the other's change before it
            # counts the admins left (SQLite's BEGIN IMMEDIATE already takes turns; PostgreSQL's
            # rows are read as they were when each statement began, so the table is taken in turn).
            if self.db.dialect == "postgresql":
                cur.run("LOCK TABLE teachers IN EXCLUSIVE MODE")
            if (
                disabled
                and teacher.admin
                and not cur.rows("SELECT 1 FROM teachers WHERE admin = 1 AND disabled = 0 AND id <> ?", (teacher.id,))
            ):
                raise AccountError(f"{teacher.name} is the only admin left: make another admin first")
            cur.run("UPDATE teachers SET disabled = ? WHERE id = ?", (int(disabled), teacher.id))
            if disabled:
                cur.run("DELETE FROM sessions WHERE teacher_id = ?", (teacher.id,))
        return self.teacher(teacher.name)

    def set_password(self, name: str, password: str) -> None:
        """A teacher's new password: every session of theirs ends."""
        teacher, digest = self.teacher(name), _hasher().hash(check_password(password))
        with self.db.transaction() as cur:
            cur.run("UPDATE teachers SET password = ? WHERE id = ?", (digest, teacher.id))
            cur.run("DELETE FROM sessions WHERE teacher_id = ?", (teacher.id,))

    # --- sessions --------------------------------------------------------------------------------

    def sign_in(self, name: str, password: str) -> Optional[str]:
        """A new session's cookie value for a right name and password of a teacher not disabled; None otherwise."""
        from argon2.exceptions import InvalidHashError, VerificationError

        hasher = _hasher()
        # The whole name, never a part: a name longer than any account's is no account's.
        rows = (
            self.db.query("SELECT id, password, disabled FROM teachers WHERE lower(name) = lower(?)", (name,))
            if isinstance(name, str) and isinstance(password, str) and NAME.fullmatch(name)
            else []
        )
        if not rows or len(password) > MAX_PASSWORD:
            _verify_nothing(hasher)  # as long as a real check: the time says nothing of which names exist
            return None
        number, digest, disabled = rows[0]
        try:
            hasher.verify(digest, password)
        except (VerificationError, InvalidHashError):
            return None
        if disabled:
            return None
        if hasher.check_needs_rehash(digest):  # the library's parameters were raised since
            with self.db.transaction() as cur:
                cur.run("UPDATE teachers SET password = ? WHERE id = ?", (hasher.hash(password), number))
        session, now = secrets.token_urlsafe(32), time.time()
        with self.db.transaction() as cur:
            cur.run("DELETE FROM sessions WHERE expires < ?", (now,))
            cur.run(
                "INSERT INTO sessions (id, teacher_id, created, expires) VALUES (?, ?, ?, ?)",
                (_digest(session), number, now, now + SESSION_FOR),
            )
        return f"{session}.{self._signature(session)}"

    def session(self, cookie: str) -> Optional[Teacher]:
        """The teacher whose live session the cookie carries (signed by this server, not expired, the
        teacher not disabled); None for anything else."""
        session = self._session_id(cookie)
        if session is None:
            return None
        rows = self.db.query(
            "SELECT t.id, t.name, t.admin FROM sessions s JOIN teachers t ON t.id = s.teacher_id "
            "WHERE s.id = ? AND s.expires > ? AND t.disabled = 0",
            (_digest(session), time.time()),
        )
        return Teacher(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None

    def sign_out(self, cookie: str) -> None:
        """End the session the cookie carries (nothing for a cookie that carries none)."""
        session = self._session_id(cookie)
        if session is not None:
            with self.db.transaction() as cur:
                cur.run("DELETE FROM sessions WHERE id = ?", (_digest(session),))

    def csrf_token(self, cookie: str = "") -> str:
        """The token a page's forms send back: the session's own, or the server's for a page of no
        session. Made from the server's secret, so every process of the server makes the same."""
        session = self._session_id(cookie) or ""
        return hmac.new(self.secret.key, b"attnsheet/csrf\0" + session.encode(), hashlib.sha256).hexdigest()

    def _signature(self, session: str) -> str:
        return hmac.new(self.secret.key, b"attnsheet/session\0" + session.encode(), hashlib.sha256).hexdigest()[:32]

    def device_cookie(self, name: str) -> str:
        """A device cookie for a browser `name` signed in from (OWASP's device cookies): signed by
        this server for that name, so tries from that browser are counted apart from strangers'."""
        device = secrets.token_urlsafe(16)
        return f"{device}.{self._device_signature(name, device)}"

    def device_of(self, cookie: str, name: str) -> Optional[str]:
        """The device a cookie names, if this server signed it for `name` (any case); None otherwise."""
        device, _, signature = str(cookie or "")[:200].partition(".")
        if not device or not hmac.compare_digest(signature.encode(), self._device_signature(name, device).encode()):
            return None
        return device

    def _device_signature(self, name: str, device: str) -> str:
        message = b"attnsheet/device\0" + str(name).lower().encode() + b"\0" + device.encode()
        return hmac.new(self.secret.key, message, hashlib.sha256).hexdigest()[:32]

    def _session_id(self, cookie: str) -> Optional[str]:
        """The session id a cookie carries, if this server signed it."""
        session, _, signature = str(cookie or "")[:200].partition(".")
        if not session or not hmac.compare_digest(signature.encode(), self._signature(session).encode()):
            return None
        return session

    # --- classes ---------------------------------------------------------------------------------

    def access(self, batch, teacher: Optional[Teacher]) -> Optional[str]:
        """What `teacher` may do with a batch: "own", "write", "read", or None (no teacher: accounts off, "own")."""
        if teacher is None:
            return "own"
        owner = batch.owner if batch.owner is not None else self._first_admin()
        if owner == teacher.id:
            return "own"
        rows = self.db.query(
            "SELECT mode FROM shares WHERE batch_id = ? AND teacher_id = ?", (batch.number, teacher.id)
        )
        return rows[0][0] if rows else None

    def visible(self, teacher: Optional[Teacher]) -> list[str]:
        """The batches `teacher` may see (every one with accounts off), newest first."""
        if teacher is None:
            return [name for (name,) in self.db.query("SELECT name FROM batches ORDER BY id DESC")]
        first = self._first_admin()
        return [
            name
            for (name,) in self.db.query(
                "SELECT name FROM batches WHERE owner = ? OR (owner IS NULL AND ? = ?) OR id IN "
                "(SELECT batch_id FROM shares WHERE teacher_id = ?) ORDER BY id DESC",
                (teacher.id, teacher.id, first if first is not None else -1, teacher.id),
            )
        ]

    def share(self, batch, name: str, mode: str) -> Teacher:
        """Share a batch with the colleague `name`, to read or write ("none": no longer)."""
        colleague = self.teacher(name)
        if mode not in MODES + ("none",):
            raise AccountError(f"share to one of: {', '.join(MODES)}, or none")
        if self.access(batch, colleague) == "own":
            raise AccountError(f"{colleague.name} owns this class")
        with self.db.transaction() as cur:
            cur.run("DELETE FROM shares WHERE batch_id = ? AND teacher_id = ?", (batch.number, colleague.id))
            if mode != "none":
                cur.run(
                    "INSERT INTO shares (batch_id, teacher_id, mode) VALUES (?, ?, ?)",
                    (batch.number, colleague.id, mode),
                )
        return colleague

    def shares(self, batch) -> list[tuple[str, str]]:
        """Whom a batch is shared with, and to do what: (name, mode), by name."""
        return [
            (n, m)
            for n, m in self.db.query(
                "SELECT t.name, s.mode FROM shares s JOIN teachers t ON t.id = s.teacher_id WHERE s.batch_id = ? "
                "ORDER BY lower(t.name)",
                (batch.number,),
            )
        ]

    def owner_name(self, batch) -> str:
        """The name of the teacher a batch belongs to ("" with accounts off)."""
        owner = batch.owner if batch.owner is not None else self._first_admin()
        rows = self.db.query("SELECT name FROM teachers WHERE id = ?", (owner,)) if owner is not None else []
        return rows[0][0] if rows else ""

    def _first_admin(self) -> Optional[int]:
        rows = self.db.query("SELECT MIN(id) FROM teachers WHERE admin = 1")
        return rows[0][0] if rows else None

    # --- limits ----------------------------------------------------------------------------------

    def hit(self, key: str, rate: int, period: int = 60) -> bool:
        """Count one request of `key`; whether it is within `rate` a `period` (seconds). Counted in
        the database, in slots of the period, so every process of a server counts the same; the
        slot before counts for the part of it still within the last period (a sliding window): a
        burst across a slot's end is counted whole, not as two halves each under the rate."""
        now = time.time()
        slot, into = int(now // period), (now % period) / period
        key = str(key)[:200]
        with self.db.transaction() as cur:
            ((hits,),) = cur.rows(
                "INSERT INTO limits (key, slot, hits) VALUES (?, ?, 1) ON CONFLICT (key, slot) "
                "DO UPDATE SET hits = limits.hits + 1 RETURNING hits",
                (key, slot),
            )
            before = cur.rows("SELECT hits FROM limits WHERE key = ? AND slot = ?", (key, slot - 1))
            if hits == 1:  # a key's first request of a slot: the slots gone by are dropped now and then
                cur.run("DELETE FROM limits WHERE slot < ?", (slot - 1,))
        return hits + (before[0][0] if before else 0) * (1 - into) <= rate


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


_NOTHING = []


def _verify_nothing(hasher) -> None:
    """A password check against a hash of nothing anyone knows (made once)."""
    from argon2.exceptions import VerificationError

    if not _NOTHING:
        _NOTHING.append(hasher.hash(secrets.token_urlsafe(16)))
    try:
        hasher.verify(_NOTHING[0], "not a password")
    except VerificationError:
        pass
