"""The respondent's side of the collection service: fetch, compute GTR locally, submit.

:class:`CollectionClient` talks to a running service over HTTP. It keeps a local copy of the
collected set, refreshed incrementally (``GET /collected?since=V``), computes the respondent's
generalization with :func:`~microanon.methods.collect.gtr` on this machine and sends only that
tuple (values GTR keeps exactly as given, the others generalized), with the version it was
computed against. When the set changed in between
(409), it fetches the new tuples and recomputes; when the server is unreachable, it retries with
the same submission id until ``retry_for`` seconds have passed, so a submission that was stored
just before a crash is recognized as such (200, ``duplicate``) and never stored twice.
"""

from __future__ import annotations

import base64
import random
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import httpx
import numpy as np
import pandas as pd

from ...core.errors import InputError, MicroanonError
from ...methods.collect import CollectedSet, Submission, Survey, gtr
from .config import INVITATION_HEADER

__all__ = ["CollectionClient", "ServiceError", "SubmitResult"]


class ServiceError(MicroanonError):
    """The service answered with an error, or stayed unreachable."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def _reason(response: httpx.Response) -> str | None:
    """The machine-readable ``reason`` of an error answer, if it has one."""
    try:
        doc = response.json()
    except ValueError:
        return None
    return doc.get("reason") if isinstance(doc, dict) else None


@dataclass(frozen=True)
class SubmitResult:
    """What happened to one respondent.

    Attributes
    ----------
    status : {"accepted", "duplicate", "submitted before", "abstained"}
        Stored now; stored by an earlier attempt whose answer was lost; the ``submission_id``
        given was used by an earlier submission, computed against the set as it was then,
        which stands (nothing new is stored: a repeated command); nothing protects the
        respondent, so nothing was sent.
    submission : Submission or None
        The generalization sent (None when abstaining).
    version : int
        The version the submission got (the set's version when abstaining).
    attempts : int
        Number of times GTR ran (1 + the recomputations after 409).
    submission_id : str
    """

    status: str
    submission: Submission | None
    version: int
    attempts: int
    submission_id: str


class CollectionClient:
    """A respondent's client of the collection service at ``url``.

    Parameters
    ----------
    url : str
        Base URL of the service, e.g. ``http://127.0.0.1:8000``.
    timeout : float, default 10
        Seconds per HTTP request.
    retry_for : float, default 60
        How long to keep retrying while the service is unreachable (or answers 5xx).
    transport : httpx.BaseTransport, optional
        For tests (e.g. ``httpx.ASGITransport`` is async-only; use a real server).

    Examples
    --------
    >>> client = CollectionClient("http://127.0.0.1:8000")   # doctest: +SKIP
    >>> client.submit({"age": "25-29", "disease": "Flu"})      # doctest: +SKIP
    SubmitResult(status='accepted', ...)
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        retry_for: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InputError(f"server URL must start with http:// or https://, got {url!r}")
        self.url = url.rstrip("/")
        self.retry_for = float(retry_for)
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport)
        self._survey: Survey | None = None
        self.tau: Fraction | None = None
        self.loss = "paper"
        self.mode = "exact"
        self._collected: CollectedSet | None = None
        self._stale = True  # fetch before the next computation
        self.version = 0

    # ------------------------------------------------------------------ http
    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        deadline = time.monotonic() + self.retry_for
        pause = 0.05
        while True:
            try:
                response = self._http.request(method, path, **kwargs)
                if response.status_code < 500:
                    return response
                problem = f"{response.status_code} {response.text[:200]}"
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            if time.monotonic() >= deadline:
                raise ServiceError(f"{self.url}{path}: service unavailable ({problem})")
            time.sleep(pause)
            pause = min(pause * 2, 1.0)

    @staticmethod
    def _error(response: httpx.Response) -> ServiceError:
        try:
            message = response.json().get("error", response.text)
        except ValueError:
            message = response.text
        return ServiceError(f"{response.status_code}: {message}", response.status_code)

    # ------------------------------------------------------------------ survey and set
    @property
    def survey(self) -> Survey:
        """The survey (fetched once)."""
        if self._survey is None:
            response = self._request("GET", "/survey")
            if response.status_code != 200:
                raise self._error(response)
            doc = response.json()
            self._survey = Survey.from_dict(doc)
            self.tau = Fraction(doc["tau"])
            self.loss, self.mode = doc["loss"], doc["mode"]
        return self._survey

    def collected(self) -> CollectedSet:
        """The local copy of the collected set, brought up to date (only new tuples travel)."""
        survey = self.survey
        if self._collected is None:
            self._collected = CollectedSet(survey)
        response = self._request("GET", "/collected", params={"since": self.version})
        if response.status_code == 409:  # the server lost state we saw: start over
            self._collected, self.version = CollectedSet(survey), 0
            response = self._request("GET", "/collected", params={"since": 0})
        if response.status_code != 200:
            raise self._error(response)
        part = CollectedSet.from_bytes(survey, response.content)
        if len(part):
            self._collected.extend_codes(part.codes, part.counts)
        self.version = part.version
        self._stale = False
        return self._collected

    # ------------------------------------------------------------------ submitting
    def generalize(
        self, o: Sequence[Any] | Mapping[str, Any], mode: str | None = None
    ) -> Submission | None:
        """GTR for ``o`` against the local set, without submitting.

        The local set is refreshed first when it may be incomplete (nothing fetched yet, or one
        of our submissions was accepted after tuples we have not seen). Otherwise it may lag
        behind other clients' submissions; the server then answers 409 with what we missed
        when it matters (see :meth:`submit`).
        """
        collected = self.collected() if self._stale else self._collected
        return gtr(o, collected, self.survey, self.tau, mode=mode or self.mode, loss=self.loss)

    def submit(
        self,
        o: Sequence[Any] | Mapping[str, Any],
        *,
        mode: str | None = None,
        submission_id: str | None = None,
        max_attempts: int = 1000,
        invitation: str | None = None,
    ) -> SubmitResult:
        """Compute the respondent's generalization locally and submit it (or abstain).

        Parameters
        ----------
        o : sequence or mapping
            The respondent's own tuple (base values). It never leaves this machine.
        mode : {"exact", "greedy"}, optional
            GTR subroutine (default: the survey's).
        submission_id : str, optional
            Identifies this respondent's one submission across retries (default: a new UUID).
            Reusing the id of an interrupted call makes the call safe to repeat.
        max_attempts : int, default 1000
            Give up after this many recomputations caused by concurrent submissions.
        invitation : str, optional
            The respondent's invitation code, for a survey by invitation: sent in the
            ``X-Invitation`` header of the submission (never in its URL or body).

        Raises
        ------
        InputError
            ``o`` does not fit the survey (checked before anything is sent).
        ServiceError
            The service rejected the submission, or stayed unreachable for ``retry_for`` seconds.
        """
        survey = self.survey
        o_codes = survey.encode_base(o)  # bad input fails here, before any network traffic
        sid = submission_id or uuid.uuid4().hex
        t = self.generalize(o, mode)
        attempts = conflicts = 1
        while True:
            if t is None:
                return SubmitResult("abstained", None, self.version, attempts, sid)
            body = {"id": sid, "version": self.version, "tuple": _plain(t.as_dict())}
            headers = {} if invitation is None else {INVITATION_HEADER: invitation}
            response = self._request("POST", "/submissions", json=body, headers=headers)
            if response.status_code in (200, 201):
                doc = response.json()
                version = int(doc["version"])
                if doc["status"] == "accepted" and version == self.version + 1:
                    self._collected.add_codes(t.codes)  # nothing else arrived in between
                    self.version = version
                elif version > self.version:
                    self._stale = True
                return SubmitResult(doc["status"], t, version, attempts, sid)
            if response.status_code == 422 and submission_id is not None:
                if _reason(response) == "id_reused":  # this respondent's earlier submission
                    return SubmitResult("submitted before", None, self.version, attempts, sid)
            if response.status_code != 409:
                raise self._error(response)
            if attempts >= max_attempts:
                raise ServiceError(
                    f"gave up after {max_attempts} attempts: the collected set kept changing"
                )
            # Exponential back-off with jitter: fewer clients collide on the next version.
            time.sleep(random.uniform(0, min(0.25, 0.004 * 2 ** min(conflicts, 8))))  # noqa: S311
            conflicts += 1
            if self._apply_conflict(response.json(), o_codes):
                attempts += 1
                t = self.generalize(o, mode)

    def _apply_conflict(self, doc: dict[str, Any], o_codes: Any) -> bool:
        """Bring the local set up to date from a 409 answer.

        Returns whether the respondent's anonymous group may have changed, i.e. whether GTR must
        run again: when no new tuple generalizes ``o[QI]``, the group, hence the margins and the
        answer, are exactly as before (Theorem 1 of Zhang & Zhang, DaWaK 2008).
        """
        delta = doc.get("delta")
        if delta is None or int(doc.get("version", -1)) < self.version:
            self._collected, self.version = None, 0  # the server lost what we saw: start over
            self._stale = True
            return True
        part = CollectedSet.from_bytes(self.survey, base64.b64decode(delta))
        if self._collected is None:
            self._stale = True
            return True
        if len(part):
            self._collected.extend_codes(part.codes, part.counts)
        self.version = part.version
        cols = part.columns
        covers = np.ones(len(part), dtype=bool)
        for j, tx in enumerate(self.survey.quasi_taxonomies):
            covers &= tx.covers(cols[j], int(o_codes[j]))
        return bool(covers.any())

    def export(self, token: str) -> pd.DataFrame:
        """The collected multiset (labels and ``count``), for the data user holding ``token``.

        The same multiset as :meth:`collected` (which needs no token), decoded to labels.
        """
        response = self._request(
            "GET",
            "/export",
            params={"format": "json"},
            headers={"Authorization": f"Bearer {token}"},
        )
        if response.status_code != 200:
            raise self._error(response)
        doc = response.json()
        rows = [{**p["tuple"], "count": p["count"]} for p in doc["pairs"]]
        return pd.DataFrame(rows, columns=[*doc["attributes"], "count"])

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> CollectionClient:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """Labels as JSON scalars (numpy integers and floats to Python)."""
    out = {}
    for k, v in values.items():
        out[k] = v.item() if hasattr(v, "item") else v
    return out
