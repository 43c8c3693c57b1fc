"""The survey file of a data collection (``microanon serve --config survey.yaml``).

Paths are relative to the file::

    schema:                         # quasi-identifiers in tuple order, one sensitive attribute
      age:        {role: quasi, hierarchy: hierarchies/age.csv}
      zip:        {role: quasi, hierarchy: {builder: nested, tree: {"*": {...}}}}
      disease:    {role: sensitive, hierarchy: hierarchies/disease.csv}
    weights:                        # optional leaf weights l(·) the adversary knows (default 1)
      disease: {Flu: 3, Cold: 1, ...}
    tau: 0.3                        # privacy threshold τ in (0, 1]; read as a decimal
    loss: paper                     # value loss: paper | normalized
    mode: exact                     # what clients run by default: exact | greedy
    storage: collected.sqlite       # SQLite file, or a postgresql://user@host/db URL
    durability: crash               # SQLite: crash (process crashes) | power (fsync each commit)
    conflicts: relevant             # 409 when a change can affect the respondent | any change
    export_token: env:MICROANON_EXPORT_TOKEN   # or a literal token (at least 16 characters)
    max_body_bytes: 16384           # larger request bodies get 413
    rate_limit: 30                  # submissions per minute and client address (0: no limit)
    trusted_proxies: [10.0.0.5]     # optional: reverse proxies whose X-Forwarded-For is believed
    title: Survey on work           # the survey page's heading (GET /)
    help:                           # optional help text per attribute, shown under its field
      age: Your age in years.
    invitations: tokens.txt         # optional: one invitation token a line; each submits once

Every taxonomy must be given in the file (an ARX CSV, a nested tree or label paths): the server
has no data to build one from. ``export_token`` may be omitted; the server then makes a random
one at start and prints it once.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...core.errors import HierarchyError, InputError
from ...core.files import read_yaml_file
from ...core.hierarchy import Hierarchy
from ...core.schema import Schema
from ...methods.collect import GTR_MODES, LOSS_VARIANTS, Survey, as_tau
from ..document_keys import check_document

#: The request header of a submission's invitation token (never in the URL or the body).
INVITATION_HEADER = "X-Invitation"

__all__ = [
    "INVITATION_HEADER",
    "ServiceConfig",
    "invitation_hash",
    "load_service_config",
    "parse_service_config",
]

_KEYS = {
    "schema", "weights", "tau", "loss", "mode", "storage", "durability", "conflicts",
    "export_token", "max_body_bytes", "rate_limit", "trusted_proxies", "title", "help",
    "invitations",
}  # fmt: skip
#: ``conflicts:`` values: 409 for changes that can affect the respondent, or for any change.
CONFLICT_POLICIES = ("relevant", "any")
#: ``durability:`` values of a SQLite storage.
DURABILITY = ("crash", "power")
#: Default limit on request bodies (a submission is a few hundred bytes).
MAX_BODY_BYTES = 16 * 1024
#: Default limit on submissions per minute from one client address (0 turns it off).
RATE_LIMIT = 0
_ENV_PREFIX = "env:"


@dataclass(frozen=True)
class ServiceConfig:
    """A validated survey file.

    Attributes
    ----------
    survey : Survey
        Attributes, taxonomies and leaf weights.
    tau : Fraction
        The privacy threshold, exactly.
    loss, mode : str
        The value loss and the clients' default GTR subroutine.
    storage : str
        ``sqlite:///absolute/path`` or a ``postgresql://`` URL.
    durability : {"crash", "power"}
        What an acknowledged submission survives (SQLite).
    conflicts : {"relevant", "any"}
        When a submission computed against an older version is sent back (409): when a tuple
        accepted since could enter the respondent's anonymous group, or after any change.
    export_token : str
        The bearer token of ``GET /export`` and ``GET /summary``. It gates them only: the set they
        serve is public at ``GET /collected`` (respondents need it), so the token keeps
        nothing confidential.
    token_generated : bool
        Whether the token was made at start (it is then printed once).
    max_body_bytes : int
    rate_limit : int
        Submissions accepted for checking per minute and client address (0: no limit); more
        get 429.
    trusted_proxies : tuple of str
        IP addresses or networks (``10.0.0.5``, ``10.0.0.0/24``) of reverse proxies: a request
        from one of them is counted under the address its ``X-Forwarded-For`` names. Empty (the
        default): that header is ignored and every request is counted under its peer address.
    title : str
        Heading of the survey page.
    help : dict of str to str
        Help text per attribute, shown under its field on the survey page.
    invitations : frozenset of str or None
        SHA-256 hashes (hex) of the invitation tokens of the ``invitations`` file, or None when
        the survey takes no invitations (anyone may submit). The tokens themselves are not kept.
    invitations_file : str or None
        That file (absolute path).
    """

    survey: Survey
    tau: Fraction
    loss: str = "paper"
    mode: str = "exact"
    storage: str = "sqlite:///collected.sqlite"
    durability: str = "crash"
    conflicts: str = "relevant"
    export_token: str = ""
    token_generated: bool = False
    max_body_bytes: int = MAX_BODY_BYTES
    rate_limit: int = RATE_LIMIT
    trusted_proxies: tuple[str, ...] = ()
    title: str = "Survey"
    help: Mapping[str, str] = field(default_factory=dict)
    invitations: frozenset[str] | None = None
    invitations_file: str | None = None

    def to_document(self) -> dict[str, Any]:
        """This configuration as a survey-file document (taxonomies inline as label paths)."""
        schema = {}
        for tx in self.survey.taxonomies:
            role = "sensitive" if tx.name == self.survey.sensitive else "quasi"
            schema[tx.name] = {"role": role, "hierarchy": _plain(tx.hierarchy.to_dict())}
        return {
            "schema": schema,
            "tau": f"{self.tau.numerator}/{self.tau.denominator}",
            "loss": self.loss,
            "mode": self.mode,
            "storage": self.storage,
            "durability": self.durability,
            "conflicts": self.conflicts,
            "export_token": self.export_token,
            "max_body_bytes": self.max_body_bytes,
            "rate_limit": self.rate_limit,
            "trusted_proxies": list(self.trusted_proxies),
            "title": self.title,
            "help": dict(self.help),
            **({"invitations": self.invitations_file} if self.invitations_file else {}),
        }

    def definition(self) -> dict[str, Any]:
        """What ``GET /survey`` answers: everything a client needs to run GTR."""
        return {
            **self.survey.to_dict(),
            "tau": f"{self.tau.numerator}/{self.tau.denominator}",
            "loss": self.loss,
            "mode": self.mode,
            "title": self.title,
            "help": dict(self.help),
            "invitations": self.invitations is not None,
        }


def load_service_config(path: str | os.PathLike[str]) -> ServiceConfig:
    """Read and validate a survey file (see the module docstring).

    Raises
    ------
    InputError
        Unreadable or invalid YAML, unknown keys, a bad τ, loss, mode, storage, token or limit;
        :class:`SchemaError` / :class:`HierarchyError` for the schema and the taxonomies.
    """
    path = Path(path)
    doc = read_yaml_file(path, "survey file")
    return parse_service_config(doc, base_dir=path.parent)


def parse_service_config(doc: Any, base_dir: str | os.PathLike[str] | None = None) -> ServiceConfig:
    """Validate a survey description already loaded as Python data."""
    doc = check_document(doc, _KEYS, ("schema", "tau"), "survey file")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    schema = Schema.from_dict(doc["schema"], base_dir=base)
    hierarchies = {}
    for name in [*schema.quasi, *schema.sensitive]:
        h = schema[name].hierarchy
        if not isinstance(h, Hierarchy):
            raise HierarchyError(
                f"column '{name}': a survey needs its taxonomy in the file (an ARX CSV, a nested "
                "tree or label paths); data-dependent builders have no data here"
            )
        hierarchies[name] = h
    weights = doc.get("weights") or {}
    if not isinstance(weights, Mapping):
        raise InputError("weights: must map attribute -> {value: weight}")
    for name, w in weights.items():
        if name not in hierarchies:
            raise InputError(f"weights: {name!r} is not a quasi-identifier or the sensitive one")
        if not isinstance(w, Mapping):
            raise InputError(f"weights: {name!r} must map each value to its weight")
        hierarchies[name] = hierarchies[name].with_weights(w)
    if len(schema.sensitive) != 1:
        raise InputError(
            "schema: a survey needs exactly one sensitive attribute, got "
            f"{len(schema.sensitive)} ({', '.join(schema.sensitive) or 'none'})"
        )
    survey = Survey(hierarchies, schema.quasi, schema.sensitive[0])
    loss = doc.get("loss", "paper")
    if loss not in LOSS_VARIANTS:
        raise InputError(f"loss: must be one of {', '.join(LOSS_VARIANTS)}, got {loss!r}")
    mode = doc.get("mode", "exact")
    if mode not in GTR_MODES:
        raise InputError(f"mode: must be one of {', '.join(GTR_MODES)}, got {mode!r}")
    durability = doc.get("durability", "crash")
    if durability not in DURABILITY:
        raise InputError(f"durability: one of {', '.join(DURABILITY)}, got {durability!r}")
    conflicts = doc.get("conflicts", "relevant")
    if conflicts not in CONFLICT_POLICIES:
        raise InputError(f"conflicts: one of {', '.join(CONFLICT_POLICIES)}, got {conflicts!r}")
    token, generated = _token(doc.get("export_token"))
    limit = doc.get("max_body_bytes", MAX_BODY_BYTES)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1024:
        raise InputError(f"max_body_bytes: must be an integer of at least 1024, got {limit!r}")
    rate = doc.get("rate_limit", RATE_LIMIT)
    if isinstance(rate, bool) or not isinstance(rate, int) or rate < 0:
        raise InputError(f"rate_limit: submissions per minute, an integer >= 0, got {rate!r}")
    title = doc.get("title", "Survey")
    if not isinstance(title, str) or not title.strip():
        raise InputError(f"title: a non-empty text, got {title!r}")
    help_text = doc.get("help") or {}
    if not isinstance(help_text, Mapping) or not all(
        isinstance(v, str) for v in help_text.values()
    ):
        raise InputError("help: must map attribute -> text")
    unknown_help = [k for k in help_text if k not in survey.attributes]
    if unknown_help:
        raise InputError(
            f"help: {', '.join(map(repr, unknown_help))} not an attribute of the survey "
            f"({', '.join(survey.attributes)})"
        )
    return ServiceConfig(
        survey=survey,
        tau=_tau(doc["tau"]),
        loss=loss,
        mode=mode,
        storage=storage_url(doc.get("storage", "collected.sqlite"), base),
        durability=durability,
        conflicts=conflicts,
        export_token=token,
        token_generated=generated,
        max_body_bytes=limit,
        rate_limit=rate,
        trusted_proxies=_trusted_proxies(doc.get("trusted_proxies")),
        title=title.strip(),
        help={str(k): v.strip() for k, v in help_text.items()},
        **_invitations(doc.get("invitations"), base),
    )


def _trusted_proxies(value: Any) -> tuple[str, ...]:
    """``trusted_proxies:``: IP addresses or networks, normalized (``10.0.0.5/32``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(
            f"trusted_proxies: a list of IP addresses or networks (e.g. [10.0.0.5]), got {value!r}"
        )
    out = []
    for item in value:
        try:
            out.append(str(ipaddress.ip_network(str(item).strip())))
        except ValueError:
            raise InputError(
                f"trusted_proxies: {item!r} is not an IP address or network "
                "(e.g. 10.0.0.5, 10.0.0.0/24 or ::1)"
            ) from None
    return tuple(out)


def invitation_hash(token: str) -> str:
    """The SHA-256 (hex) of an invitation token: what the server keeps and stores."""
    return hashlib.sha256(token.strip().encode("utf-8")).hexdigest()


def _invitations(value: Any, base: Path) -> dict[str, Any]:
    """``invitations:``: a file of tokens, one a line (blank lines and ``#`` comments skipped)."""
    if value is None:
        return {}
    if not isinstance(value, str) or not value.strip():
        raise InputError("invitations: must be the name of a file of tokens, one a line")
    path = Path(value)
    if not path.is_absolute():
        path = base / path
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"invitations: cannot read {path}: {exc.strerror}") from None
    tokens = [t.strip() for t in lines if t.strip() and not t.strip().startswith("#")]
    bad = [i for i, t in enumerate(tokens) if len(t) < 8 or len(t.split()) != 1]
    if bad:
        raise InputError(
            f"invitations: {path}: each token must be one word of at least 8 characters "
            f"(token {bad[0] + 1} is not)"
        )
    if not tokens:
        raise InputError(f"invitations: {path} holds no token")
    hashes = frozenset(invitation_hash(t) for t in tokens)
    if len(hashes) != len(tokens):
        raise InputError(f"invitations: {path} lists a token twice")
    return {"invitations": hashes, "invitations_file": str(path.resolve())}


def storage_url(value: Any, base: Path) -> str:
    """``sqlite:///absolute/path`` for a file name, or the ``postgresql://`` URL as given."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"storage: must be a file name or a postgresql:// URL, got {value!r}")
    value = value.strip()
    if value.startswith(("postgresql://", "postgres://")):
        return value
    if "://" in value and not value.startswith("sqlite:///"):
        raise InputError(
            f"storage: unsupported URL {value!r}; use a SQLite file name or a postgresql:// URL"
        )
    file = Path(value.removeprefix("sqlite:///"))
    if not file.is_absolute():
        file = base / file
    return f"sqlite:///{file.resolve()}"


def _tau(value: Any) -> Fraction:
    """τ from a number or a fraction written as text (``"3/10"``)."""
    if isinstance(value, str):
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError(
                f"tau: a number in (0, 1] or a fraction like 3/10, got {value!r}"
            ) from None
    return as_tau(value)


def _plain(obj: Any) -> Any:
    """YAML-safe types (label paths may hold numpy scalars)."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj.item() if hasattr(obj, "item") else obj


def _token(value: Any) -> tuple[str, bool]:
    if value is None:
        return secrets.token_urlsafe(24), True
    if not isinstance(value, str):
        raise InputError("export_token: must be a string, or env:VARIABLE")
    if value.startswith(_ENV_PREFIX):
        var = value[len(_ENV_PREFIX) :]
        token = os.environ.get(var)
        if not token:
            raise InputError(f"export_token: environment variable {var} is not set")
        value = token
    if len(value) < 16:
        raise InputError("export_token: use at least 16 characters")
    return value, False
