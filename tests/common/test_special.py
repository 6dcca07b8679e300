"""``ntpcheck.common.special`` (plain-numpy logsumexp, softmax, log_softmax; issue 43) against scipy.special."""

import numpy as np
import scipy.special as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from ntpcheck.common.special import log_softmax, logsumexp, softmax

FLOATS = st.one_of(st.floats(-800, 800), st.just(-np.inf))  # -inf: a masked-out logit, as the callers use it


@settings(max_examples=300, deadline=None)
@given(arrays(float, array_shapes(min_dims=1, max_dims=3, max_side=5), elements=FLOATS), st.data())
def test_equal_to_scipy(a, data):
    axis = data.draw(st.one_of(st.none(), st.integers(0, a.ndim - 1)))
    with np.errstate(all="ignore"):
        got, want = logsumexp(a, axis=axis), sp.logsumexp(a, axis=axis)
        assert np.shape(got) == np.shape(want)
        # The same formula (largest term as log1p's 1): equal to rounding, infinities alike.
        assert np.allclose(got, want, rtol=4e-16, atol=0, equal_nan=True) or np.array_equal(got, want, equal_nan=True)
        assert np.array_equal(softmax(a, axis=axis), sp.softmax(a, axis=axis), equal_nan=True)
        assert np.allclose(log_softmax(a, axis=axis), sp.log_softmax(a, axis=axis), rtol=1e-15, atol=1e-13, equal_nan=True)


def test_accurate_where_every_other_term_is_tiny():
    """``log(e^0 + e^-40) = log1p(e^-40)``: a plain ``log(sum)`` would return 0 (1 + 4e-18 rounds to 1)."""
    assert logsumexp(np.array([0.0, -40.0])) == np.log1p(np.exp(-40.0)) > 0
