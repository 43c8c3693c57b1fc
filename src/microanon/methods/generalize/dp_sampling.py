"""SafePub: differential privacy by sampling, full-domain generalization and suppression.

Bild, Kuhn & Prasser, *SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy
Guarantees*, PoPETs 2018(1):67-87, built on Li, Qardaji & Su, *On Sampling, Anonymization, and
Differential Privacy Or, K-Anonymization Meets Differential Privacy*, ASIACCS 2012.

The mechanism. Every record is drawn independently with probability β; the sample is recoded to
one lattice node (one hierarchy level per quasi-identifier) and every equivalence class with fewer
than ``k`` records is suppressed (left out). Li, Qardaji & Su show that, for a node chosen
independently of the data, this satisfies (ε_anon, δ)-differential privacy when
``β = 1 - e^{-ε_anon}`` and ``k`` is large enough (:func:`dp_parameters`). SafePub chooses the node
with a differentially private search on the sample that spends ``ε_search`` more; the release is
(ε, δ)-differentially private with ``ε = ε_anon + ε_search``.

Deriving k (:func:`dp_parameters`). With ``γ = (e^ε - 1 + β) / e^ε`` and ``n_m = ⌈k/γ - 1⌉``,
Li et al.'s bound is ``δ(k) = max_{n ≥ n_m} Σ_{j > ⌊γn⌋}^{n} C(n, j) β^j (1-β)^{n-j}``: the binomial
tails are computed for every ``n`` up to the point where the Chernoff bound
``exp(-n (γ ln(γ/β) - (γ - β)))``, which bounds every later tail, falls below δ. Rounding goes to
the safe side (``⌊γn⌋`` and ``n_m`` rounded down, ``δ(k)`` compared with a relative margin), as
ARX's interval arithmetic does. The smallest ``k`` with ``δ(k) < δ`` is 61 for ε = 1, δ = 1e-5;
ARX's parameter calculation (``ParameterCalculation``) returns the next one, 62, and so does
microanon, so that both tools derive the same ``k`` (a larger ``k`` only lowers ``δ(k)``).

The search (SafePub's, as ARX runs it). The top of the lattice is the first pivot and the first
candidate. For ``steps`` steps: the predecessors of the pivot (one level lower in one
quasi-identifier) that are not candidates become candidates, the pivot stops being a candidate,
and the next pivot is drawn among the candidates with the exponential mechanism (McSherry &
Talwar, FOCS 2007): ``P(g) ∝ exp(ε_search/steps · score(g) / 2)``, the scores divided by their
sensitivity (:func:`exponential_probabilities`). The search stops early when no candidate is
left. With ``select="best"`` (the paper's and ARX's rule) the pivot with the highest score is
published (equal scores: the lower total level, then the earlier pivot); with ``select="last"``
the last pivot, so that the published node is a function of the mechanism's draws alone.

Scores (SafePub's, higher is better) are computed on the sample for all ``N`` input records, the
records not published (not drawn, or in a suppressed class) counting as suppressed; ``q``
quasi-identifiers, ``S`` records not published, ``c_k = k²/(k-1) + 1`` (5 when ``k = 1``):

- ``granularity`` (ARX's loss): ``-(Σ_kept Σ_QI share(v) + q·S) / (q·max(k-1, 1))``, ``share(v)``
  the fraction of the hierarchy's leaves under ``v``;
- ``intensity`` (ARX's precision): ``-Σ_QI (kept · level/height + S) / (q·max(k-1, 1))``;
- ``discernibility``: ``-(Σ_{kept classes} |E|² + N·S) / (N·c_k)``;
- ``entropy`` (ARX's non-uniform entropy score): ``-Σ_QI (Σ_v kept(v)² + N·root) / (N·q·c_k)``,
  ``kept(v)`` the kept records with value ``v`` below the root and ``root`` the records not
  published or whose cell is the root;
- ``group_size`` (ARX's AECS score): the number of kept classes, plus one when a record is not
  published.

Each is SafePub's score divided by its sensitivity: adding one record to the input, drawn or not,
changes it by at most 1 (the tests check this on random tables). SafePub's sixth score, for
statistical classification, is not implemented.

Randomness comes from ``rng``: the sample, the exponential mechanism's draws and the order of the
published rows, which is shuffled (in input order, rows could be matched to the records of an
attacker who knows the others, and the uncertainty of the sampling, which the guarantee rests on,
would be lost).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Choice, Integer, ListOf, Param, PerColumn, Real
from ...core.errors import InfeasibleError, InputError
from ...core.hierarchy import Hierarchy
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema
from ...models import KAnonymity
from ..registry import method
from ..release import generalized_release, prepare
from ._lattice_frequencies import FrequencySet, LevelMaps, frequency_set, roll_up
from .full_domain import publish_levels

__all__ = [
    "safepub",
    "safepub_search",
    "dp_parameters",
    "exponential_probabilities",
    "SCORES",
    "SELECTIONS",
]

#: Score functions of the search.
SCORES = ("granularity", "intensity", "discernibility", "entropy", "group_size")
#: Which pivot is published: the best-scoring one (SafePub, ARX) or the last one drawn.
SELECTIONS = ("best", "last")
#: ARX's default search budget (an absolute ε).
DEFAULT_EPSILON_SEARCH = 0.1
#: Default number of search steps (ARX makes the user choose; its tests use 10 and 100).
DEFAULT_STEPS = 100
#: Largest number of binomial tails the derivation of k computes.
_MAX_TERMS = 10_000_000
#: Factor that rounds ⌊γn⌋ and n_m down (the safe side).
_DOWN = 1.0 - 1e-12
#: Relative margin by which δ(k) must stay below δ.
_MARGIN = 1e-9
#: Scores within this relative distance count as equal when tracking the best pivot.
_TIE_RTOL = 1e-12


# ---------------------------------------------------------------------------------- parameters
def _real(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise InputError(f"{name} must be finite, got {value!r}")
    return out


def _epsilon(value: Any, name: str = "epsilon") -> float:
    eps = _real(value, name)
    if eps <= 0:
        raise InputError(f"{name} must be > 0, got {value!r}")
    return eps


def _delta(value: Any) -> float:
    d = _real(value, "delta")
    if not 0.0 < d < 1.0:
        raise InputError(f"delta must lie in (0, 1), got {value!r}")
    return d


def dp_parameters(epsilon: float, delta: float) -> tuple[int, float]:
    """The class size k and sampling probability β of (ε, δ)-differential privacy.

    Li, Qardaji & Su: drawing every record with probability ``β = 1 - e^{-ε}`` and then
    suppressing the classes of fewer than ``k`` records of a data-independent generalization
    satisfies (ε, δ)-differential privacy when ``δ(k) < δ`` (the bound in the module docstring).

    Parameters
    ----------
    epsilon : float
        The budget of the sampling and anonymization, ``ε_anon > 0`` (SafePub's search spends its
        own budget on top).
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    k : int
        One more than the smallest k with ``δ(k) < δ``, as ARX computes it (62 for ε = 1,
        δ = 1e-5; 114 for ε = 2).
    beta : float
        ``1 - e^{-ε}`` (0.632 for ε = 1, 0.865 for ε = 2).

    Raises
    ------
    InputError
        ε not > 0, δ outside (0, 1), or an ε whose bound needs more than ten million binomial
        tails (about ε < 1e-5, or ε > 6 where k would exceed any table).

    Examples
    --------
    >>> dp_parameters(1.0, 1e-5)[0]
    62
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    beta = -math.expm1(-eps)
    gamma = (math.exp(eps) - 1.0 + beta) / math.exp(eps)
    rate = gamma * math.log(gamma / beta) - (gamma - beta)
    n_max = math.ceil(math.log(1.0 / d) / rate) + 1 if rate > 0 else _MAX_TERMS + 1
    if n_max > _MAX_TERMS:
        raise InputError(
            f"epsilon = {eps:g} is out of reach for delta = {d:g}: deriving k would take more "
            f"than {_MAX_TERMS:,} binomial tails (below about 1e-5 the bound converges too "
            "slowly, above about 6 the sample is nearly the whole table and k explodes)"
        )
    n = np.arange(n_max + 1)
    from scipy.stats import binom

    tails = binom.sf(np.floor(n * gamma * _DOWN), n, beta)
    # worst[n]: the largest tail from n up to n_max; later tails are below delta (Chernoff).
    worst = np.maximum.accumulate(tails[::-1])[::-1]
    ks = np.arange(1, math.ceil(gamma * (n_max + 2)) + 2)
    n_min = np.maximum(np.ceil((ks / gamma - 1.0) * _DOWN), 0).astype(np.int64)
    delta_k = np.where(n_min <= n_max, worst[np.minimum(n_min, n_max)], 0.0)
    smallest = int(ks[np.argmax(delta_k * (1.0 + _MARGIN) < d)])
    return smallest + 1, beta


def exponential_probabilities(scores: Sequence[float] | np.ndarray, epsilon: float) -> np.ndarray:
    """The exponential mechanism's choice probabilities, ``∝ exp(ε · score / 2)``.

    Parameters
    ----------
    scores : 1-d array of float
        Scores already divided by their sensitivity (higher is better).
    epsilon : float
        The budget of this one choice.

    Returns
    -------
    numpy.ndarray
        Probabilities in the order of ``scores``, summing to 1.
    """
    z = 0.5 * float(epsilon) * np.asarray(scores, dtype=np.float64)
    w = np.exp(z - z.max())
    return w / w.sum()


# ---------------------------------------------------------------------------------- scores
class _Scores:
    """SafePub's score of any node on one sample (see the module docstring).

    Parameters
    ----------
    name : one of :data:`SCORES`
    hierarchies : the quasi-identifiers' hierarchies
    codes : leaf codes of the sampled records, one array per quasi-identifier
    n_records : N, the number of input records
    k : the class size below which classes are suppressed
    """

    def __init__(
        self,
        name: str,
        hierarchies: Sequence[Hierarchy],
        codes: Sequence[np.ndarray],
        n_records: int,
        k: int,
    ) -> None:
        self.name = name
        self.heights = [h.height for h in hierarchies]
        self.maps = LevelMaps(hierarchies)
        self.n = n_records
        self.k = k
        q = len(hierarchies)
        bottom = np.zeros(q, dtype=np.int64)
        counts = np.ones(len(codes[0]), dtype=np.int64)
        cards = [h.n_leaves for h in hierarchies]
        self.bottom, _ = frequency_set(bottom, list(codes), cards, counts, None, 0)
        # share[i][level][code]: fraction of the leaves of attribute i under the code.
        self.share = [
            [h.leaf_count(h.level_nodes(lv)) / h.n_leaves for lv in range(h.n_levels)]
            for h in hierarchies
        ]
        self.cells_norm = q * max(k - 1, 1)
        self.class_norm = k * k / (k - 1) + 1 if k > 1 else 5.0

    def frequency_set(self, levels: Sequence[int]) -> FrequencySet:
        """The classes of the sample at a node."""
        target = np.asarray(levels, dtype=np.int64)
        if not target.any():
            return self.bottom
        fs, _ = roll_up(self.bottom, target, self.maps, 0)
        return fs

    def __call__(self, levels: Sequence[int]) -> float:
        fs = self.frequency_set(levels)
        kept = fs.sizes >= self.k
        n_kept = int(fs.sizes[kept].sum())
        gone = self.n - n_kept
        q = len(levels)
        if self.name == "group_size":
            return float(np.count_nonzero(kept) + (gone > 0))
        if self.name == "discernibility":
            sizes = fs.sizes[kept]
            return -float(int(np.dot(sizes, sizes)) + self.n * gone) / (self.n * self.class_norm)
        if self.name == "intensity":
            ratio = sum(lv / h for lv, h in zip(levels, self.heights, strict=True) if h > 0)
            return -(n_kept * ratio + q * gone) / self.cells_norm
        weights = np.where(kept, fs.counts, 0)
        total = 0.0
        for i, lv in enumerate(levels):
            lv = int(lv)
            if self.name == "granularity":
                total += float(np.dot(weights, self.share[i][lv][fs.codes[i]]))
            elif lv == self.heights[i]:
                total += float(self.n) * self.n
            else:
                per_value = np.bincount(fs.codes[i], weights=weights)
                total += float(np.dot(per_value, per_value)) + float(self.n) * gone
        if self.name == "granularity":
            return -(total + q * gone) / self.cells_norm
        return -total / (self.n * q * self.class_norm)


# ---------------------------------------------------------------------------------- search
def safepub_search(
    score: Callable[[tuple[int, ...]], float],
    heights: Sequence[int],
    steps: int,
    epsilon_step: float,
    select: str,
    rng: np.random.Generator,
) -> tuple[tuple[int, ...], float, int]:
    """SafePub's differentially private walk down the lattice (see the module docstring).

    Parameters
    ----------
    score : the score of a level vector (higher is better, divided by its sensitivity)
    heights : the hierarchies' heights (the top node)
    steps : number of exponential-mechanism draws at most
    epsilon_step : the budget of each draw
    select : ``"best"`` or ``"last"``
    rng : the source of the draws

    Returns
    -------
    node : tuple of int
        The published level vector.
    value : float
        Its score.
    scored : int
        Number of nodes scored.
    """
    top = tuple(int(h) for h in heights)
    scores = {top: score(top)}
    candidates = {top: scores[top]}
    pivot = best = top
    for _ in range(steps):
        for i, level in enumerate(pivot):
            if level == 0:
                continue
            pred = (*pivot[:i], level - 1, *pivot[i + 1 :])
            if pred not in candidates:
                if pred not in scores:
                    scores[pred] = score(pred)
                candidates[pred] = scores[pred]
        del candidates[pivot]
        if not candidates:
            break
        nodes = list(candidates)
        p = exponential_probabilities(np.fromiter(candidates.values(), float), epsilon_step)
        pivot = nodes[int(rng.choice(len(nodes), p=p))]
        gain = scores[pivot] - scores[best]
        if gain > _TIE_RTOL * abs(scores[best]) or (
            abs(gain) <= _TIE_RTOL * abs(scores[best]) and sum(pivot) < sum(best)
        ):
            best = pivot
    chosen = best if select == "best" else pivot
    return chosen, scores[chosen], len(scores)


# ---------------------------------------------------------------------------------- release
def _choice(value: Any, name: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def _steps(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InputError(f"steps must be a whole number >= 1, got {value!r}")
    if int(value) < 1:
        raise InputError(f"steps must be >= 1, got {value!r}")
    return int(value)


def _fixed_levels(levels: Any, quasi: Sequence[str], heights: Sequence[int]) -> tuple[int, ...]:
    if not isinstance(levels, Mapping):
        raise InputError(
            f"levels must map every quasi-identifier to a level, got {type(levels).__name__}"
        )
    unknown = [str(c) for c in levels if c not in quasi]
    missing = [c for c in quasi if c not in levels]
    if unknown or missing:
        what = f"unknown {', '.join(unknown)}" if unknown else f"missing {', '.join(missing)}"
        raise InputError(f"levels must give one level per quasi-identifier: {what}")
    out = []
    for c, h in zip(quasi, heights, strict=True):
        lv = levels[c]
        if isinstance(lv, (bool, np.bool_)) or not isinstance(lv, numbers.Integral):
            raise InputError(f"levels: '{c}' must be a whole number, got {lv!r}")
        if not 0 <= int(lv) <= h:
            raise InputError(f"levels: '{c}' must lie in 0..{h}, got {lv!r}")
        out.append(int(lv))
    return tuple(out)


@method(
    "safepub",
    kind="generalized",
    publishes="A random sample, one hierarchy level per quasi-identifier, classes of fewer than k "
    "drawn records suppressed, rows shuffled. (epsilon, delta)-differential privacy of "
    "the mechanism; claims k-anonymity with the derived k.",
    help="Publishes a random sample of generalized records with a differential-privacy "
    "guarantee (epsilon, delta): the strongest promise, at a cost in detail.",
    params=(
        Param(
            "epsilon",
            "The whole privacy budget: smaller is more private (1 is a common choice).",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "delta",
            "The chance the guarantee may fail, between 0 and 1; choose it well below one "
            "over the number of records.",
            (Real(0, 1, closed="neither"),),
        ),
        Param(
            "epsilon_search",
            "The part of epsilon spent on choosing the levels (0.1 when not given); the rest "
            "protects the sample. Not with levels.",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "steps",
            "How many candidate levels the search draws (100 when not given). Not with levels.",
            (Integer(1),),
        ),
        Param(
            "score",
            "What the search prefers: granularity (the default), intensity, discernibility, "
            "entropy or group_size. Not with levels.",
            (Choice(("granularity", "intensity", "discernibility", "entropy", "group_size")),),
        ),
        Param(
            "select",
            "Publish the best-scoring levels the search met (best, the default) or the last "
            "ones. Not with levels.",
            (Choice(("best", "last")),),
        ),
        Param(
            "levels",
            "Levels fixed in advance, one per quasi-identifier (no search: the whole epsilon "
            "protects the sample).",
            (PerColumn(Integer(0)), ListOf(Integer(0))),
        ),
    ),
    in_memory_because="it samples and searches over the whole table",
)
def safepub(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    epsilon: float,
    delta: float,
    epsilon_search: float | None = None,
    steps: int | None = None,
    score: str | None = None,
    select: str | None = None,
    levels: Mapping[str, int] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Publish a differentially private sample of generalized records (SafePub).

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        Every published column must be a quasi-identifier with a hierarchy: the guarantee
        covers whole records, so nothing may be published unchanged (mark other columns
        ``identifier`` to leave them out).
    epsilon : float
        The whole privacy budget ε > 0.
    delta : float
        δ in ``(0, 1)``; choose it well below ``1 / N``.
    epsilon_search : float, optional
        The budget of the search, in ``(0, ε)``; default 0.1 (ARX's). The anonymization gets
        ``ε_anon = ε - ε_search``. Not allowed with ``levels``.
    steps : int, optional
        Exponential-mechanism draws of the search (default 100); each spends
        ``ε_search / steps``. Not allowed with ``levels``.
    score : {"granularity", "intensity", "discernibility", "entropy", "group_size"}, optional
        The score the search maximizes (module docstring); default ``"granularity"``. Not
        allowed with ``levels``.
    select : {"best", "last"}, optional
        Publish the best-scoring pivot (the paper's and ARX's rule, default) or the last one.
        Not allowed with ``levels``.
    levels : mapping of str to int, optional
        A generalization fixed in advance, one level per quasi-identifier: no search, and the
        whole ε goes to the anonymization (ARX's data-independent mode; Li, Qardaji & Su's
        mechanism).
    rng : numpy.random.Generator, int or None
        The randomness of the sample, the search and the row order (``None``: OS entropy);
        never recorded.

    Returns
    -------
    Release
        Kind ``"generalized"``, table ``data``: the drawn records of the classes with at least
        ``k`` of them, quasi-identifiers as level labels (strings), rows in random order.
        Claimed model: k-anonymity with the derived ``k`` (re-checked on the table);
        differential privacy is a property of the mechanism, stated by the parameters. Public
        metadata: ``parameters`` (ε, δ and the search settings, or the fixed ``levels``),
        ``epsilon_anon``, ``k``, ``beta`` and ``levels``. Internal: ``heights``, ``rows_in``,
        ``sampled`` (records drawn), ``suppressed`` (drawn records in classes of fewer than
        ``k``), ``score`` (name and value of the published node) and ``nodes_scored``.

    Raises
    ------
    InputError
        ε not > 0, δ outside (0, 1), ``epsilon_search`` outside (0, ε), ``steps`` < 1, an
        unknown ``score`` or ``select``, search settings together with ``levels``, bad
        ``levels``, a published column that is not a quasi-identifier, bad data or schema (a
        quasi-identifier without hierarchy is a ``SchemaError``).
    InfeasibleError
        No class holds ``k`` drawn records (an empty release; the error says no more than that
        empty output would).

    Examples
    --------
    >>> from microanon.datasets import load_arx_adult, adult_hierarchies
    >>> hs = adult_hierarchies()
    >>> hs["salary_class"] = hs["income"]
    >>> data = load_arx_adult()
    >>> schema = {c: {"role": "quasi", "hierarchy": hs[c]} for c in data.columns}
    >>> release = safepub(data, schema, epsilon=1.0, delta=1e-5)  # doctest: +SKIP
    >>> release.metadata["k"], round(release.metadata["beta"], 3)  # doctest: +SKIP
    (59, 0.593)
    """
    eps = _epsilon(epsilon)
    d = _delta(delta)
    schema = schema if isinstance(schema, Schema) else Schema.from_dict(schema)
    # (before the data are read: a column's missing values matter only once it may be published)
    others = [a.name for a in schema if a.role.published and a.name not in schema.quasi]
    if others:
        raise InputError(
            f"safepub publishes whole records, so every published column must be a "
            f"quasi-identifier with a hierarchy: {', '.join(others)} would be published unchanged "
            f"(give {'it' if len(others) == 1 else 'each of them'} the role quasi, or identifier "
            "to leave it out)"
        )
    table, _ = prepare(data, schema, need_hierarchies=True)
    quasi = table.schema.quasi
    hierarchies = [table.schema.hierarchy(c) for c in quasi]
    heights = [h.height for h in hierarchies]
    parameters: dict[str, Any] = {"epsilon": eps, "delta": d}
    if levels is not None:
        given = {
            "epsilon_search": epsilon_search,
            "steps": steps,
            "score": score,
            "select": select,
        }
        search_settings = [name for name, value in given.items() if value is not None]
        if search_settings:
            raise InputError(
                f"levels fixes the generalization in advance, so there is no search: leave out "
                f"{', '.join(search_settings)}"
            )
        fixed = _fixed_levels(levels, quasi, heights)
        eps_anon = eps
        parameters["levels"] = dict(zip(quasi, fixed, strict=True))
    else:
        eps_search = _epsilon(
            DEFAULT_EPSILON_SEARCH if epsilon_search is None else epsilon_search, "epsilon_search"
        )
        if eps_search >= eps:
            raise InputError(
                f"epsilon_search must be smaller than epsilon ({eps:g}), got {eps_search:g}"
            )
        n_steps = _steps(DEFAULT_STEPS if steps is None else steps)
        score_name = _choice("granularity" if score is None else score, "score", SCORES)
        selection = _choice("best" if select is None else select, "select", SELECTIONS)
        eps_anon = eps - eps_search
        parameters.update(
            epsilon_search=eps_search, steps=n_steps, score=score_name, select=selection
        )
    k, beta = dp_parameters(eps_anon, d)

    gen = make_rng(rng)
    sampled = gen.random(table.n_rows) < beta
    codes = [table.codes(c).astype(np.int64)[sampled] for c in quasi]
    internal: dict[str, Any] = {}
    if levels is None:
        scorer = _Scores(score_name, hierarchies, codes, table.n_rows, k)
        node, value, scored = safepub_search(
            scorer, heights, n_steps, eps_search / n_steps, selection, gen
        )
        internal = {"score": {"name": score_name, "value": value}, "nodes_scored": scored}
    else:
        node = fixed
    level_codes = [h.level_codes(lv)[c] for h, lv, c in zip(hierarchies, node, codes, strict=True)]
    cards = [len(h.level_labels(lv)) for h, lv in zip(hierarchies, node, strict=True)]
    ones = np.ones(len(level_codes[0]), dtype=np.int64)
    fs, row_of = frequency_set(np.asarray(node), level_codes, cards, ones, None, 0)
    kept = fs.sizes[fs.cls[row_of]] >= k
    publish = np.zeros(table.n_rows, dtype=bool)
    publish[np.flatnonzero(sampled)[kept]] = True
    if not publish.any():
        raise InfeasibleError(
            f"nothing to publish: no class holds k = {k} drawn records; SafePub needs classes "
            "much larger than k, so use a larger table, a coarser generalization or a larger "
            "epsilon"
        )
    chosen = dict(zip(quasi, node, strict=True))
    published = publish_levels(table, chosen, ~publish, "remove")
    published = published.iloc[gen.permutation(len(published))]
    return generalized_release(
        "safepub",
        published,
        table,
        parameters,
        [KAnonymity(k=k)],
        # The heights stay internal: a hierarchy built from the data has a height that depends
        # on the original values.
        public=("epsilon_anon", "k", "beta", "levels"),
        text=True,
        epsilon_anon=eps_anon,
        k=k,
        beta=beta,
        levels=chosen,
        heights=dict(zip(quasi, heights, strict=True)),
        sampled=int(sampled.sum()),
        suppressed=int(np.count_nonzero(~kept)),
        **internal,
    )
