"""Which classes of a node the privacy models reject, and what stays valid for pruning.

Every model here is a per-class condition (:meth:`PrivacyModel.group_ok`); the records of a
class that fails any model are suppressed. Each model declares what the search needs about it
(:attr:`~microanon.models.PrivacyModel.monotone`, :meth:`~microanon.models.PrivacyModel.
class_bounds`, :meth:`~microanon.models.PrivacyModel.deficits`, ``compares_with_reference``,
``needs_population``), next to its definition; the search asks the model, never its type.
Three facts drive the pruning of the search:

* **Monotone under merging without suppression.** If two classes satisfy k-anonymity, any
  ℓ-diversity form, t-closeness or β-likeness (against a fixed reference distribution), or
  k-map, so does their union: sizes, distinct counts and population cells add up, entropy and
  the EMD to a fixed distribution are concave / convex in the class distribution, the largest
  count of a union is at most the sum of the parts' largest counts and the tail
  ``r_ℓ + ... + r_m`` at least the sum of theirs, and β-likeness caps each value's count at a
  fixed share of the class. So "every class passes" holds at every generalization of a node
  where it holds. Not so for δ-disclosure privacy and δ-presence with ``δ_min > 0`` (below).
* **Monotone under suppression.** For k-anonymity and distinct ℓ-diversity, a class that fails
  at a node is made of parts that all fail below it (a union smaller than k, or with fewer than
  ℓ values, has only such parts), so the suppressed records can only shrink up the lattice. The
  other forms and t-closeness lack this: a passing class merged with a failing one can fail.
* **Deficits.** Still, a failing class of those models keeps part of its records suppressed in
  every refinement (:func:`_deficits`), which bounds the suppression of every node below.

Every model contributes a necessary condition of the monotone kind, the *filter*: a class
smaller than ``min_size``, with fewer than ``min_distinct`` sensitive values or whose values
cover less than ``min_coverage`` of the reference distribution fails some model. k-anonymity
gives ``min_size = k`` and distinct ℓ-diversity ``min_distinct = ℓ``, exactly (the filter is then
the whole verdict); the other ℓ-diversity forms imply distinct ℓ-diversity (``exp(H) <= m``;
``r_1 <= n/ℓ`` needs ``m >= ℓ`` values; the recursive form needs ``r_ℓ``), so they give
``min_distinct = ⌈ℓ⌉`` (with the checks' 1e-12 tolerance). For t-closeness, with the equal ground
distance a class of ``n`` records is at least the total-variation distance between the reference
and its best ``n``-record rounding (largest remainders) away, and at least the reference's mass
outside its values; the ordered and hierarchical distances are at least the total variation
divided by ``m - 1`` and by the tree height. That gives ``min_size`` and ``min_coverage``.
β-likeness and δ-disclosure privacy cap each value's share in a class (``q <= a_v`` with ``a_v``
fixed per value: ``p (1 + bound)``, ``p e^δ``), so a class of ``n`` records needs
``Σ_v min(n, ⌊a_v n⌋) >= n``, which gives ``min_size``. k-map estimated from the sampling
fraction is k-anonymity with its derived threshold (``min_size``, exact). The records of classes
failing the filter are suppressed, and they only shrink up the lattice.

Models checked against a population (δ-presence, k-map with a population table) see the
population encoded with the table's hierarchies and rolled up to each node like the table
(:class:`Population`). k-map then joins the filter, exactly: a class with fewer than ``k`` people
is made of parts with fewer people still. δ-presence is monotone under merging only for its upper
bound (``n <= δ_max N`` adds up; the lower bound fails when a class absorbs population cells
with no record), so with ``δ_min > 0`` "every class passes" is **not** monotone up the lattice:
``monotone`` is then False, which turns off every pruning that needs it (upward tagging, the
``dominated`` tag, downward tagging of infeasible nodes without a deficit). The same holds for
δ-disclosure privacy, whose lower bound ``q > p e^-δ`` is broken by merging a class without the
value. Both keep valid deficits from their upper bounds (:func:`_deficits`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...core.errors import HierarchyError, InputError
from ...core.factorize import packed_key
from ...core.hierarchy import Hierarchy
from ...core.missing import MISSING_LABEL
from ...models import ClassBounds, Groups, PopulationModel, PrivacyModel, Verdict
from ...models.population import population_weights
from ._lattice_frequencies import FrequencySet, LevelMaps, frequency_set, group_keys, roll_up

__all__ = ["ModelSet", "Population"]

#: Slack of the implied bounds, so that rounding never makes them reject a passing class.
_SLACK = 1e-9
#: Population frequency sets kept for rolling up, at most this many rows (besides the bottom's).
_CACHE_ROWS = 1_000_000


def _population_of(model: PrivacyModel) -> bool:
    """Whether the search checks ``model`` against a population table."""
    return model.needs_population


class Population:
    """A population table encoded with the table's hierarchies (the frequency set of its leaves).

    :meth:`people` rolls it up to a node (from the smallest set already rolled up below it) and
    counts the people in each class of the node.
    """

    def __init__(self, bottom: FrequencySet, maps: LevelMaps) -> None:
        self.maps = maps
        self._cache = [bottom]
        self._cache_levels = np.asarray(bottom.levels, dtype=np.int64)[None, :]
        self._cache_rows = np.array([len(bottom)], dtype=np.int64)

    @classmethod
    def encode(
        cls,
        model: PopulationModel,
        quasi: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        maps: LevelMaps,
    ) -> Population:
        """Encode the model's population: every quasi-identifier value must be a leaf.

        Raises
        ------
        InputError
            If the model holds no population, or it lacks a quasi-identifier column, has missing
            values, or holds a value that is not a leaf of the column's hierarchy.
        """
        frame = model.require_population()
        weights = population_weights(frame, model.count)
        absent = [q for q in quasi if q not in frame.columns]
        if absent:
            raise InputError(
                f"population: quasi-identifier column(s) {', '.join(map(repr, absent))} missing; "
                f"its columns are {list(frame.columns)}"
            )
        codes = []
        for q, h in zip(quasi, hierarchies, strict=True):
            inverse, uniques = pd.factorize(frame[q])
            if np.any(inverse < 0):
                raise InputError(
                    f"population: column {q!r} has {int(np.sum(inverse < 0)):,} missing "
                    f"value(s); fill them (with {MISSING_LABEL}, as a record's missing value "
                    "is under missing: value), or leave those people out of the population"
                )
            try:
                leaf = h.leaf_index(uniques, column=q)
            except HierarchyError as exc:
                raise InputError(
                    f"population: {exc}; the hierarchies must cover the population too"
                ) from None
            codes.append(leaf[inverse])
        bottom, _ = frequency_set(
            np.zeros(len(quasi), dtype=np.int64),
            codes,
            [h.n_leaves for h in hierarchies],
            weights,
            None,
            0,
        )
        return cls(bottom, maps)

    def at(self, levels: np.ndarray) -> FrequencySet:
        """The population's frequency set at a node."""
        target = np.asarray(levels, dtype=np.int64)
        candidates = np.flatnonzero(np.all(self._cache_levels <= target, axis=1))
        source = self._cache[candidates[np.argmin(self._cache_rows[candidates])]]
        if np.array_equal(source.levels, target):
            return source
        rolled, _ = roll_up(source, target, self.maps, 0)
        if len(rolled) < len(source) and self._cache_rows[1:].sum() + len(rolled) <= _CACHE_ROWS:
            self._cache.append(rolled)
            self._cache_levels = np.vstack([self._cache_levels, target])
            self._cache_rows = np.append(self._cache_rows, len(rolled))
        return rolled

    def people(self, fs: FrequencySet) -> np.ndarray:
        """People of the population in each class of ``fs`` (same node)."""
        pop = self.at(fs.levels)
        first = np.flatnonzero(np.concatenate([[True], fs.cls[1:] != fs.cls[:-1]]))
        cards = [self.maps.card(i, int(lv)) for i, lv in enumerate(fs.levels)]
        joined = [np.concatenate([c[first], p]) for c, p in zip(fs.codes, pop.codes, strict=True)]
        key, space = packed_key(joined, cards)
        ids, n_ids, _ = group_keys(key, space)
        n = fs.n_classes
        per_key = np.bincount(ids[n:], weights=pop.counts, minlength=n_ids)
        return per_key[ids[:n]].astype(np.int64)


@dataclass
class ModelSet:
    """The requested models, split into the exact monotone filter and the rest.

    Attributes
    ----------
    models : list of PrivacyModel
    min_size, min_distinct : int
        The filter: a class with fewer records or sensitive values fails some model.
    others : list of PrivacyModel
        Models the filter does not decide exactly, checked with ``group_ok`` (or, for
        δ-presence, with its population).
    exact_filter : bool
        Whether the filter is the whole verdict (only k-anonymity, distinct ℓ-diversity and
        k-map): then the suppressed records shrink up the lattice.
    monotone : bool
        Whether "every class passes" is monotone up the lattice (see :func:`_monotone`; an
        unknown model disables that pruning).
    populations : dict
        The encoded population of each model checked against one, by ``id`` of the model
        (filled by :meth:`attach_populations`).
    follows_release : bool
        Whether the reference distribution of t-closeness, β-likeness and δ-disclosure privacy
        is that of the records kept (suppressed records removed from the release) rather than
        the original table's: see :meth:`failing`.
    star : bool
        Whether the suppressed records are published as one ``*`` class (star mode), which
        must pass the models too: see :meth:`star_fails`.
    """

    models: list[PrivacyModel]
    sensitive: str | None
    values: Sequence | None
    numeric: bool
    reference: np.ndarray | None
    min_size: int = 1
    min_distinct: int = 1
    min_coverage: float = 0.0
    min_people: dict[int, int] = field(default_factory=dict)
    others: list[PrivacyModel] = field(default_factory=list)
    exact_filter: bool = True
    monotone: bool = True
    populations: dict[int, Population] = field(default_factory=dict)
    follows_release: bool = False
    star: bool = False
    unknown_code: int | None = None

    @classmethod
    def build(
        cls,
        models: Sequence[PrivacyModel],
        sensitive: str | None,
        values: Sequence | None,
        numeric: bool,
        reference: np.ndarray | None,
        follows_release: bool = False,
        star: bool = False,
    ) -> ModelSet:
        """Split ``models``; ``reference`` holds the original table's sensitive counts.

        ``follows_release``: the suppressed records are removed from the release, so the models
        compared with a reference distribution are checked against the kept records' (see
        :meth:`failing`). ``star``: they are published as one ``*`` class instead (see
        :meth:`star_fails`).
        """
        # One Index of the sensitive values, shared by every class check's Groups.
        domain = values
        if values is not None and not isinstance(values, pd.Index):
            domain = pd.Index(list(values))
        out = cls(list(models), sensitive, domain, numeric, reference)
        out.follows_release = follows_release and any(m.compares_with_reference for m in models)
        out.star = star
        if domain is not None:
            unknown = np.flatnonzero(np.asarray(pd.isna(domain)))
            out.unknown_code = int(unknown[0]) if len(unknown) else None
        for model in models:
            out.monotone &= model.monotone
            if out.unknown_code is not None and model.compares_with_reference:
                bounds = ClassBounds()  # a class whose values are all unknown passes
            else:
                bounds = model.class_bounds(reference, numeric)
            out.min_size = max(out.min_size, bounds.min_size)
            out.min_distinct = max(out.min_distinct, bounds.min_distinct)
            out.min_coverage = max(out.min_coverage, bounds.min_coverage)
            if bounds.min_people:
                out.min_people[id(model)] = bounds.min_people
            if not bounds.exact:
                out.others.append(model)
                out.exact_filter = False
        return out

    def attach_populations(
        self,
        quasi: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        maps: LevelMaps,
        bottom: FrequencySet,
    ) -> None:
        """Encode the population of every model checked against one.

        Raises
        ------
        InputError
            If a population cannot be encoded (see :meth:`Population.encode`), or holds fewer
            people than the table has records with some combination of values (it must contain
            the table).
        """
        for model in self.models:
            if not _population_of(model):
                continue
            encoded = Population.encode(model, quasi, hierarchies, maps)
            short = int(np.count_nonzero(encoded.people(bottom) < bottom.sizes))
            if short:
                raise InputError(
                    f"population: {short} combination(s) of quasi-identifier values have more "
                    f"records in the table than people in the population of {model.name}; the "
                    "population must contain every record"
                )
            self.populations[id(model)] = encoded

    def feasibility_monotone(self, limit: int) -> bool:
        """Whether a node's feasibility (with at most ``limit`` records suppressed) holds at
        every node above a feasible one: when the filter decides everything, or when nothing
        may be suppressed and every model is monotone. Never for star mode's ``*`` class, which
        may pass below and fail above (10 suppressed records pass k = 5, 3 fail)."""
        if self.star and limit > 0:
            return False
        return self.exact_filter or (limit == 0 and self.monotone)

    def star_refused(self, fs: FrequencySet, fail: np.ndarray, limit: int) -> str | None:
        """In star mode, the model a node's ``*`` class fails (:meth:`star_fails` of the rows of
        its failing classes ``fail``); None outside star mode, when the node suppresses nothing
        or more than ``limit`` records (infeasible anyway), or when the class passes."""
        suppressed = int(fs.sizes[fail].sum())
        if not self.star or not 0 < suppressed <= limit:
            return None
        return self.star_fails(fail[fs.cls], fs.sa, fs.counts)

    def star_fails(
        self, starred: np.ndarray, sa: np.ndarray | None, counts: np.ndarray | None
    ) -> str | None:
        """The first model that the rows ``starred`` fail as one ``*`` class (its name and
        parameters, as :attr:`~microanon.models.Verdict.head` gives them), None when they pass
        every model: star mode publishes a node's suppressed records so.

        ``starred`` marks rows (of a table or a frequency set), ``sa`` their sensitive codes
        (None without a model on them), ``counts`` the records per row (None: one each). The
        class is checked by each model's plain definition against the original table's
        sensitive distribution, as star mode publishes every record, beside one group of the
        other rows (whose verdict is not read), so that the models see every record.
        """
        two = [(~np.asarray(starred, dtype=bool)).astype(np.int64)]
        if sa is None or self.sensitive is None:
            groups = Groups.from_codes(("class",), two, [2], weights=counts)
        else:
            groups = Groups.from_codes(
                ("class",),
                two,
                [2],
                sensitive=self.sensitive,
                sa_codes=np.asarray(sa, dtype=np.int64),
                values=self.values,
                numeric=self.numeric,
                weights=counts,
                reference=self.reference,
            )
        for model in self.models:
            if not model.group_ok(groups)[0]:
                return model.check(groups).head
        return None

    @property
    def min_class_size(self) -> int:
        """The fewest records a passing class holds (a class of unknown sensitive values
        passes the sensitive-value models whatever its size)."""
        if self.unknown_code is not None:
            return self.min_size
        return max(self.min_size, self.min_distinct)

    @property
    def needs_sensitive(self) -> bool:
        """Whether the frequency sets must keep the sensitive attribute."""
        return self.sensitive is not None and any(m.needs_sensitive for m in self.models)

    def filter(self, fs: FrequencySet) -> np.ndarray:
        """Classes failing the monotone filter."""
        fail = fs.sizes < self.min_size
        if self.min_distinct > 1:
            if self.unknown_code is None:
                fail |= fs.n_distinct < self.min_distinct
            else:  # distinct known values; a class of unknown values discloses none
                unknown = fs.sa == self.unknown_code
                known = fs.n_distinct - np.bincount(fs.cls[unknown], minlength=fs.n_classes)
                fail |= (known < self.min_distinct) & (known > 0)
        if self.min_coverage > 0.0:
            share = self.reference / self.reference.sum()
            covered = np.bincount(fs.cls, weights=share[fs.sa], minlength=fs.n_classes)
            fail |= covered < self.min_coverage - _SLACK
        for model_id, least in self.min_people.items():
            fail |= self.populations[model_id].people(fs) < least
        return fail

    def groups(
        self,
        fs: FrequencySet,
        rows: np.ndarray | slice,
        cls: np.ndarray,
        sizes: np.ndarray,
        reference: np.ndarray | None = None,
    ) -> Groups:
        """Frequency-set rows as :class:`Groups`, one group per class.

        ``cls`` numbers the classes of the rows ``0..len(sizes)-1`` in row order, ``sizes``
        holds their records; t-closeness and the like compare with ``reference`` (default: the
        original table's distribution). The rows of a frequency set with sensitive codes are
        the classes' distinct (class, sensitive code) pairs in order, so they are the groups'
        pairs as they are.
        """
        if fs.sa is None or self.sensitive is None:
            return Groups.from_codes(("class",), [cls], [len(sizes)], weights=fs.counts[rows])
        return Groups.from_sorted_pairs(
            cls,
            fs.sa[rows],
            fs.counts[rows],
            sizes,
            sensitive=self.sensitive,
            values=self.values,
            numeric=self.numeric,
            reference=self.reference if reference is None else reference,
        )

    def model_ok(self, model: PrivacyModel, fs: FrequencySet, groups: Groups) -> np.ndarray:
        """Which classes of ``fs`` pass ``model`` (``groups``: all of them, see :meth:`groups`)."""
        if _population_of(model):
            return model.class_ok(groups.sizes, self.populations[id(model)].people(fs))
        return model.group_ok(groups)

    def verdict(self, model: PrivacyModel, fs: FrequencySet, groups: Groups) -> Verdict:
        """The verdict of ``model`` on the classes of ``fs`` (``groups``: all of them)."""
        if _population_of(model):
            return model.verdict(groups, self.populations[id(model)].people(fs))
        return model.check(groups)

    def failing(
        self, fs: FrequencySet, fail_filter: np.ndarray, limit: int | None = None
    ) -> tuple[np.ndarray, int]:
        """Classes failing some model, and the suppression every node below must keep.

        With a ``limit`` (records that may be suppressed), the re-checks against the kept
        records' distribution (:meth:`_against_kept`) are skipped once the classes failing
        already hold more records: suppression only grows with them, so the node is infeasible
        either way, and ``fail`` is then a subset of the classes they would suppress.

        Returns
        -------
        fail : bool array over classes
            The filter's failures plus the classes the other models reject.
        deficit : int
            A lower bound of the records suppressed at every node below this one (this one
            included): the whole of each class failing the filter, and :func:`_deficits` of
            the others.
        """
        deficit = int(fs.sizes[fail_filter].sum())
        if not self.others:
            return fail_filter, deficit
        kept = ~fail_filter
        passing = kept.nonzero()[0]
        if len(passing) == 0:
            return fail_filter, deficit
        keep = kept[fs.cls].nonzero()[0]
        compact = kept.cumsum() - 1  # passing classes numbered 0..len(passing)-1
        groups = self.groups(fs, keep, compact[fs.cls[keep]], fs.sizes[passing])
        # Group g is passing class g (from_codes numbers groups in code order).
        people = {
            id(m): self.populations[id(m)].people(fs)[passing]
            for m in self.others
            if _population_of(m)
        }
        ok = self._others_ok(groups, people)
        fail = fail_filter.copy()
        fail[fs.cls[keep]] |= ~ok[groups.row_group]
        if not ok.all():
            need = np.zeros(groups.n_groups)
            for model in self.others:
                need = np.maximum(need, model.deficits(groups, people.get(id(model))))
            deficit += int(np.ceil(need[~ok] - _SLACK).clip(min=0).sum())
        over = limit is not None and int(fs.sizes[fail].sum()) > limit
        if self.follows_release and not over:
            fail = self._against_kept(fs, fail, people, passing)
        return fail, deficit

    def _others_ok(self, groups: Groups, people: dict[int, np.ndarray]) -> np.ndarray:
        """Which groups pass every model of :attr:`others`."""
        ok = np.ones(groups.n_groups, dtype=bool)
        for model in self.others:
            if _population_of(model):
                ok &= model.class_ok(groups.sizes, people[id(model)])
            else:
                ok &= model.group_ok(groups)
        return ok

    def _against_kept(
        self,
        fs: FrequencySet,
        fail: np.ndarray,
        people: dict[int, np.ndarray],
        passing: np.ndarray,
    ) -> np.ndarray:
        """Suppress further until the kept classes pass against the kept records' distribution.

        When suppressed records are removed, the published table's own sensitive distribution is
        the reference of t-closeness, β-likeness and δ-disclosure privacy, and it moves with every
        suppressed class. Starting from the classes failing against the original distribution
        (``fail``), the kept classes are re-checked against the distribution of the records still
        kept, and those failing join the suppressed, until none does. Every kept class then
        passes against the published distribution, the plain definition a re-check applies.
        Suppression only grows, so it ends (after at most one round per class), and it is
        never below the first round's: the filter and deficits, which bound that round, stay
        valid lower bounds for the search.
        """
        previous = self.reference
        while True:
            kept_rows = np.flatnonzero(~fail[fs.cls])
            if len(kept_rows) == 0:
                return fail
            reference = np.bincount(
                fs.sa[kept_rows], weights=fs.counts[kept_rows], minlength=len(previous)
            ).astype(np.int64)
            if np.array_equal(reference, previous):
                return fail
            previous = reference
            kept_classes = np.flatnonzero(~fail)
            compact = np.cumsum(~fail) - 1
            groups = self.groups(
                fs, kept_rows, compact[fs.cls[kept_rows]], fs.sizes[kept_classes], reference
            )
            at = np.searchsorted(passing, kept_classes)  # kept classes passed the filter
            ok = self._others_ok(groups, {m: p[at] for m, p in people.items()})
            if ok.all():
                return fail
            fail = fail.copy()
            fail[kept_classes[~ok]] = True
