from __future__ import annotations

import numpy as np
import pytest

from microanon import InputError, make_rng


def test_generator_passes_through_and_seeds_reproduce():
    g = np.random.default_rng(3)
    assert make_rng(g) is g
    assert make_rng(5).integers(0, 10**9) == make_rng(5).integers(0, 10**9)


def test_none_draws_fresh_entropy():
    assert make_rng(None).integers(0, 2**62) != make_rng(None).integers(0, 2**62)


@pytest.mark.parametrize("bad", [1.5, True, -1, "7", np.random.RandomState(0)])
def test_bad_rng_is_rejected(bad):
    with pytest.raises(InputError, match="rng"):
        make_rng(bad)
