"""course_lib.neighbors: k-NN against scikit-learn's KNeighborsClassifier, distances against SciPy."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import distance
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from course_lib.neighbors import fit_standardizer, knn_predict, pairwise_distances

seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(1, 15), m=st.integers(1, 15), d=st.integers(1, 5))
def test_distances_match_scipy(seed, n, m, d):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    np.testing.assert_allclose(pairwise_distances(X, Z), distance.cdist(X, Z), atol=1e-9)
    B, C = rng.integers(0, 2, size=(n, d)), rng.integers(0, 2, size=(m, d))
    np.testing.assert_allclose(pairwise_distances(B, C, metric="hamming"), d * distance.cdist(B, C, "hamming"))
    A = rng.normal(size=(d, d))
    VI = A @ A.T + d * np.eye(d)
    np.testing.assert_allclose(pairwise_distances(X, Z, metric="mahalanobis", VI=VI),
                               distance.cdist(X, Z, "mahalanobis", VI=VI), atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(3, 60), d=st.integers(1, 4), k=st.sampled_from([1, 3, 5, 7]),
       classes=st.sampled_from([2, 3, 10]))
def test_knn_matches_scikit_learn_where_the_vote_is_not_tied(seed, n, d, k, classes):
    rng = np.random.default_rng(seed)
    X, Xq = rng.normal(size=(n, d)), rng.normal(size=(40, d))
    y = rng.integers(0, classes, size=n).astype(float)
    k = min(k, n)
    ours = knn_predict(X, y, Xq, k=k)
    ref = KNeighborsClassifier(n_neighbors=k, algorithm="brute").fit(X, y)
    votes = np.stack([(y[ref.kneighbors(Xq, return_distance=False)] == c).sum(axis=1) for c in np.unique(y)], axis=1)
    untied = (np.sort(votes, axis=1)[:, -1] > (np.sort(votes, axis=1)[:, -2] if votes.shape[1] > 1 else -1))
    np.testing.assert_array_equal(ours[untied], ref.predict(Xq)[untied])


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(3, 40), d=st.integers(2, 4), k=st.sampled_from([1, 3, 5]))
def test_mahalanobis_knn_matches_scikit_learn(seed, n, d, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + d + 2, d)) @ rng.normal(size=(d, d))
    y = np.where(rng.normal(size=len(X)) > 0, 1.0, -1.0)
    Xq = rng.normal(size=(30, d))
    VI = np.linalg.inv(np.cov(X, rowvar=False))
    ref = KNeighborsClassifier(n_neighbors=k, algorithm="brute", metric="mahalanobis",
                               metric_params={"VI": VI}).fit(X, y)
    np.testing.assert_array_equal(knn_predict(X, y, Xq, k=k, metric="mahalanobis"), ref.predict(Xq))


def test_ties_go_to_the_nearest_neighbours_label():
    X = [[0.0], [1.0], [3.0], [4.0]]
    y = [1, -1, -1, 1]
    # k = 2 at 0.4: one vote each; the nearest (0.0, label +1) decides
    assert knn_predict(X, y, [[0.4]], k=2).tolist() == [1.0]
    # at 0.6 the nearest is 1.0 (label -1)
    assert knn_predict(X, y, [[0.6]], k=2).tolist() == [-1.0]
    # four neighbours, two votes each: still the nearest
    assert knn_predict(X, y, [[3.9]], k=4).tolist() == [1.0]


def test_one_nearest_neighbour_reproduces_the_training_labels_and_voronoi_cells():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(25, 2))
    y = rng.choice([-1.0, 1.0], size=25)
    np.testing.assert_array_equal(knn_predict(X, y, X, k=1), y)
    grid = rng.uniform(size=(500, 2))
    owner = np.argmin(((grid[:, None, :] - X[None]) ** 2).sum(-1), axis=1)  # the Voronoi cell of each point
    np.testing.assert_array_equal(knn_predict(X, y, grid, k=1), y[owner])


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 30), d=st.integers(1, 4))
def test_standardizer_matches_scikit_learn_and_uses_training_statistics_only(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=5, scale=rng.uniform(0.1, 10, size=d), size=(n, d))
    T = rng.normal(size=(7, d))
    st_ = fit_standardizer(X)
    ref = StandardScaler().fit(X)
    np.testing.assert_allclose(st_.transform(T), ref.transform(T), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(fit_standardizer(X).transform(X).mean(axis=0), 0.0, atol=1e-9)


def test_standardising_changes_who_the_neighbours_are():
    # feature 2 is noise on a scale 1000 times larger than feature 1, which carries the label
    rng = np.random.default_rng(1)
    x1 = rng.uniform(-1, 1, size=200)
    X = np.c_[x1, 1000 * rng.normal(size=200)]
    y = np.where(x1 > 0, 1.0, -1.0)
    Xtr, ytr, Xte, yte = X[:150], y[:150], X[150:], y[150:]
    raw = np.mean(knn_predict(Xtr, ytr, Xte, k=5) != yte)
    st_ = fit_standardizer(Xtr)
    scaled = np.mean(knn_predict(st_.transform(Xtr), ytr, st_.transform(Xte), k=5) != yte)
    assert raw > 0.3 and scaled < raw


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="k must be at most"):
        knn_predict([[0.0]], [1], [[0.0]], k=2)
    with pytest.raises(ValueError, match="k must be at least 1"):
        knn_predict([[0.0]], [1], [[0.0]], k=0)
    with pytest.raises(ValueError, match="metric must be one of"):
        knn_predict([[0.0]], [1], [[0.0]], metric="cosine")
    with pytest.raises(ValueError, match="y_train must have length 1"):
        knn_predict([[0.0]], [1, 2], [[0.0]])
    with pytest.raises(ValueError, match="VI"):
        pairwise_distances([[0.0]], [[1.0]], metric="mahalanobis")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 30), st.integers(1, 20))
def test_nearest_neighbours_for_k_begin_with_those_for_smaller_k_and_vote_as_knn_predict(seed, n_train, n_query):
    from course_lib.neighbors import majority_vote, nearest_neighbours

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n_train, 2)).astype(float)  # many equal distances: the tie rules matter
    y = rng.choice([-1.0, 1.0, 2.0], size=n_train)
    Q = rng.integers(0, 4, size=(n_query, 2)).astype(float)
    full = nearest_neighbours(X, Q, k=n_train)
    D = pairwise_distances(Q, X)
    np.testing.assert_array_equal(full, np.argsort(D, axis=1, kind="stable"))
    for k in range(1, n_train + 1):
        np.testing.assert_array_equal(nearest_neighbours(X, Q, k=k), full[:, :k])
        np.testing.assert_array_equal(majority_vote(y[full[:, :k]]), knn_predict(X, y, Q, k=k))


@pytest.mark.parametrize("value", [0.1, -3.3, 1e6 / 3, 0.0])
def test_a_constant_column_is_only_shifted_even_when_its_value_is_not_exact_in_binary(value):
    X = np.column_stack([np.full(10, value), np.arange(10.0)])
    st_ = fit_standardizer(X)
    assert st_.scale[0] == 1.0
    Z = st_.transform(X)
    np.testing.assert_allclose(Z[:, 0], 0.0, atol=1e-9)
    np.testing.assert_allclose(Z[:, 1], StandardScaler().fit_transform(X)[:, 1])


def _rule_by_loop(X_train, y_train, X, k):
    """The documented rule, one query at a time, as ps5's knn_predict is written from its hint."""
    out = []
    for x in X:
        order = np.argsort(np.sqrt(((X_train - x) ** 2).sum(axis=1)), kind="stable")[:k]
        votes = list(y_train[order])
        top = max(votes.count(v) for v in votes)
        out.append(next(v for v in votes if votes.count(v) == top))
    return np.array(out, dtype=float)


def test_an_exact_tie_in_distance_goes_to_the_training_point_that_comes_first():
    # both training points are 0.5385164807134505 from the query, computed from the differences;
    # the shortcut |x|^2 + |z|^2 - 2 x.z once put the second one nearer
    X_train, y_train = np.array([[0.5, 0.2], [0.1, 1.2]]), np.array([1.0, -1.0])
    query = np.array([[0.3, 0.7]])
    d = np.sqrt(((X_train - query[0]) ** 2).sum(axis=1))
    assert d[0] == d[1]
    assert knn_predict(X_train, y_train, query, k=1).tolist() == [1.0]
    assert knn_predict(X_train[::-1], y_train[::-1], query, k=1).tolist() == [-1.0]


# Points on a grid of tenths: many training points lie exactly as far from a query (as the
# differences compute it), so both tie rules are exercised on nearly every example.
tenths = st.integers(-10, 10).map(lambda i: i / 10)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(2, 25), m=st.integers(1, 12), d=st.integers(1, 3),
       k=st.sampled_from([1, 2, 3, 4, 5]), labels=st.sampled_from([(-1.0, 1.0), (0.0, 1.0, 2.0)]))
def test_knn_predict_follows_its_tie_rules_on_exact_ties(data, n, m, d, k, labels):
    X_train = np.array(data.draw(st.lists(st.lists(tenths, min_size=d, max_size=d), min_size=n, max_size=n)))
    X = np.array(data.draw(st.lists(st.lists(tenths, min_size=d, max_size=d), min_size=m, max_size=m)))
    y_train = np.array(data.draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n)))
    k = min(k, n)
    np.testing.assert_array_equal(knn_predict(X_train, y_train, X, k=k), _rule_by_loop(X_train, y_train, X, k))


def test_the_distances_are_computed_in_blocks_without_changing_them(monkeypatch):
    import course_lib.neighbors as nb

    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(37, 5)), rng.normal(size=(23, 5))
    whole = pairwise_distances(X, Z)
    monkeypatch.setattr(nb, "_CHUNK", 50)        # a few rows of X at a time
    np.testing.assert_array_equal(pairwise_distances(X, Z), whole)
    np.testing.assert_array_equal(whole, np.array([np.sqrt(((Z - x) ** 2).sum(axis=1)) for x in X]))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 40), m=st.integers(1, 12), d=st.integers(1, 3),
       k=st.sampled_from([1, 2, 3, 5]), metric=st.sampled_from(["euclidean", "mahalanobis"]))
def test_large_problems_find_the_same_neighbours_by_bounding_first(data, n, m, d, k, metric):
    """Above a size, nearest_neighbours ranks exactly only the points a fast bound cannot rule out: same answer."""
    import course_lib.neighbors as nb

    X_train = np.array(data.draw(st.lists(st.lists(tenths, min_size=d, max_size=d), min_size=n, max_size=n)))
    X_train = X_train + 1e-3 * np.arange(n)[:, None] * (metric == "mahalanobis")   # a covariance that is not singular
    X = np.array(data.draw(st.lists(st.lists(tenths, min_size=d, max_size=d), min_size=m, max_size=m)))
    k = min(k, n)
    if metric == "mahalanobis" and np.linalg.matrix_rank(np.atleast_2d(np.cov(X_train, rowvar=False))) < d:
        return
    small = nb.nearest_neighbours(X_train, X, k=k, metric=metric)
    saved = nb._CHUNK
    nb._CHUNK = 1                                       # every problem counts as large
    try:
        large = nb.nearest_neighbours(X_train, X, k=k, metric=metric)
    finally:
        nb._CHUNK = saved
    np.testing.assert_array_equal(large, small)


def test_the_neighbours_of_real_digits_by_bounding_first_are_those_of_the_loop(monkeypatch):
    import course_lib as cl
    import course_lib.neighbors as nb

    images, digits = cl.load_sklearn_digits()
    grey = images.reshape(-1, 64)                        # integer grey levels: many exact ties
    queries, train = grey[:40], grey[40:]
    monkeypatch.setattr(nb, "_CHUNK", 1000)              # the bounding route, in blocks of 1,000 differences
    got = nb.nearest_neighbours(train, queries, k=5)
    want = np.array([np.argsort(np.sqrt(((train - x) ** 2).sum(axis=1)), kind="stable")[:5] for x in queries])
    np.testing.assert_array_equal(got, want)
