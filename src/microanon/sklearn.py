"""A scikit-learn transformer that publishes its input: :class:`AnonymizingTransformer`.

It is an :class:`~microanon.methods.generalize.Anonymizer` behind scikit-learn's transformer
protocol, so that a model can be trained on what would be published, inside a ``Pipeline``::

    from sklearn.pipeline import make_pipeline
    pipe = make_pipeline(AnonymizingTransformer(schema, [{"k_anonymity": {"k": 5}}],
                                                params={"suppression": 0.05}),
                         OneHotEncoder(handle_unknown="ignore"), LogisticRegression())

scikit-learn is not a dependency of microanon, and this module does not import it: the protocol
(``fit``, ``transform``, ``fit_transform``, ``get_params``, ``set_params``,
``get_feature_names_out``, ``set_output``) is implemented here, and ``sklearn.base.clone``,
``Pipeline`` and ``ColumnTransformer`` work with it.

A transformer in a pipeline cannot drop rows (the labels ``y`` would no longer match), so the
records that full-domain generalization suppresses stay in the output with every
quasi-identifier ``"*"`` (``suppressed_rows="star"``, the default here; ``"remove"`` is refused).
Every ``transform`` enforces the models on the table it is given, as
:meth:`Anonymizer.transform` does: a batch whose classes would need more suppression than
allowed raises :class:`~microanon.InfeasibleError` — a batch smaller than ``k`` always does.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .core.errors import InputError
from .core.frames import as_pandas
from .core.schema import Schema
from .methods.generalize.anonymizer import Anonymizer

__all__ = ["AnonymizingTransformer"]

#: Output containers of :meth:`AnonymizingTransformer.set_output`.
OUTPUTS = ("default", "pandas")


class AnonymizingTransformer:
    """Publish ``X`` with a recoding fitted on the training table (scikit-learn transformer).

    Parameters
    ----------
    schema : Schema or mapping
        The columns of ``X`` (exactly these).
    models : model specification, optional
        The privacy models every published table satisfies (required for ``full_domain``).
    method : {"full_domain", "global_recode", "top_bottom_code"}, default "full_domain"
    params : mapping, optional
        The method's parameters (see :class:`~microanon.methods.generalize.Anonymizer`), e.g.
        ``{"suppression": 0.05, "metric": "lm"}``. ``suppressed_rows`` is ``"star"`` unless
        given, and must be.

    Attributes
    ----------
    anonymizer_ : Anonymizer
        The fitted anonymizer (after :meth:`fit`).
    feature_names_in_ : ndarray of str
        The columns of the table given to :meth:`fit`.
    n_features_in_ : int
    feature_names_out_ : ndarray of str
        The published columns: the schema's columns except identifiers, in schema order.

    Examples
    --------
    >>> from microanon.datasets import load_adult, adult_schema
    >>> adult = load_adult()
    >>> X, y = adult.drop(columns="income"), adult["income"]
    >>> schema = adult_schema(sensitive=None).select(list(X.columns))
    >>> t = AnonymizingTransformer(schema, [{"k_anonymity": {"k": 5}}],
    ...                            params={"suppression": 0.05}).set_output(transform="pandas")
    >>> published = t.fit_transform(X, y)  # doctest: +SKIP
    """

    def __init__(
        self,
        schema: Schema | Mapping[str, Any] | None = None,
        models: Any = None,
        method: str = "full_domain",
        params: Mapping[str, Any] | None = None,
    ) -> None:
        # scikit-learn's clone requires the arguments stored as given; they are checked by fit.
        self.schema = schema
        self.models = models
        self.method = method
        self.params = params

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments, by name (scikit-learn protocol).

        Parameters
        ----------
        deep : bool, default True
            Accepted for the protocol; no argument is itself an estimator.

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> AnonymizingTransformer:
        """Set constructor arguments by name (scikit-learn protocol); the fit is kept until the
        next :meth:`fit`.

        Returns
        -------
        AnonymizingTransformer
            ``self``.

        Raises
        ------
        InputError
            An argument the constructor does not take.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise InputError(
                    f"AnonymizingTransformer has no parameter {name!r}; it takes "
                    + ", ".join(valid)
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={v!r}" for k, v in self.get_params().items() if k != "schema" and v is not None
        )
        return f"AnonymizingTransformer({shown})"

    def set_output(self, *, transform: str | None = None) -> AnonymizingTransformer:
        """Choose what :meth:`transform` returns (scikit-learn protocol).

        Parameters
        ----------
        transform : {"default", "pandas"} or None
            ``"pandas"``: a DataFrame with the published columns and the input's index;
            ``"default"``: a NumPy array (object dtype); None: unchanged.

        Returns
        -------
        AnonymizingTransformer
            ``self``.
        """
        if transform is None:
            return self
        if transform not in OUTPUTS:
            raise InputError(
                f"set_output: transform must be one of {', '.join(OUTPUTS)}, got {transform!r}"
            )
        # The attribute scikit-learn's own set_output uses: clone copies it.
        self._sklearn_output_config = {"transform": transform}
        return self

    def __sklearn_tags__(self) -> Any:
        """The estimator tags of scikit-learn >= 1.6: a transformer that reads strings."""
        try:
            from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags
        except ImportError:  # scikit-learn < 1.6 asks no tags of this kind
            raise AttributeError("__sklearn_tags__ needs scikit-learn >= 1.6") from None
        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(preserves_dtype=[]),
            input_tags=InputTags(string=True, categorical=True, allow_nan=False),
        )

    # ------------------------------------------------------------------ fit / transform
    def _anonymizer(self) -> Anonymizer:
        if self.schema is None:
            raise InputError("AnonymizingTransformer needs a schema")
        if not isinstance(self.params or {}, Mapping):
            raise InputError(f"params must be a mapping, got {type(self.params).__name__}")
        params = dict(self.params or {})
        if self.method == "full_domain":
            params.setdefault("suppressed_rows", "star")
        anonymizer = Anonymizer(self.schema, self.models, self.method, **params)
        if not anonymizer.keeps_rows:
            raise InputError(
                "a transformer cannot drop rows (they would no longer match y): publish the "
                "suppressed records with suppressed_rows 'star'"
            )
        return anonymizer

    def fit(self, X: pd.DataFrame, y: Any = None) -> AnonymizingTransformer:
        """Fit the recoding on ``X`` (``y`` is ignored).

        Returns
        -------
        AnonymizingTransformer
            ``self``.

        Raises
        ------
        InputError
            Bad arguments; ``X`` not a DataFrame with exactly the schema's columns; bad data.
        InfeasibleError
            No recoding satisfies the models.
        """
        self._fit(X)
        return self

    def fit_transform(self, X: pd.DataFrame, y: Any = None) -> Any:
        """Fit on ``X`` and return its published table (``y`` is ignored).

        Returns
        -------
        DataFrame or ndarray
            See :meth:`set_output`.
        """
        X = as_pandas(X, "X")
        return self._output(X, self._fit(X))

    def _fit(self, X: pd.DataFrame) -> pd.DataFrame:
        X = as_pandas(X, "X")
        anonymizer = self._anonymizer()
        published = anonymizer.fit_transform(X).data
        self.anonymizer_ = anonymizer
        self.feature_names_in_ = np.asarray([str(c) for c in X.columns], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        self.feature_names_out_ = np.asarray([str(c) for c in published.columns], dtype=object)
        return published

    def transform(self, X: pd.DataFrame) -> Any:
        """Publish ``X`` with the fitted recoding, enforcing the models on it.

        Returns
        -------
        DataFrame or ndarray
            One row per row of ``X``, in order; see :meth:`set_output`.

        Raises
        ------
        InputError
            Not fitted; ``X`` not a DataFrame with exactly the schema's columns; a value the
            fitted hierarchies do not cover.
        InfeasibleError
            ``X`` needs more suppression than allowed.
        """
        if not hasattr(self, "anonymizer_"):
            raise InputError("this AnonymizingTransformer is not fitted: call fit(X) first")
        X = as_pandas(X, "X")
        return self._output(X, self.anonymizer_.transform(X).data)

    def _output(self, X: pd.DataFrame, published: pd.DataFrame) -> Any:
        if len(published) != len(X):
            raise InputError(
                f"{len(X) - len(published)} row(s) of X were dropped (a 'missing: drop' policy "
                "in the schema); a transformer must keep every row"
            )
        config = getattr(self, "_sklearn_output_config", {})
        if config.get("transform", "default") == "pandas":
            return published.set_axis(X.index, axis=0)
        return published.to_numpy(dtype=object)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The published columns (scikit-learn protocol).

        Parameters
        ----------
        input_features : array-like of str, optional
            Checked against the fitted input columns when given.

        Returns
        -------
        ndarray of str
        """
        if not hasattr(self, "feature_names_out_"):
            raise InputError("this AnonymizingTransformer is not fitted: call fit(X) first")
        if input_features is not None and [str(c) for c in input_features] != list(
            self.feature_names_in_
        ):
            raise InputError(
                "input_features do not match the columns the transformer was fitted on"
            )
        return self.feature_names_out_.copy()
