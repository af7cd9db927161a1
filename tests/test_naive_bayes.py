"""course_lib.naive_bayes against scikit-learn's GaussianNB, BernoulliNB and MultinomialNB, and by properties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

import course_lib as cl
from course_lib.naive_bayes import fit_bernoulli_nb, fit_gaussian_nb, fit_multinomial_nb

seeds = st.integers(0, 2**32 - 1)


def assert_same_predictions(ours, ref, Q):
    """The same class wherever the two largest posteriors are not tied to rounding."""
    lp = np.sort(ref.predict_log_proba(Q), axis=1)
    clear = lp[:, -1] - lp[:, -2] > 1e-9
    np.testing.assert_array_equal(ours.predict(Q)[clear], ref.predict(Q)[clear])


def labels(rng, n, classes):
    """n labels from ``classes`` with every class present."""
    y = rng.choice(classes, size=n)
    y[: len(classes)] = classes
    return rng.permutation(y)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(6, 60), d=st.integers(1, 8), classes=st.sampled_from([(-1, 1), (0, 1, 2, 3)]),
       scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_gaussian_matches_scikit_learn(seed, n, d, classes, scale):
    rng = np.random.default_rng(seed)
    y = labels(rng, n, np.array(classes))
    X = scale * (rng.normal(size=(n, d)) + y[:, None])
    Q = scale * rng.normal(size=(25, d)) * 2
    ours, ref = fit_gaussian_nb(X, y), GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.params["mean"], ref.theta_, rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(ours.params["var"], ref.var_, rtol=1e-7)
    np.testing.assert_allclose(np.exp(ours.log_prior), ref.class_prior_)
    np.testing.assert_allclose(ours.predict_log_proba(Q), ref.predict_log_proba(Q), rtol=1e-7, atol=1e-7)
    assert_same_predictions(ours, ref, Q)
    np.testing.assert_array_equal(ours.classes, ref.classes_)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(4, 60), d=st.integers(1, 12), alpha=st.sampled_from([0.01, 0.5, 1.0, 3.0]),
       classes=st.sampled_from([(-1, 1), (0, 1, 2)]))
def test_bernoulli_matches_scikit_learn(seed, n, d, alpha, classes):
    rng = np.random.default_rng(seed)
    y = labels(rng, n, np.array(classes))
    X = (rng.random((n, d)) < rng.uniform(0.1, 0.9, size=d)).astype(float)
    Q = (rng.random((30, d)) < 0.5).astype(float)
    ours, ref = fit_bernoulli_nb(X, y, alpha=alpha), BernoulliNB(alpha=alpha, binarize=None).fit(X, y)
    np.testing.assert_allclose(ours.params["log_p"], ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(Q), ref.predict_log_proba(Q), rtol=1e-9, atol=1e-10)
    assert_same_predictions(ours, ref, Q)
    # a threshold applied to the training data is applied to every later input too
    G = rng.normal(size=(n, d))
    ours_t, ref_t = fit_bernoulli_nb(G, y, alpha=alpha, binarize=0.2), BernoulliNB(alpha=alpha, binarize=0.2).fit(G, y)
    R = rng.normal(size=(30, d))
    np.testing.assert_allclose(ours_t.predict_log_proba(R), ref_t.predict_log_proba(R), rtol=1e-9, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(4, 60), d=st.integers(2, 30), alpha=st.sampled_from([0.01, 0.5, 1.0, 3.0]))
def test_multinomial_matches_scikit_learn(seed, n, d, alpha):
    rng = np.random.default_rng(seed)
    y = labels(rng, n, np.array(["ham", "spam"]))
    rates = rng.gamma(0.5, size=(2, d))
    X = rng.poisson(rates[(y == "spam").astype(int)] * 3).astype(float)
    Q = rng.poisson(rates.mean(axis=0) * 3, size=(30, d)).astype(float)
    ours, ref = fit_multinomial_nb(X, y, alpha=alpha), MultinomialNB(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(ours.params["log_theta"], ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(Q), ref.predict_log_proba(Q), rtol=1e-9, atol=1e-10)
    assert_same_predictions(ours, ref, Q)


def test_log_probabilities_survive_where_the_product_of_probabilities_underflows():
    # 2,000 words, each with probability about 1/2000: the product of a message's word
    # probabilities is far below the smallest float, the sum of their logarithms is not
    rng = np.random.default_rng(4)
    d = 2000
    y = np.repeat([0, 1], 50)
    X = rng.poisson(np.where(y[:, None] == 1, 0.6, 0.4), size=(100, d)).astype(float)
    nb = fit_multinomial_nb(X, y)
    message = X[:1]
    theta = np.exp(nb.params["log_theta"])
    assert np.prod(theta[0] ** message[0]) == 0.0                 # underflow
    proba = nb.predict_proba(message)
    assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(nb.predict_log_proba(message), MultinomialNB().fit(X, y).predict_log_proba(message),
                               rtol=1e-9)


def test_without_smoothing_a_value_never_seen_in_a_class_rules_it_out():
    X = np.array([[1, 0, 2], [2, 0, 1], [0, 3, 1], [0, 2, 0]], float)
    y = np.array([1, 1, -1, -1])
    message = [[1, 1, 0]]                  # word 0 never occurs in class -1, word 1 never in class +1
    raw = fit_multinomial_nb(X, y, alpha=0.0)
    assert np.all(raw.joint_log_likelihood(message) == -np.inf)
    assert np.all(np.isnan(raw.predict_proba(message)))           # no class is possible at all
    assert raw.predict_proba([[2, 0, 1]])[0].tolist() == [0.0, 1.0]  # one unseen word decides alone
    smooth = fit_multinomial_nb(X, y, alpha=1.0)
    assert np.all(np.isfinite(smooth.joint_log_likelihood(message)))
    bern = fit_bernoulli_nb((X > 0).astype(float), y, alpha=0.0)
    assert bern.joint_log_likelihood([[1, 0, 1]])[0, 0] == -np.inf and np.isfinite(bern.joint_log_likelihood([[0, 1, 1]])[0, 0])


def test_the_posterior_is_bayes_rule_with_the_product_of_the_one_feature_laws():
    """Independent of the implementation: P(y | x) from the fitted laws by hand (scipy.stats)."""
    from scipy.stats import norm

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 3)) + y[:, None]
    nb = fit_gaussian_nb(X, y, var_smoothing=0.0)
    x = rng.normal(size=3)
    joint = np.array([np.mean(y == c) * np.prod(norm.pdf(x, X[y == c].mean(0), X[y == c].std(0))) for c in range(3)])
    np.testing.assert_allclose(nb.predict_proba([x])[0], joint / joint.sum(), rtol=1e-10)


@pytest.mark.parametrize("call, message", [
    (lambda: fit_gaussian_nb([[0.0], [1.0]], [1, 1]), "at least two classes"),
    (lambda: fit_gaussian_nb([[0.0], [1.0]], [1, 2, 3]), "one label per row"),
    (lambda: fit_bernoulli_nb([[0.5], [1.0]], [1, 2]), "binary features"),
    (lambda: fit_bernoulli_nb([[0.0], [1.0]], [1, 2], alpha=-1), "alpha must be >= 0"),
    (lambda: fit_multinomial_nb([[-1.0], [1.0]], [1, 2]), "counts"),
    (lambda: fit_gaussian_nb([[0.0], [1.0]], [1, 2]).predict([[0.0, 1.0]]), "X must have 1 columns"),
    (lambda: fit_gaussian_nb([[np.nan], [1.0]], [1, 2]), "NaN"),
])
def test_bad_inputs_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_top_level_names():
    assert cl.fit_gaussian_nb is fit_gaussian_nb and cl.fit_bernoulli_nb is fit_bernoulli_nb
    assert cl.fit_multinomial_nb is fit_multinomial_nb


def test_bag_of_words_counts_as_scikit_learn_does():
    from sklearn.feature_extraction.text import CountVectorizer

    messages, labels = cl.spam_examples()
    counts, vocabulary = cl.bag_of_words(messages)
    ref = CountVectorizer(token_pattern=r"[a-z0-9]+").fit(messages)
    assert vocabulary == list(ref.get_feature_names_out())
    np.testing.assert_array_equal(counts, ref.transform(messages).toarray())
    test_counts, _ = cl.bag_of_words(["FREE prize, unseenword!"], vocabulary)
    assert test_counts.sum() == 2 and test_counts[0, vocabulary.index("free")] == 1
    assert len(messages) == 40 and set(labels) == {1.0, -1.0}
    with pytest.raises(ValueError, match="list of strings"):
        cl.bag_of_words("one message")
