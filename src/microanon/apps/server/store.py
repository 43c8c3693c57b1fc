"""Durable log of accepted submissions: SQLite (default) or PostgreSQL.

The log is the collected set: one row per accepted submission, ``(version, id, codes)``, where
``version`` numbers acceptances 1, 2, 3, ... without gaps and ``id`` is the client's submission id
(a respondent submits at most once; a retry with the same id is recognized, never stored twice).
The database arbitrates: a submission computed against version ``v`` is inserted as the next
version only if, in the same transaction, the log's last version is ``v`` or nothing accepted
after ``v`` can affect it (see :meth:`Store.append`), and the primary key on ``version`` refuses
a second submission with the same number. So acceptance is exactly-once even with several server
processes on one PostgreSQL database, and a crash loses nothing that was acknowledged: a
submission is acknowledged only after its transaction committed (SQLite in WAL mode with
``synchronous=NORMAL``, durable across process crashes; set ``durability: power`` for
``synchronous=FULL``, durable across power loss too).

A store remembers the fingerprint of the survey it collects for and refuses another survey. When
the survey takes invitations it also keeps the SHA-256 hashes of the used ones, in a separate
table and separate transactions, nothing that links them to a submission.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError, MicroanonError

__all__ = ["Accepted", "Store", "StoreError", "open_store"]


class StoreError(MicroanonError):
    """The storage cannot be opened or belongs to another survey."""


@dataclass(frozen=True)
class Accepted:
    """Outcome of :meth:`Store.append`.

    Attributes
    ----------
    status : {"accepted", "duplicate", "conflict", "id_reused"}
        Stored now; stored earlier under the same id with the same tuple; the log moved past the
        client's version; the id was stored earlier with another tuple.
    version : int
        The submission's version (accepted, duplicate) or the log's last version (otherwise).
    """

    status: str
    version: int


def _encode(codes: Sequence[int]) -> str:
    return ",".join(str(int(c)) for c in codes)


def _decode(text: str) -> tuple[int, ...]:
    return tuple(int(c) for c in text.split(",")) if text else ()


class Store:
    """Base class: the SQL is shared, the connection handling differs."""

    placeholder = "?"
    url = ""
    #: Table option of the invitations table (SQLite: no insertion-ordered rowid).
    without_rowid = ""
    #: The driver's exception for a violated unique constraint.
    integrity_error: type[Exception] = sqlite3.IntegrityError

    def _execute(self, cur: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return cur.execute(sql.replace("?", self.placeholder), tuple(params))

    # subclasses provide _transaction() (a context manager yielding a cursor) and close()
    def _transaction(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _create(self, fingerprint: str) -> None:
        with self._transaction() as cur:
            self._execute(
                cur,
                "CREATE TABLE IF NOT EXISTS survey (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            )
            self._execute(
                cur,
                "CREATE TABLE IF NOT EXISTS submissions (version BIGINT PRIMARY KEY, "
                "id TEXT NOT NULL UNIQUE, codes TEXT NOT NULL)",
            )
            # Used invitations: only a hash, no version, id or time, in a table of its own
            # (SQLite: WITHOUT ROWID, kept in hash order, not in arrival order).
            self._execute(
                cur,
                "CREATE TABLE IF NOT EXISTS invitations_used (hash TEXT PRIMARY KEY)"
                + self.without_rowid,
            )
            self._execute(cur, "SELECT value FROM survey WHERE key = 'fingerprint'")
            row = cur.fetchone()
            if row is None:
                self._execute(
                    cur, "INSERT INTO survey (key, value) VALUES ('fingerprint', ?)", [fingerprint]
                )
            elif row[0] != fingerprint:
                raise StoreError(
                    f"storage {self.url} holds submissions of another survey (its taxonomies or "
                    "attributes differ); use a new storage for a changed survey"
                )

    def claim_invitation(self, token_hash: str) -> bool:
        """Record an invitation as used, in a transaction of its own; False if it already was.

        Kept apart from the submission's transaction so that no row or transaction of the
        database holds both (see :meth:`release_invitation` for a submission then not stored).
        """
        with self._transaction() as cur:
            self._execute(
                cur,
                "INSERT INTO invitations_used (hash) VALUES (?) ON CONFLICT DO NOTHING",
                [token_hash],
            )
            return cur.rowcount == 1

    def release_invitation(self, token_hash: str) -> None:
        """Forget a claimed invitation whose submission was not stored (so it can be used)."""
        with self._transaction() as cur:
            self._execute(cur, "DELETE FROM invitations_used WHERE hash = ?", [token_hash])

    def last_version(self) -> int:
        """The version of the last accepted submission (0 when none)."""
        with self._transaction() as cur:
            return self._last(cur)

    def _last(self, cur: Any) -> int:
        self._execute(cur, "SELECT COALESCE(MAX(version), 0) FROM submissions")
        return int(cur.fetchone()[0])

    def since(self, version: int) -> list[tuple[int, str, tuple[int, ...]]]:
        """``(version, id, codes)`` of the submissions accepted after ``version``, in order."""
        with self._transaction() as cur:
            self._execute(
                cur,
                "SELECT version, id, codes FROM submissions WHERE version > ? ORDER BY version",
                [int(version)],
            )
            return [(int(v), str(i), _decode(c)) for v, i, c in cur.fetchall()]

    def append(
        self,
        submission_id: str,
        codes: Sequence[int],
        based_on: int,
        affects: Callable[[list[tuple[int, ...]]], bool] | None = None,
    ) -> Accepted:
        """Store a submission computed against version ``based_on``, exactly once.

        Parameters
        ----------
        submission_id : str
        codes : sequence of int
            The generalized tuple.
        based_on : int
            The version the client computed against.
        affects : callable, optional
            Given the tuples accepted after ``based_on``, whether they can change the
            submission's guarantee. None: any change can (the submission needs the log's last
            version to be ``based_on``).
        """
        text = _encode(codes)
        for _ in range(8):
            try:
                return self._append(submission_id, text, based_on, affects)
            except self.integrity_error:
                continue  # another process took this version (or id) first: look again
        return Accepted("conflict", self.last_version())

    def _append(
        self,
        submission_id: str,
        text: str,
        based_on: int,
        affects: Callable[[list[tuple[int, ...]]], bool] | None,
    ) -> Accepted:
        with self._transaction() as cur:
            self._execute(
                cur, "SELECT version, codes FROM submissions WHERE id = ?", [submission_id]
            )
            row = cur.fetchone()
            if row is not None:
                status = "duplicate" if row[1] == text else "id_reused"
                return Accepted(status, int(row[0]))
            last = self._last(cur)
            if last != based_on:
                if last < based_on or affects is None:
                    return Accepted("conflict", last)
                self._execute(
                    cur,
                    "SELECT codes FROM submissions WHERE version > ? ORDER BY version",
                    [based_on],
                )
                if affects([_decode(c) for (c,) in cur.fetchall()]):
                    return Accepted("conflict", last)
            self._execute(
                cur,
                "INSERT INTO submissions (version, id, codes) VALUES (?, ?, ?)",
                [last + 1, submission_id, text],
            )
            return Accepted("accepted", last + 1)


class SQLiteStore(Store):
    """The log in a SQLite file (WAL mode; ``synchronous`` NORMAL or FULL by ``durability``)."""

    without_rowid = " WITHOUT ROWID"

    def __init__(self, path: Path, fingerprint: str, durability: str = "crash") -> None:
        self.url = f"sqlite:///{path}"
        if not path.parent.is_dir():
            raise StoreError(f"storage: directory {path.parent} does not exist")
        try:
            self._conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            mode = "FULL" if durability == "power" else "NORMAL"
            self._conn.execute(f"PRAGMA synchronous={mode}")
        except sqlite3.Error as exc:
            raise StoreError(f"storage {self.url}: {exc}") from None
        self._lock = threading.Lock()
        try:
            self._create(fingerprint)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"storage {self.url} is not a usable SQLite database: {exc}") from None

    class _Tx:
        def __init__(self, store: SQLiteStore) -> None:
            self.store = store

        def __enter__(self) -> Any:
            self.store._lock.acquire()
            self.cur = self.store._conn.cursor()
            self.cur.execute("BEGIN IMMEDIATE")
            return self.cur

        def __exit__(self, exc_type: Any, *_: Any) -> None:
            try:
                self.cur.execute("ROLLBACK" if exc_type else "COMMIT")
            finally:
                self.cur.close()
                self.store._lock.release()

    def _transaction(self) -> Any:
        return SQLiteStore._Tx(self)

    def close(self) -> None:
        self._conn.close()


class PostgresStore(Store):
    """The log in a PostgreSQL database (one connection, one transaction per call)."""

    placeholder = "%s"

    def __init__(self, url: str, fingerprint: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                "storage: a postgresql:// URL needs psycopg; pip install 'microanon[postgres]'"
            ) from None
        self.url = _redact(url)
        self.integrity_error = psycopg.errors.IntegrityError
        try:
            self._conn = psycopg.connect(url, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"storage {self.url}: cannot connect: {exc}") from None
        self._lock = threading.Lock()
        self._create(fingerprint)

    class _Tx:
        def __init__(self, store: PostgresStore) -> None:
            self.store = store

        def __enter__(self) -> Any:
            self.store._lock.acquire()
            self.tx = self.store._conn.transaction()
            self.tx.__enter__()
            self.cur = self.store._conn.cursor()
            return self.cur

        def __exit__(self, *exc: Any) -> None:
            try:
                self.cur.close()
                self.tx.__exit__(*exc)
            finally:
                self.store._lock.release()

    def _transaction(self) -> Any:
        return PostgresStore._Tx(self)

    def close(self) -> None:
        self._conn.close()


def _redact(url: str) -> str:
    """The URL without its password (for messages)."""
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, cred = head.partition("//")
    user = cred.split(":", 1)[0]
    return f"{scheme}//{user}:***@{tail}"


def open_store(url: str, fingerprint: str, durability: str = "crash") -> Store:
    """Open (and create if needed) the log at ``url`` for the survey with ``fingerprint``.

    ``durability`` (SQLite only): ``"crash"`` keeps every acknowledged submission across crashes
    of the server process; ``"power"`` also across power loss (an fsync per submission).
    PostgreSQL's durability is the database server's configuration.

    Raises
    ------
    StoreError
        The storage cannot be opened, or holds another survey's submissions.
    InputError
        An unsupported URL.
    """
    if url.startswith("sqlite:///"):
        return SQLiteStore(Path(url.removeprefix("sqlite:///")), fingerprint, durability)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url, fingerprint)
    raise InputError(f"storage: unsupported URL {url!r}")
