"""course_lib.data: the synthetic data sets by their promised properties, and the file loader.

Tests on the course homework files read them from the folder named by COURSE_DATA_DIR
(CI points it at ../shared/data) and are skipped, with the reason, where it is absent.
"""
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import course_lib as cl
from course_lib.data import (
    DATA_DIR_ENV,
    load_labeled_points,
    make_noisy,
    make_random_line_data,
    make_separable,
    random_line_target,
)

seeds = st.integers(0, 2**32 - 1)

# read once at import, before any test changes the environment
_REFERENCE = os.environ.get(DATA_DIR_ENV)


def homework_file(name):
    """A course homework file from the reference folder, or skip saying why."""
    if not _REFERENCE:
        pytest.skip(f"{DATA_DIR_ENV} is not set; point it at the reference data folder (../shared/data) to run this test")
    folder = Path(_REFERENCE).expanduser()
    for path in (folder / "ntu_hw1" / name, folder / name):
        if path.is_file():
            return path
    pytest.skip(f"{DATA_DIR_ENV}={folder} holds no ntu_hw1/{name}")


# --- make_separable ------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(1, 80), d=st.integers(1, 6), margin=st.floats(0.0, 0.3))
def test_make_separable_keeps_every_point_at_least_margin_away(seed, n, d, margin):
    X, y, w_f = make_separable(n, d, margin=margin, rng=seed)
    assert X.shape == (n, d) and y.shape == (n,) and w_f.shape == (d + 1,)
    assert np.all((X >= -1) & (X <= 1))
    assert np.linalg.norm(w_f[1:]) == pytest.approx(1.0)
    # distance of each point to the hyperplane w0 + u.x = 0 with unit normal u
    dist = [t * (w_f[0] + sum(u * v for u, v in zip(w_f[1:], x, strict=True))) for x, t in zip(X, y, strict=True)]
    assert min(dist) >= margin - 1e-12
    assert min(dist) > 0, "every label must agree with the side of the target"
    if n >= 2:
        assert set(np.unique(y)) == {-1.0, 1.0}, "both classes must be present"


def test_make_separable_gives_up_with_a_clear_message():
    with pytest.raises(ValueError, match="margin must be < 0.5"):
        make_separable(10, 2, margin=0.5)
    with pytest.raises(ValueError, match="n_samples must be at least 1"):
        make_separable(0)
    with pytest.raises(ValueError, match="n_features must be an integer"):
        make_separable(10, 2.0)
    with pytest.raises(ValueError, match="margin must be >= 0"):
        make_separable(10, 2, margin=-0.1)


# --- make_noisy ----------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(2, 120), d=st.integers(1, 4), noise=st.floats(0.0, 1.0))
def test_make_noisy_flips_exactly_round_noise_n_labels(seed, n, d, noise):
    X, y, w_f = make_noisy(n, d, noise=noise, rng=seed)
    clean = np.where(w_f[0] + X @ w_f[1:] > 0, 1.0, -1.0)
    assert int(np.sum(clean != y)) == round(noise * n)
    assert set(np.unique(y)) <= {-1.0, 1.0}


def test_make_noisy_keeps_the_points_of_make_separable():
    # with no noise, the data are exactly the separable data of the same seed
    X1, y1, w1 = make_noisy(50, 3, noise=0.0, rng=5)
    X2, y2, w2 = make_separable(50, 3, margin=0.0, rng=5)     # make_noisy's default margin
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(w1, w2)
    with pytest.raises(ValueError, match="noise must be <= 1"):
        make_noisy(10, noise=1.5)


# --- the random-line target of Learning From Data -------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=seeds)
def test_random_line_target_is_the_line_through_two_uniform_points(seed):
    w = random_line_target(rng=seed)
    a, b = np.random.default_rng(seed).uniform(-1, 1, size=(2, 2))   # the two points it draws
    for p in (a, b):
        assert w[0] + w[1] * p[0] + w[2] * p[1] == pytest.approx(0.0, abs=1e-12)
    # the direction of the line is b - a (the normal (w1, w2) is perpendicular to it)
    assert np.dot(w[1:], b - a) == pytest.approx(0.0, abs=1e-12)
    # the line crosses the square [-1, 1]^2: its corners are not all on one side
    corners = np.array([[1, -1, -1], [1, -1, 1], [1, 1, -1], [1, 1, 1]]) @ w
    assert corners.min() < 0 < corners.max()


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(1, 100))
def test_make_random_line_data_labels_points_by_their_side(seed, n):
    X, y, w = make_random_line_data(n, rng=seed)
    assert X.shape == (n, 2) and np.all(np.abs(X) <= 1)
    expected = [1.0 if w[0] + w[1] * x1 + w[2] * x2 > 0 else -1.0 for x1, x2 in X]
    np.testing.assert_array_equal(y, expected)


# --- randomness ----------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda rng: make_separable(30, 3, margin=0.1, rng=rng),
    lambda rng: make_noisy(30, 2, noise=0.2, rng=rng),
    lambda rng: (random_line_target(rng=rng),),
    lambda rng: make_random_line_data(30, rng=rng),
])
def test_same_seed_same_data_and_global_state_untouched(make):
    state = np.random.get_state()[1].copy()
    a, b = make(42), make(np.random.default_rng(42))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    c = make(43)
    assert not all(np.array_equal(u, v) for u, v in zip(a, c, strict=False))
    gen = np.random.default_rng(1)
    before = gen.bit_generator.state
    make(gen)
    assert gen.bit_generator.state != before, "the Generator passed in was not used"
    assert np.array_equal(state, np.random.get_state()[1]), "global random state changed"


# --- load_labeled_points -------------------------------------------------------------------

def test_load_labeled_points_reads_features_and_labels(tmp_path):
    f = tmp_path / "points.dat"
    rows = [[0.25, -1.5, 3.0, 1], [1e-3, 2.0, -0.5, -1], [7.0, 0.0, 1.0, 1]]
    f.write_text("\n".join(" ".join(str(v) for v in r[:-1]) + "\t" + str(r[-1]) for r in rows) + "\n\n")
    X, y = load_labeled_points(f)
    np.testing.assert_array_equal(X, np.array(rows)[:, :-1])
    np.testing.assert_array_equal(y, [1.0, -1.0, 1.0])
    X2, y2 = load_labeled_points(str(f))
    np.testing.assert_array_equal(X2, X)


def test_load_labeled_points_looks_in_the_data_directory(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.dat").write_text("1 2 -1\n")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    monkeypatch.chdir(tmp_path / "sub")                  # "sub/p.dat" does not exist from here
    X, y = load_labeled_points("sub/p.dat")
    assert X.tolist() == [[1.0, 2.0]] and y.tolist() == [-1.0]
    monkeypatch.delenv(DATA_DIR_ENV)
    with pytest.raises(FileNotFoundError, match="COURSE_DATA_DIR"):
        load_labeled_points("sub/p.dat")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="is not a directory"):
        load_labeled_points("sub/p.dat")


@pytest.mark.parametrize("text, match", [
    ("1 2 1\n1 x 1\n", "line 2: expected numbers"),
    ("1 2 1\n1 1\n", "line 2: expected 3 columns"),
    ("1 2 0\n", "line 1: the label .* must be \\+1 or -1"),
    ("1 2 2\n", "must be \\+1 or -1, got '2'"),
    ("1\n", "line 1: expected at least one feature and a label"),
    ("nan 2 1\n", "line 1: NaN or infinity"),
    ("1 inf -1\n", "NaN or infinity"),
    ("\n\n", "holds no data rows"),
])
def test_load_labeled_points_refuses_malformed_files(tmp_path, text, match):
    f = tmp_path / "bad.dat"
    f.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_labeled_points(f)


@pytest.mark.data
def test_the_course_homework_file_hw1_15_train():
    X, y = load_labeled_points(homework_file("hw1_15_train.dat"))
    assert X.shape == (400, 4)                           # published: 400 rows, 4 features
    assert int(np.sum(y == 1)) == 284 and int(np.sum(y == -1)) == 116
    assert np.all(np.isfinite(X))
    # the homework says these data are linearly separable: PLA halts on them
    run = cl.pla(cl.add_bias(X), y, max_updates=10_000)
    assert run.halted and cl.error_rate(run.w, cl.add_bias(X), y) == 0.0


@pytest.mark.data
@pytest.mark.parametrize("name, plus, minus", [("hw1_18_train.dat", 195, 305), ("hw1_18_test.dat", 149, 351)])
def test_the_course_homework_files_hw1_18(name, plus, minus):
    X, y = load_labeled_points(homework_file(name))
    assert X.shape == (500, 4)
    assert (int(np.sum(y == 1)), int(np.sum(y == -1))) == (plus, minus)


@pytest.mark.data
@pytest.mark.parametrize("name, rows, plus", [("in.dta", 35, 20), ("out.dta", 250, 132)])
def test_the_learning_from_data_homework_files_in_and_out(name, rows, plus):
    """Found in the reference folder, checked against the published SHA-256, read as points of the plane."""
    if not _REFERENCE:
        pytest.skip(f"{DATA_DIR_ENV} is not set; point it at the reference data folder (../shared/data) to run this test")
    X, y = cl.load_homework(name, data_dir=_REFERENCE, download=False)
    assert X.shape == (rows, 2) and int(np.sum(y == 1)) == plus and int(np.sum(y == -1)) == rows - plus
    with pytest.raises(ValueError, match="name must be one of"):
        cl.load_homework("in.dat", data_dir=_REFERENCE, download=False)
