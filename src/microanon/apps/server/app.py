"""The collection service (client–server–user model) as an ASGI application.

The model of L. Zhang & W. Zhang, *Generalization-Based Privacy-Preserving Data Collection*,
DaWaK 2008.

Endpoints (JSON unless stated):

``GET /survey``
    The survey definition: attributes, taxonomies with leaf weights, τ (exact, ``"3/10"``), the
    loss and the clients' default mode, and the current ``version``.
``GET /collected[?since=V][&encoding=bits|index]``
    The collected set as compressed tuple–count pairs (``application/octet-stream``, see
    :meth:`~microanon.methods.collect.CollectedSet.to_bytes`); with ``since=V`` only the tuples
    accepted after version ``V``. The header ``X-Collected-Version`` and the bytes carry the
    version of the snapshot.
``POST /submissions``
    ``{"id": ..., "version": V, "tuple": {attribute: value, ...}}``: one generalized tuple, computed
    by the respondent against version ``V``. 201 when accepted (the answer holds its version),
    200 when this id was accepted before with the same tuple (a retry), 409 when the set changed
    since ``V`` in a way that can matter to the respondent (recompute against the new set: the
    guarantee holds at acceptance time; the answer's ``delta`` holds the tuples accepted since
    ``V``, base64 of the compressed bytes; see :meth:`CollectionService.affects`, and
    ``conflicts: any`` in the survey file for a 409 after any change),
    422 for a tuple that does not fit the taxonomies, an id reused for another tuple, or a tuple
    that protects no respondent it can come from against the collected set (``"reason":
    "unprotected"``, with ``tau`` and the achieved ``pv`` as exact text; see
    :meth:`CollectionService.check`), 400 for malformed bodies, 413 for oversized ones. Nothing
    is stored unless the answer is 201. When the survey file names ``invitations``, a submission
    carries its token in the ``X-Invitation`` header: 401 without one (``"reason":
    "invitation_missing"``), 403 for a token the survey did not issue (``invitation_unknown``)
    or one already used by an accepted submission (``invitation_used``; a retry of that same
    submission still gets 200). Only the token's SHA-256 is stored, in a table of its own and in
    a transaction of its own, released again when the submission is not stored.
``GET /export[?format=csv|json]``
    The collected multiset with labels, for the data user (``Authorization: Bearer <token>``;
    401 without, 403 with a wrong token). It is the same multiset as ``GET /collected`` (same
    pairs, order, counts and version) and adds nothing: no submission ids, no per-submission
    records, no times. The token gates this endpoint and ``/summary`` only.
``GET /summary``
    What the data user's page shows (same token as ``/export``): the number of tuples collected,
    of distinct tuples, the average loss, and per attribute the published distribution: for every
    taxonomy node that some tuple carries or generalizes, how many collected tuples carry exactly
    that value (``count``) and that value or a more specific one under it (``under``), with the
    leaves it covers. It is a tabulation of the published (generalized) values, not an estimate
    of the respondents' base values. Beside it, per attribute, ``leaves``: for every base value
    (leaf) the reconstructed count — ``low`` (answers published exactly at it), ``high``
    (answers whose published value covers it), certain bounds, and ``estimate``, each generalized
    answer spread over the leaves it covers in proportion to the leaf weights (``spread`` is
    ``"uniform"`` when they are all equal, else ``"weights"``); see :mod:`.reconstruct`.
    ``abstentions`` is ``null``: a respondent whom nothing protects sends nothing, so the server
    cannot count them.
``GET /health``
    ``{"status": "ok", "version": V}``.
``GET /`` and ``GET /static/...``
    The respondent's survey page (HTML, CSS and JavaScript shipped in the package, nothing from
    elsewhere): a form generated from ``/survey`` that runs GTR on the respondent's device
    (``static/gtr.js``, a port of :func:`~microanon.methods.collect.gtr`), shows per answer what
    would be sent and why, and posts only that tuple to ``/submissions``.
``GET /results``
    The data user's page (same files and headers): the export token typed into a form field is
    sent as ``Authorization: Bearer`` to ``/summary`` and ``/export`` (never in a URL) and kept in
    the page's memory only; it shows the summary and downloads the export.

With ``rate_limit: N`` in the survey file, a client address gets at most ``N`` submission
requests checked per minute (429 with ``Retry-After`` beyond; counted in memory per process,
kept for one minute, never logged). The client address is the connection's peer address;
``X-Forwarded-For`` is believed only from the reverse proxies named in ``trusted_proxies``
(:func:`client_address`), and uvicorn runs with its own proxy-header handling off.

**What is public.** Respondents need the collected set to run GTR, so it is public by design:
``/survey``, ``/collected`` (with ``since=V``, the tuple accepted as each version: the order of
acceptance) and ``/health`` need no token. No endpoint serves submission ids (an id is echoed
only to the request that sent it), client addresses or times; nothing is kept confidential by
the export token.

The server receives only GTR's output ``t ⪰ o``, computed by the client: the values GTR
generalizes never reach it, the ones it keeps arrive exactly as given. It still refuses what it
can prove unprotected: ``Pv`` depends on the respondent only through which collected tuples cover
their quasi-identifiers, so a tuple of leaves fixes its respondent's ``Pv`` exactly, and a
generalized tuple is refused when no base tuple under it reaches τ
(:mod:`microanon.methods.collect.verify`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import io
import ipaddress
import json
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...core.errors import MicroanonError
from ...methods.collect import (
    ENCODINGS,
    CollectedSet,
    SubmissionCheck,
    average_loss,
    check_submission_codes,
)
from .config import INVITATION_HEADER, ServiceConfig, invitation_hash
from .reconstruct import leaf_distribution
from .store import Accepted, Store, open_store

__all__ = [
    "INVITATION_HEADER",
    "CollectionService",
    "client_address",
    "create_app",
    "survey_fingerprint",
]


#: Submission ids: 8–128 characters of letters, digits, '-' and '_' (a UUID fits).
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{8,128}$")
_SUBMISSION_KEYS = {"id", "version", "tuple"}
#: Deepest nesting of arrays and objects in a request body (a submission needs 2).
MAX_DEPTH = 8
#: Most digits of an integer in a request body (a version; a number label).
MAX_DIGITS = 19
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
#: The survey page's files (package data).
STATIC = resources.files("microanon.apps.server") / "static"
#: Headers of the survey page: its own files only, no network beyond this server, no framing.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _is_proxy(host: str, proxies: tuple[Network, ...]) -> bool:
    """Whether ``host`` is an IP address inside one of ``proxies``."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in net for net in proxies)


def client_address(peer: str, forwarded: list[str], proxies: tuple[Network, ...]) -> str:
    """The address a request is counted under by the rate limit.

    Parameters
    ----------
    peer : str
        The connection's peer address.
    forwarded : list of str
        The request's ``X-Forwarded-For`` headers (comma-separated addresses, the nearest last).
    proxies : tuple of networks
        The trusted reverse proxies (``trusted_proxies``).

    Returns
    -------
    str
        ``peer`` unless it is a trusted proxy; then the nearest ``X-Forwarded-For`` address
        that is not a trusted proxy (the farthest one when all are), or ``peer`` without one.
    """
    if not _is_proxy(peer, proxies):
        return peer
    hops = [hop.strip() for header in forwarded for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_proxy(hop, proxies):
            return hop
    return hops[0] if hops else peer


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds per key (a client address), in memory.

    Parameters
    ----------
    limit : int
        Events allowed per window; 0 allows everything.
    window : float, default 60
        Seconds.
    max_keys : int, default 100000
        Keys remembered at once (the least recently seen are forgotten first).
    """

    def __init__(self, limit: int, window: float = 60.0, max_keys: int = 100_000) -> None:
        self.limit, self.window, self.max_keys = int(limit), float(window), int(max_keys)
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def hit(self, key: str, now: float | None = None) -> float:
        """Count one event; return 0 when allowed, else the seconds until one is allowed."""
        if self.limit <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        times = self._seen.pop(key, None) or deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        self._seen[key] = times
        while len(self._seen) > self.max_keys:
            self._seen.popitem(last=False)
        if len(times) >= self.limit:
            return max(times[0] + self.window - now, 0.001)
        times.append(now)
        return 0.0


class HTTPError(Exception):
    """An error answer: status code and message."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def _unprotected(check: SubmissionCheck, version: int) -> HTTPError:
    """The 422 answer to a submission that protects no respondent it can come from."""
    tau, pv = check.tau, check.pv
    if check.exact_cell:
        what = f"does not protect its respondent: Pv = {pv} < τ = {tau}"
    elif pv is not None:
        what = (
            "protects none of the base tuples it generalizes: the highest Pv among them is "
            f"{pv} < τ = {tau}"
        )
    else:
        what = (
            f"protects none of the base tuples it generalizes: Pv < τ = {tau} for each of them "
            "(too many groups to name the highest)"
        )
    return HTTPError(
        422,
        f"the submitted tuple {what} against the collected set (version {version}); "
        "generalize it (run GTR against the set) or abstain",
        reason="unprotected",
        tau=str(tau),
        pv=None if pv is None else str(pv),
        respondent_known=check.exact_cell,
        version=version,
    )


def survey_fingerprint(config: ServiceConfig) -> str:
    """SHA-256 of the survey definition and τ (a storage serves one survey only)."""
    doc = {**config.survey.to_dict(), "tau": str(config.tau)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


class CollectionService:
    """The server's state: the durable log, and the collected set rebuilt from it in memory.

    Parameters
    ----------
    config : ServiceConfig
    store : Store, optional
        Opened from ``config.storage`` when not given.
    """

    def __init__(self, config: ServiceConfig, store: Store | None = None) -> None:
        self.config = config
        self.survey = config.survey
        self.store = (
            store
            if store is not None
            else open_store(config.storage, survey_fingerprint(config), config.durability)
        )
        self.collected = CollectedSet(self.survey)
        self._log = np.zeros((1024, self.survey.n_attributes), dtype=np.int64)
        self._n = 0
        self.lock = asyncio.Lock()  # one submission at a time in this process
        self._state = threading.Lock()  # the in-memory set, shared with the thread pool
        self._cache: dict[tuple[int, str], bytes] = {}
        self._ids: dict[str, tuple[int, tuple[int, ...]]] = {}  # id -> (version, codes)
        self._sync_now()

    @property
    def version(self) -> int:
        """Number of accepted submissions known to this process."""
        return self._n

    @property
    def log(self) -> np.ndarray:
        """Codes of the accepted submissions, in acceptance order (a read-only view)."""
        view = self._log[: self._n]
        view.flags.writeable = False
        return view

    def _record(self, codes: np.ndarray) -> None:
        """Append accepted tuples to the in-memory set and log (capacity doubles)."""
        need = self._n + len(codes)
        if need > len(self._log):
            grown = np.zeros((max(need, 2 * len(self._log)), self._log.shape[1]), np.int64)
            grown[: self._n] = self._log[: self._n]
            self._log = grown
        self._log[self._n : need] = codes
        self._n = need
        if len(codes) == 1:
            self.collected.add_codes(codes[0])
        else:
            self.collected.extend_codes(codes)
        self.collected.version = self._n

    def _sync_now(self) -> None:
        """Load what was accepted since our last look (by us, other processes, earlier runs)."""
        with self._state:
            self._load()

    def _load(self) -> None:
        rows = self.store.since(self.version)
        if not rows:
            return
        if rows[0][0] != self.version + 1 or rows[-1][0] != self.version + len(rows):
            raise MicroanonError(f"storage {self.store.url}: the log has gaps")
        self._ids.update((sid, (v, codes)) for v, sid, codes in rows)
        self._record(np.array([c for _, _, c in rows], dtype=np.int64))

    async def sync(self) -> None:
        """:meth:`_sync_now` off the event loop."""
        await run_in_threadpool(self._sync_now)

    def snapshot(self, since: int, encoding: str) -> tuple[int, bytes]:
        """Sync, then the collected set (``since=0``) or the tuples accepted after ``since``.

        Returns the version of the snapshot and its bytes.
        """
        with self._state:
            self._load()
            if since > self.version:
                raise HTTPError(
                    409, f"since={since} is ahead of the collected set", version=self.version
                )
            return self.version, self._snapshot(since, encoding)

    def _snapshot(self, since: int, encoding: str) -> bytes:
        key = (self.version, encoding)
        if since == 0 and key in self._cache:
            return self._cache[key]
        part = CollectedSet(self.survey)
        if since < self.version:
            part.extend_codes(self.log[since:])
        part.version = self.version
        data = part.to_bytes(encoding)
        if since == 0:
            self._cache = {key: data}
        return data

    async def submit(
        self, submission_id: str, codes: np.ndarray, based_on: int
    ) -> tuple[int, dict]:
        """Store one submission; returns the HTTP status and the answer."""
        async with self.lock:
            result, check = await run_in_threadpool(self._append, submission_id, codes, based_on)
        if check is not None:
            raise _unprotected(check, result.version)
        if result.status == "accepted":
            return 201, {"status": "accepted", "id": submission_id, "version": result.version}
        if result.status == "duplicate":
            return 200, {"status": "duplicate", "id": submission_id, "version": result.version}
        if result.status == "id_reused":
            raise HTTPError(
                422,
                f"submission id {submission_id!r} was already used for another tuple; "
                "each respondent submits once, with a new id",
                reason="id_reused",  # (a respondent's repeated command: its first answer stands)
            )
        raise HTTPError(
            409,
            f"the collected set changed since version {based_on} (now {result.version}); "
            "fetch it and recompute the generalization",
            version=result.version,
            delta=base64.b64encode(self.delta(based_on)).decode("ascii"),
        )

    def _append(
        self, submission_id: str, codes: np.ndarray, based_on: int
    ) -> tuple[Accepted, SubmissionCheck | None]:
        """Decide one submission: from memory when it can, else in one store transaction.

        What this process knows is a prefix of the store's log, so a known id is a retry and a
        version older than ours is stale without asking the store. A submission that is
        neither is checked against the in-memory set (:meth:`check`); one that protects no
        possible respondent comes back as ``Accepted("unprotected", version)`` with its check,
        and the store is not asked. Everything else is decided by the store, and the in-memory
        set follows it.
        """
        key = tuple(int(c) for c in codes)
        relevant = self.config.conflicts == "relevant"
        with self._state:
            if based_on > self.version:
                self._load()  # the client saw tuples that another process accepted
            early = self._early(submission_id, key, codes, based_on, relevant)
            if early is not None:
                return early, None
            check = self.check(codes)
            if check.protects is False:
                # Before refusing, look at the store once: another process may have accepted
                # this id (this is then a retry) or tuples that send the submission back.
                self._load()
                early = self._early(submission_id, key, codes, based_on, relevant)
                if early is not None:
                    return early, None
                check = self.check(codes)
                if check.protects is False:
                    return Accepted("unprotected", self.version), check

        def affects(rows: list[tuple[int, ...]]) -> bool:
            return self.affects(np.array(rows, dtype=np.int64), codes)

        result = self.store.append(submission_id, key, based_on, affects if relevant else None)
        with self._state:
            if result.status == "accepted" and result.version == self.version + 1:
                self._ids[submission_id] = (result.version, key)
                self._record(codes[None, :])
            else:
                self._load()
        return result, None

    def _early(
        self,
        submission_id: str,
        key: tuple[int, ...],
        codes: np.ndarray,
        based_on: int,
        relevant: bool,
    ) -> Accepted | None:
        """What memory can answer alone: a known id, or a version that is ahead or stale."""
        known = self._ids.get(submission_id)
        if known is not None:
            return Accepted("duplicate" if known[1] == key else "id_reused", known[0])
        if based_on > self.version:
            return Accepted("conflict", self.version)
        if based_on < self.version and (not relevant or self.affects(self.log[based_on:], codes)):
            return Accepted("conflict", self.version)
        return None

    def check(self, codes: np.ndarray) -> SubmissionCheck:
        """Whether a submission protects any respondent it can come from, against the set now.

        ``Pv(o, G ∪ {t})`` depends on the respondent ``o`` only through which collected tuples
        cover ``o[QI]`` (see :mod:`microanon.methods.collect.verify`). With leaf
        quasi-identifiers that is known exactly, so this is the respondent's own ``Pv``;
        otherwise the submission is refused only when no base tuple it generalizes reaches τ,
        so an honest client's tuple (GTR protects its respondent) is never refused. Decided as
        exact arithmetic would, like GTR (float64 with a rigorous error bound, fractions when it
        cannot decide), on the in-memory set. A submission that passes goes through the usual
        conflict rules, which keep the groups it can reach unchanged up to acceptance; a
        submission whose check is undecided (too many groups) is not refused.
        """
        return check_submission_codes(codes, self.collected, self.survey, self.config.tau)

    def affects(self, rows: np.ndarray, codes: np.ndarray) -> bool:
        """Whether some tuple of ``rows`` can be in the anonymous group of a respondent who
        submits ``codes``.

        A tuple in the group generalizes the respondent's quasi-identifiers, as the submission
        does; so in every quasi-identifier its value and the submitted one lie on one ancestor
        chain (one generalizes the other). A tuple failing this in some attribute is outside the
        group of every respondent the submission can come from, and leaves the respondent's
        ``Pv`` and GTR's answer unchanged (eqs. 1–3 and Theorem 1 of Zhang & Zhang).
        """
        if len(rows) == 0:
            return False
        inside = np.ones(len(rows), dtype=bool)
        for j, tx in enumerate(self.survey.quasi_taxonomies):
            lo, hi = tx.lo[rows[:, j]], tx.hi[rows[:, j]]
            t_lo, t_hi = tx.lo[codes[j]], tx.hi[codes[j]]
            inside &= ((lo <= t_lo) & (t_hi <= hi)) | ((t_lo <= lo) & (hi <= t_hi))
        return bool(inside.any())

    def known(self, submission_id: str) -> bool:
        """Sync, then whether a submission with this id was accepted (a retry, not a new one)."""
        with self._state:
            self._load()
            return submission_id in self._ids

    def delta(self, since: int) -> bytes:
        """The tuples accepted after ``since`` (bits encoding), for a 409 answer."""
        with self._state:
            return self._snapshot(min(since, self.version), "bits")

    def summary(self) -> dict[str, Any]:
        """Sync, then what ``GET /summary`` answers (see the module docstring)."""
        with self._state:
            self._load()
            codes, counts = np.array(self.collected.codes), np.array(self.collected.counts)
            version, total = self.version, self.collected.total
            loss = average_loss(self.survey, self.collected, self.config.loss) if total else None
        attributes = []
        for j, tx in enumerate(self.survey.taxonomies):
            count = np.bincount(codes[:, j], weights=counts, minlength=tx.n_nodes)
            count = count.astype(np.int64)
            # Pre-order codes: the subtree of node v is the codes v .. v + size(v) - 1.
            under = count.copy()
            for v in range(tx.n_nodes - 1, 0, -1):
                under[tx.parent[v]] += under[v]
            leaves = [tx.label(int(c)) for c in tx.leaf_node]
            nodes = [
                {
                    "value": _plain(tx.label(v)),
                    "depth": int(tx.depth[v]),
                    "leaf": bool(tx.is_leaf[v]),
                    "leaves": int(tx.leaf_count[v]),
                    "first": _plain(leaves[int(tx.lo[v])]),
                    "last": _plain(leaves[int(tx.hi[v]) - 1]),
                    "count": int(count[v]),
                    "under": int(under[v]),
                }
                for v in range(tx.n_nodes)
                if under[v] > 0
            ]
            role = "sensitive" if tx.name == self.survey.sensitive else "quasi"
            dist = leaf_distribution(tx, count)
            base = [
                {
                    "value": _plain(leaves[i]),
                    "low": int(dist.low[i]),
                    "high": int(dist.high[i]),
                    "estimate": float(dist.estimate[i]),
                }
                for i in range(len(leaves))
            ]
            uniform = bool(np.all(tx.leaf_weight == tx.leaf_weight[0]))
            attributes.append(
                {
                    "name": tx.name,
                    "role": role,
                    "nodes": nodes,
                    "spread": "uniform" if uniform else "weights",
                    "leaves": base,
                }
            )
        return {
            "version": version,
            "tuples": total,
            "distinct": int(len(counts)),
            "abstentions": None,
            "tau": f"{self.config.tau.numerator}/{self.config.tau.denominator}",
            "loss": self.config.loss,
            "average_loss": None if loss is None else f"{loss.numerator}/{loss.denominator}",
            "attributes": attributes,
        }

    def export(self) -> tuple[int, Any, list[tuple[tuple[Any, ...], int]]]:
        """Sync, then the version, the multiset as a DataFrame (labels, ``count``) and as pairs."""
        with self._state:
            self._load()
            return self.version, self.collected.to_frame(), self.collected.pairs()


# ------------------------------------------------------------------------------ request parsing
async def _read_json(request: Request, limit: int) -> Any:
    """The request's body as JSON: at most ``limit`` bytes of UTF-8, nested at most
    :data:`MAX_DEPTH` deep, integers of at most :data:`MAX_DIGITS` digits (400 or 413 else)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise HTTPError(413, f"request body larger than {limit} bytes")
        except ValueError:
            raise HTTPError(400, "invalid Content-Length header") from None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPError(413, f"request body larger than {limit} bytes")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HTTPError(400, "the body is not valid JSON: it is not UTF-8 text") from None
    if _nesting(text) > MAX_DEPTH:
        raise HTTPError(
            400, f"the body nests arrays or objects more than {MAX_DEPTH} deep (a submission: 2)"
        )
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        raise HTTPError(400, f"the body is not valid JSON: {exc}") from None


def _nesting(text: str) -> int:
    """How deep arrays and objects nest in a JSON text (brackets inside strings skipped)."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _json_int(literal: str) -> int:
    """An integer of the body (Python would refuse past 4300 digits with a ValueError)."""
    if len(literal.lstrip("-")) > MAX_DIGITS:
        raise HTTPError(400, f"the body holds an integer of more than {MAX_DIGITS} digits")
    return int(literal)


def _brief(value: Any, width: int = 40) -> str:
    """``repr(value)``, cut to ``width`` characters (for echoing input in an error)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _parse_submission(doc: Any, service: CollectionService) -> tuple[str, int, np.ndarray]:
    if not isinstance(doc, dict):
        raise HTTPError(400, "the body must be a JSON object with 'id', 'version' and 'tuple'")
    missing = sorted(_SUBMISSION_KEYS - set(doc))
    extra = sorted(set(doc) - _SUBMISSION_KEYS)
    if missing or extra:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(extra)}"] if extra else []
        )
        raise HTTPError(400, f"submission: {'; '.join(parts)}; expected id, version, tuple")
    sid, version, values = doc["id"], doc["version"], doc["tuple"]
    if not isinstance(sid, str) or not ID_PATTERN.match(sid):
        raise HTTPError(400, "id: 8-128 characters of letters, digits, '-' or '_' (e.g. a UUID)")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise HTTPError(400, f"version: a non-negative integer, got {_brief(version)}")
    if not isinstance(values, (dict, list)):
        raise HTTPError(400, "tuple: an object {attribute: value} or a list of values")
    scalar = (str, int, float)
    items = values.values() if isinstance(values, dict) else values
    if any(isinstance(v, bool) or not isinstance(v, scalar) for v in items):
        raise HTTPError(422, "tuple: every value must be a string or a number")
    try:
        codes = service.survey.encode(values, "submitted tuple")
    except MicroanonError as exc:
        raise HTTPError(422, str(exc)) from None
    return sid, version, codes


def _plain(value: Any) -> Any:
    """A JSON-safe label (taxonomy labels may be numpy scalars)."""
    return value.item() if hasattr(value, "item") else value


def _invitation(request: Request, config: ServiceConfig) -> str | None:
    """The hash of the request's invitation (``X-Invitation``), None when the survey takes none.

    Raises 401 without an invitation and 403 with one the survey did not issue.
    """
    if config.invitations is None:
        return None
    token = request.headers.get(INVITATION_HEADER, "").strip()
    if not token:
        raise HTTPError(
            401,
            "this survey is by invitation: open the link of your invitation, or type its code",
            reason="invitation_missing",
        )
    token_hash = invitation_hash(token)
    if token_hash not in config.invitations:
        raise HTTPError(
            403, "this invitation code is not one of this survey's", reason="invitation_unknown"
        )
    return token_hash


def _check_token(request: Request, token: str) -> None:
    auth = request.headers.get("authorization", "")
    scheme, _, given = auth.partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HTTPError(401, "needs the export token: 'Authorization: Bearer <token>'")
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HTTPError(403, "wrong export token")


def _int_param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise HTTPError(400, f"{name}: an integer, got {raw!r}") from None
    if value < 0:
        raise HTTPError(400, f"{name}: must not be negative")
    return value


class _Static(StaticFiles):
    """The page's package files, with the page's security headers."""

    async def get_response(self, path: str, scope: Any) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(PAGE_HEADERS)
        return response


# ------------------------------------------------------------------------------ application
def create_app(config: ServiceConfig, store: Store | None = None) -> Starlette:
    """The ASGI application of a collection service (run it with uvicorn).

    The storage is opened here, so a bad URL or another survey's storage fails before serving.
    """
    service = CollectionService(config, store)

    def _errors(handler: Any) -> Any:
        async def wrapped(request: Request) -> Response:
            try:
                return await handler(request)
            except HTTPError as exc:
                headers = (
                    {"Retry-After": str(exc.extra["retry_after"])}
                    if "retry_after" in exc.extra
                    else None
                )
                return JSONResponse(
                    {"error": exc.message, **exc.extra}, status_code=exc.status, headers=headers
                )

        return wrapped

    @_errors
    async def survey(request: Request) -> Response:
        await service.sync()
        return JSONResponse({**config.definition(), "version": service.version})

    @_errors
    async def collected(request: Request) -> Response:
        """The collected set or a delta, compressed. Public: no token (respondents need it)."""
        since = _int_param(request, "since", 0)
        encoding = request.query_params.get("encoding", "bits")
        if encoding not in ENCODINGS:
            raise HTTPError(400, f"encoding: one of {', '.join(ENCODINGS)}")
        version, data = await run_in_threadpool(service.snapshot, since, encoding)
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"X-Collected-Version": str(version)},
        )

    limiter = RateLimiter(config.rate_limit)
    proxies = tuple(ipaddress.ip_network(p) for p in config.trusted_proxies)

    @_errors
    async def submissions(request: Request) -> Response:
        peer = request.client.host if request.client is not None else "?"
        address = client_address(peer, request.headers.getlist("x-forwarded-for"), proxies)
        wait = limiter.hit(address)
        if wait:
            raise HTTPError(
                429,
                f"too many submissions from this address (at most {config.rate_limit} a "
                f"minute); try again in {int(wait) + 1} seconds",
                retry_after=int(wait) + 1,
            )
        token_hash = _invitation(request, config)
        doc = await _read_json(request, config.max_body_bytes)
        sid, version, codes = _parse_submission(doc, service)
        if token_hash is None:
            status, answer = await service.submit(sid, codes, version)
            return JSONResponse(answer, status_code=status)
        claimed = await run_in_threadpool(service.store.claim_invitation, token_hash)
        if not claimed and not await run_in_threadpool(service.known, sid):
            raise HTTPError(
                403,
                "this invitation was already used: each invitation answers the survey once",
                reason="invitation_used",
            )
        stored = False
        try:
            status, answer = await service.submit(sid, codes, version)
            stored = status == 201
        finally:
            if claimed and not stored:  # nothing stored under it: the invitation stays unused
                await run_in_threadpool(service.store.release_invitation, token_hash)
        return JSONResponse(answer, status_code=status)

    @_errors
    async def export(request: Request) -> Response:
        """The same multiset as ``/collected``, with labels (CSV or JSON), behind the token.

        It adds nothing that ``/collected`` and ``/survey`` do not give anyone: the token gates
        this endpoint, it does not make the collected set confidential.
        """
        _check_token(request, config.export_token)
        fmt = request.query_params.get("format", "csv")
        if fmt not in ("csv", "json"):
            raise HTTPError(400, "format: csv or json")
        version, frame, pairs = await run_in_threadpool(service.export)
        headers = {"X-Collected-Version": str(version)}
        if fmt == "json":
            attrs = service.survey.attributes
            body = {
                "version": version,
                "attributes": attrs,
                "pairs": [
                    {"tuple": dict(zip(attrs, labels, strict=True)), "count": n}
                    for labels, n in pairs
                ],
            }
            return JSONResponse(json.loads(json.dumps(body, default=str)), headers=headers)
        buf = io.StringIO()
        frame.to_csv(buf, index=False)
        return Response(buf.getvalue(), media_type="text/csv", headers=headers)

    @_errors
    async def summary(request: Request) -> Response:
        """Counts and the published distribution of each attribute, behind the export token."""
        _check_token(request, config.export_token)
        body = await run_in_threadpool(service.summary)
        return JSONResponse(body, headers={"X-Collected-Version": str(body["version"])})

    @_errors
    async def health(request: Request) -> Response:
        await service.sync()
        return JSONResponse({"status": "ok", "version": service.version})

    page = (STATIC / "index.html").read_text(encoding="utf-8")
    results_page = (STATIC / "results.html").read_text(encoding="utf-8")

    async def index(request: Request) -> Response:
        """The respondent's survey page (it loads ``/survey`` and ``/collected`` itself)."""
        return HTMLResponse(page, headers=PAGE_HEADERS)

    async def results(request: Request) -> Response:
        """The data user's page (it asks for the token and loads ``/summary`` itself)."""
        return HTMLResponse(results_page, headers=PAGE_HEADERS)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.store.close()

    app = Starlette(
        routes=[
            Route("/survey", survey, methods=["GET"]),
            Route("/collected", collected, methods=["GET"]),
            Route("/submissions", submissions, methods=["POST"]),
            Route("/export", export, methods=["GET"]),
            Route("/summary", summary, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
            Route("/", index, methods=["GET"]),
            Route("/results", results, methods=["GET"]),
            Mount("/static", app=_Static(directory=str(STATIC)), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.service = service
    return app
