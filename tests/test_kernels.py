"""course_lib.kernels: Gram matrices against scikit-learn, the kernel trick against phi, the kernel perceptron."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import pairwise

import course_lib as cl
from course_lib.kernels import (
    kernel_matrix,
    kernel_perceptron,
    linear_kernel,
    polynomial_kernel,
    quadratic_features,
    rbf_kernel,
)

seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 12), m=st.integers(1, 12), d=st.integers(1, 6),
       degree=st.integers(1, 4), gamma=st.floats(0.01, 3.0), coef0=st.floats(0.0, 2.0))
def test_gram_matrices_match_scikit_learn(seed, n, m, d, degree, gamma, coef0):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    np.testing.assert_allclose(linear_kernel(X, Z), pairwise.linear_kernel(X, Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        polynomial_kernel(X, Z, degree=degree, gamma=gamma, coef0=coef0),
        pairwise.polynomial_kernel(X, Z, degree=degree, gamma=gamma, coef0=coef0), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rbf_kernel(X, Z, gamma=gamma), pairwise.rbf_kernel(X, Z, gamma=gamma),
                               rtol=1e-10, atol=1e-12)
    G = rbf_kernel(X, gamma=gamma)
    np.testing.assert_allclose(np.diag(G), 1.0)
    assert np.all(np.linalg.eigvalsh(G) > -1e-9), "a Gram matrix is positive semi-definite"


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 10), d=st.integers(1, 7))
def test_the_kernel_trick_equals_the_explicit_transform(seed, n, d):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(n, d)), rng.normal(size=(n + 1, d))
    P, Q = quadratic_features(X), quadratic_features(Z)
    assert P.shape[1] == 1 + 2 * d + d * (d - 1) // 2
    np.testing.assert_allclose(P @ Q.T, polynomial_kernel(X, Z, degree=2, gamma=1.0, coef0=1.0),
                               rtol=1e-10, atol=1e-10)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="gamma"):
        rbf_kernel([[1.0]], gamma=0.0)
    with pytest.raises(ValueError, match="degree"):
        polynomial_kernel([[1.0]], degree=0)
    with pytest.raises(ValueError, match="same number of features"):
        linear_kernel([[1.0, 2.0]], [[1.0]])
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_matrix([[1.0]], kernel="sigmoid")
    with pytest.raises(ValueError, match="Gram matrix of shape"):
        kernel_matrix([[1.0], [2.0]], kernel=lambda X, Z: np.ones(3))


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 40), d=st.integers(1, 4))
def test_linear_kernel_perceptron_makes_the_dual_perceptrons_updates(seed, n, d):
    X, y, _ = cl.make_separable(n, d, margin=0.05, rng=seed)
    dual = cl.perceptron_dual(X, y, max_updates=2000)
    kp = kernel_perceptron(X, y, kernel="linear", max_updates=2000)
    assert kp.n_updates == dual.n_updates and kp.halted == dual.halted
    np.testing.assert_array_equal(kp.alpha, dual.alpha)
    assert kp.b == pytest.approx(dual.b, rel=1e-9, abs=1e-9)


def test_kernel_perceptron_separates_two_circles_only_with_a_kernel():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(120, 2))
    r = np.linalg.norm(X, axis=1)
    keep = np.abs(r - 0.6) > 0.1  # a ring-shaped gap: separable by a circle, not by a line
    X, y = X[keep], np.where(r[keep] < 0.6, 1.0, -1.0)
    lin = kernel_perceptron(X, y, kernel="linear", max_updates=3000)
    quad = kernel_perceptron(X, y, kernel="poly", degree=2, max_updates=None)
    assert not lin.halted
    assert quad.halted and np.array_equal(quad.predict(X), y)
    rbf = kernel_perceptron(X, y, kernel="rbf", gamma=5.0, max_updates=None)
    assert rbf.halted and np.array_equal(rbf.predict(X), y)


def test_random_cycle_depends_on_rng_and_is_reproducible():
    X, y, _ = cl.make_separable(60, 2, margin=0.02, rng=1)
    a = kernel_perceptron(X, y, kernel="rbf", cycle="random", rng=5, max_updates=None)
    b = kernel_perceptron(X, y, kernel="rbf", cycle="random", rng=5, max_updates=None)
    c = kernel_perceptron(X, y, kernel="rbf", cycle="random", rng=6, max_updates=None)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert not np.array_equal(a.alpha, c.alpha)
    assert a.halted and c.halted
