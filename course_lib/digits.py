"""Handwritten digits: two features computed from the pixels, the data sets, and labels.

The case study of the linear-model lecture (*Learning From Data*, section 3.1): tell
the digit 1 from the digit 5 with two numbers per image instead of 256 pixels.

Grey convention, used by every function here: one pixel is a number in [-1, 1] with
**-1 the blank paper and +1 full ink** (the convention of the USPS zip-code data, where
most pixels are -1). Images are arrays of shape (n, h, w), or one image of shape (h, w).

Data sources:

* :func:`load_sklearn_digits` -- scikit-learn's bundled 8x8 digits (1,797 images);
  no file and no network needed: the stand-in when the real data cannot be had.
* :func:`load_usps` -- the USPS zip-code digits as distributed with *The Elements of
  Statistical Learning* (``zip.train.gz``: 7,291 images, ``zip.test.gz``: 2,007; 16x16).
* :func:`load_features` -- the published features of those same images
  (``features.train`` / ``features.test`` of *Learning From Data*: digit, intensity,
  symmetry), row-aligned with the USPS files.
* :func:`load_digit_images`, :func:`load_digit_features` -- what the lectures call:
  the USPS data, or, when they cannot be had (offline), one line saying so and the
  8x8 stand-in.

A file is looked for, in this order: the ``path`` you pass; the ``data_dir`` you
pass; the folder named by the environment variable ``COURSE_DATA_DIR``; the download
cache (``$XDG_CACHE_HOME/ml-foundations``, by default ``~/.cache/ml-foundations``).
In a folder, the files may sit in the sub-folders ``esl_zip/`` and ``lfd_zip/`` or
directly inside. A file found nowhere is downloaded on first use (from the mirror
named by ``COURSE_DATA_URL``, else from its original site) into the cache; see
:func:`course_lib.data.fetch_file`. Every file is checked against its published
SHA-256 sum before it is read (``verify=False`` skips that check for a local file,
never the row checks), and one data set is never replaced by another.
"""
import gzip
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_real, check_vector
from .data import (  # noqa: F401  (the file machinery is also reachable as course_lib.digits.*)
    CACHE_SUBDIR,
    DATA_DIR_ENV,
    DATA_FILES,
    DataFile,
    DataUnavailableError,
    cache_dir,
    fetch_file,
)

__all__ = [
    "intensity", "symmetry", "features",
    "load_sklearn_digits", "load_usps", "load_features", "load_digit_images", "load_digit_features",
    "fetch_file", "cache_dir", "DigitData",
    "one_vs_one", "one_vs_all", "train_test_split",
    "DigitImages", "DigitFeatures", "DataFile", "DATA_FILES", "CACHE_SUBDIR",
]


# --- Features --------------------------------------------------------------------------

def _check_images(images, name="images"):
    """Return ``images`` as a finite float array of shape (n, h, w) and whether one image was given."""
    try:
        arr = np.asarray(images, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of grey values; got {type(images).__name__}: {exc}") from None
    single = arr.ndim == 2
    if single:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError(f"{name} must have shape (n, h, w), or (h, w) for one image; got shape {np.shape(images)}")
    if arr.shape[0] == 0 or arr.shape[1] == 0 or arr.shape[2] == 0:
        raise ValueError(f"{name} must hold at least one image of at least one pixel; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    low, high = float(arr.min()), float(arr.max())
    if low < -1.0 - 1e-9 or high > 1.0 + 1e-9:
        raise ValueError(
            f"{name} must hold grey values in [-1, 1] (-1 paper, +1 ink); got values from {low:g} to {high:g} "
            "(raw 0..16 or 0..255 pixels must be rescaled first, as load_sklearn_digits does)"
        )
    return arr, single


def intensity(images):
    """Average intensity: how much ink an image holds, from 0 (blank) to 1 (all ink).

    ``intensity = (mean of the pixels + 1) / 2``, the mean taken over all h*w pixels:
    the mean grey value mapped from [-1, 1] to [0, 1]. For the 16x16 USPS images this
    is exactly the first feature of *Learning From Data*'s ``features.*`` files; since
    it is a mean, it does not depend on the image size (an 8x8 image and the same
    image blown up to 16x16 have the same intensity).

    Parameters
    ----------
    images : array-like of shape (n, h, w), or (h, w) for one image
        Grey values in [-1, 1], -1 paper and +1 ink.

    Returns
    -------
    ndarray of shape (n,), or float for one image

    Examples
    --------
    >>> intensity(np.full((16, 16), -1.0)), intensity(np.full((16, 16), 1.0))
    (0.0, 1.0)
    >>> intensity([[[-1.0, 1.0], [1.0, 1.0]], [[-1.0, -1.0], [-1.0, 0.0]]])
    array([0.75 , 0.125])
    """
    arr, single = _check_images(images)
    value = (arr.mean(axis=(1, 2)) + 1.0) / 2.0
    return float(value[0]) if single else value


def symmetry(images):
    """Symmetry: minus how much an image differs from its mirror images (0 = symmetric).

    ``symmetry = -4 * (mean |x - fliplr(x)| + mean |x - flipud(x)|)``, each mean taken
    over all h*w pixels, that is ``-(sum|x - fliplr(x)| + sum|x - flipud(x)|) / (h*w/4)``.
    For 16x16 images h*w/4 = 64, which is exactly the second feature of *Learning From
    Data*'s ``features.*`` files. Dividing by the number of pixels (not by a fixed 64)
    makes the feature independent of the image size: an 8x8 image and the same image
    blown up to 16x16 (every pixel a 2x2 block) have the same symmetry. An image equal
    to both of its mirror images has symmetry 0; the most asymmetric possible value
    is -16 (each mean absolute difference is at most 2).

    Parameters
    ----------
    images : array-like of shape (n, h, w), or (h, w) for one image
        Grey values in [-1, 1].

    Returns
    -------
    ndarray of shape (n,), or float for one image

    Examples
    --------
    >>> symmetry(np.array([[1.0, 1.0], [-1.0, -1.0]]))   # left-right symmetric only
    -8.0
    >>> symmetry(np.array([[1.0, -1.0, 1.0], [1.0, -1.0, 1.0]]))   # symmetric both ways
    0.0
    """
    arr, single = _check_images(images)
    n_pixels = arr.shape[1] * arr.shape[2]
    left_right = np.abs(arr - arr[:, :, ::-1]).sum(axis=(1, 2))
    up_down = np.abs(arr - arr[:, ::-1, :]).sum(axis=(1, 2))
    value = 0.0 - (left_right + up_down) / (n_pixels / 4.0)   # 0.0 - ...: no "-0.0" for symmetric images
    return float(value[0]) if single else value


def features(images):
    """The two features of every image as the columns of a matrix: (intensity, symmetry).

    Parameters
    ----------
    images : array-like of shape (n, h, w), or (h, w) for one image

    Returns
    -------
    ndarray of shape (n, 2)
        ``[:, 0]`` is :func:`intensity`, ``[:, 1]`` is :func:`symmetry`; ready for
        :func:`course_lib.perceptron.add_bias`.

    Examples
    --------
    >>> features(np.full((1, 4, 4), -1.0))
    array([[0., 0.]])
    """
    arr, _ = _check_images(images)
    return np.column_stack([intensity(arr), symmetry(arr)])


# --- Labels and splits -----------------------------------------------------------------

def _check_digits(digits, name="digits"):
    arr = check_vector(digits, name)
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold whole numbers (the digit of each image); got {arr[arr != np.round(arr)][0]!r}")
    return arr.astype(int)


def _check_digit(value, name):
    return check_int(value, name, minimum=0)


def one_vs_one(digits, a, b):
    """Select the images of digit a and digit b, and label them a -> +1, b -> -1.

    Parameters
    ----------
    digits : array-like of shape (n,)
        The digit of every image.
    a, b : int
        The two digits (different).

    Returns
    -------
    mask : ndarray of bool, shape (n,)
        True for the images of a or b.
    y : ndarray of shape (mask.sum(),)
        +1.0 where the selected image is an a, -1.0 where it is a b, in the order of
        ``digits[mask]``.

    Examples
    --------
    >>> mask, y = one_vs_one([1, 5, 3, 1, 5], 1, 5)
    >>> mask.tolist(), y.tolist()
    ([True, True, False, True, True], [1.0, -1.0, 1.0, -1.0])
    """
    digits = _check_digits(digits)
    a, b = _check_digit(a, "a"), _check_digit(b, "b")
    if a == b:
        raise ValueError(f"a and b must be different digits; got a = b = {a}")
    mask = (digits == a) | (digits == b)
    y = np.where(digits[mask] == a, 1.0, -1.0)
    return mask, y


def one_vs_all(digits, a):
    """Label every image: +1 for the digit a, -1 for every other digit.

    Parameters
    ----------
    digits : array-like of shape (n,)
    a : int

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> one_vs_all([1, 5, 3, 1], 1).tolist()
    [1.0, -1.0, -1.0, 1.0]
    """
    digits = _check_digits(digits)
    a = _check_digit(a, "a")
    return np.where(digits == a, 1.0, -1.0)


class DigitImages(NamedTuple):
    """Images with their digits (a named tuple: unpack it or use the attributes)."""

    images: np.ndarray
    """Grey values in [-1, 1] (-1 paper, +1 ink), shape (n, h, w)."""
    digits: np.ndarray
    """The digit 0..9 of every image, shape (n,), integers."""


class DigitFeatures(NamedTuple):
    """Precomputed features with their digits."""

    X: np.ndarray
    """Shape (n, 2): intensity, symmetry (no x0 column)."""
    digits: np.ndarray
    """The digit 0..9 of every row, shape (n,), integers."""


def train_test_split(data, *, test_fraction=0.3, rng=None):
    """Split a data set at random into a training part and a test part.

    Parameters
    ----------
    data : DigitImages or DigitFeatures (any tuple of arrays with the same length)
    test_fraction : float, default=0.3
        Fraction of the examples that go to the test part (0 < test_fraction < 1);
        ``round(test_fraction * n)`` examples, at least one in each part.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    train, test : the same type as ``data``

    Examples
    --------
    >>> train, test = train_test_split(load_sklearn_digits(), test_fraction=0.25, rng=0)
    >>> len(train.digits), len(test.digits)
    (1348, 449)
    """
    test_fraction = check_real(test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
    try:
        arrays = [np.asarray(part) for part in data]
        n = len(arrays[0])
    except (TypeError, IndexError):
        raise ValueError(f"data must be a tuple of arrays such as DigitImages; got {type(data).__name__}") from None
    if any(len(part) != n for part in arrays):
        raise ValueError(f"data must hold arrays of the same length; got lengths {[len(p) for p in arrays]}")
    if n < 2:
        raise ValueError(f"data must hold at least 2 examples to split; got {n}")
    n_test = min(max(int(round(test_fraction * n)), 1), n - 1)
    rng = np.random.default_rng(rng)
    order = rng.permutation(n)
    test_idx, train_idx = np.sort(order[:n_test]), np.sort(order[n_test:])
    train = [p[train_idx] for p in arrays]
    test = [p[test_idx] for p in arrays]
    if hasattr(data, "_fields"):          # a named tuple such as DigitImages: keep its type
        return type(data)(*train), type(data)(*test)
    return tuple(train), tuple(test)


# --- The embedded data set -------------------------------------------------------------

def load_sklearn_digits():
    """scikit-learn's bundled 8x8 handwritten digits, on the course's [-1, 1] grey scale.

    The 1,797 images (about 180 of each digit) ship with scikit-learn, so no file or
    network is needed. Their raw pixels count ink from 0 (paper) to 16 (full ink);
    they are rescaled by ``x = raw / 8 - 1`` so that, as in the USPS data, -1 is paper
    and +1 is full ink.

    Returns
    -------
    DigitImages
        ``images`` of shape (1797, 8, 8) in [-1, 1] and ``digits`` of shape (1797,).

    Examples
    --------
    >>> images, digits = load_sklearn_digits()
    >>> images.shape, float(images.min()), float(images.max()), int(np.sum(digits == 1))
    ((1797, 8, 8), -1.0, 1.0, 182)
    """
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return DigitImages(bunch.images.astype(float) / 8.0 - 1.0, bunch.target.astype(int))


def _read_rows(path, info, n_columns, what):
    """Read a whitespace-separated numeric table, checking every row; return an (n, n_columns) array."""
    try:
        raw = Path(path).read_bytes()
        if info.name.endswith(".gz"):
            raw = gzip.decompress(raw)
        text = raw.decode("ascii")
    except (EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"{path} is truncated or not a valid gzip file ({exc}); expected the published {info.name}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not a text table ({exc}); expected the published {info.name}") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != n_columns:
            raise ValueError(
                f"{path}, line {lineno}: malformed row, expected {n_columns} numbers ({what}), got {len(fields)}: "
                f"{line[:60]!r}{'...' if len(line) > 60 else ''}"
            )
        rows.append(fields)
    try:
        table = np.array(rows, dtype=float)
    except ValueError:
        for lineno, fields in enumerate(rows, start=1):
            try:
                [float(v) for v in fields]
            except ValueError:
                bad = next(v for v in fields if not _is_number(v))
                raise ValueError(f"{path}, data row {lineno}: malformed row, {bad!r} is not a number") from None
        raise
    if table.shape[0] != info.rows:
        raise ValueError(
            f"{path} holds {table.shape[0]} rows but the published {info.name} has {info.rows}: "
            "the file is truncated or is a different data set"
        )
    bad = ~np.isfinite(table).all(axis=1)
    if bad.any():
        raise ValueError(f"{path}, data row {np.flatnonzero(bad)[0] + 1}: malformed row, NaN or infinity")
    digit = table[:, 0]
    bad = (digit != np.round(digit)) | (digit < 0) | (digit > 9)
    if bad.any():
        k = np.flatnonzero(bad)[0]
        raise ValueError(f"{path}, data row {k + 1}: malformed row, the digit (first column) must be 0..9, got {digit[k]!r}")
    return table


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


_SPLITS = ("train", "test")


def load_usps(split="train", *, path=None, data_dir=None, download=True, verify=True, base_url=None):
    """The USPS zip-code digits: 16x16 grey images with their digits.

    Reads ``zip.train.gz`` (7,291 images) or ``zip.test.gz`` (2,007 images) as
    distributed with *The Elements of Statistical Learning*: one row per image, the
    digit then 256 grey values in [-1, 1] row by row (-1 paper, +1 ink). The two files
    print their numbers differently (``6.0000 -1.0000 ...`` and ``9 -1 -0.948 ...``);
    both are read the same way. See :func:`fetch_file` for where the file is looked
    for and what is checked.

    Parameters
    ----------
    split : {"train", "test"}, default="train"
    path, data_dir, download, verify, base_url
        As in :func:`course_lib.data.fetch_file` (by default a missing file is downloaded).

    Returns
    -------
    DigitImages
        ``images`` of shape (n, 16, 16) and ``digits`` of shape (n,).

    Raises
    ------
    DataUnavailableError, ValueError
        As in :func:`fetch_file`; ValueError also for a malformed row (the message
        gives its line number) or a wrong number of rows.

    Examples
    --------
    >>> images, digits = load_usps("test")        # doctest: +SKIP
    >>> images.shape, digits[:3].tolist()         # doctest: +SKIP
    ((2007, 16, 16), [9, 6, 3])
    """
    check_choice(split, "split", _SPLITS)
    name = f"zip.{split}.gz"
    found = fetch_file(name, path=path, data_dir=data_dir, download=download, verify=verify, base_url=base_url)
    table = _read_rows(found, DATA_FILES[name], 257, "the digit then 256 grey values")
    pixels = table[:, 1:]
    outside = (pixels < -1.0) | (pixels > 1.0)
    if outside.any():
        k = np.flatnonzero(outside.any(axis=1))[0]
        raise ValueError(f"{found}, data row {k + 1}: malformed row, grey values must lie in [-1, 1]")
    return DigitImages(pixels.reshape(-1, 16, 16), table[:, 0].astype(int))


def load_features(split="train", *, path=None, data_dir=None, download=True, verify=True, base_url=None):
    """The published intensity and symmetry features of the USPS digits (*Learning From Data*).

    Reads ``features.train`` (7,291 rows) or ``features.test`` (2,007 rows): one row
    per image, ``digit intensity symmetry``, in the same order as the images of
    :func:`load_usps`. See :func:`fetch_file` for where the file is looked for.

    Parameters
    ----------
    split : {"train", "test"}, default="train"
    path, data_dir, download, verify, base_url
        As in :func:`course_lib.data.fetch_file` (by default a missing file is downloaded).

    Returns
    -------
    DigitFeatures
        ``X`` of shape (n, 2) (intensity, symmetry) and ``digits`` of shape (n,).

    Raises
    ------
    DataUnavailableError, ValueError
        As in :func:`load_usps`.

    Examples
    --------
    >>> X, digits = load_features("train")        # doctest: +SKIP
    >>> X[0].round(4).tolist(), int(digits[0])     # doctest: +SKIP
    ([0.3411, -4.5289], 6)
    """
    check_choice(split, "split", _SPLITS)
    name = f"features.{split}"
    found = fetch_file(name, path=path, data_dir=data_dir, download=download, verify=verify, base_url=base_url)
    table = _read_rows(found, DATA_FILES[name], 3, "digit, intensity, symmetry")
    return DigitFeatures(table[:, 1:], table[:, 0].astype(int))


# --- What the lectures call: the real data, or one line and the stand-in -----------------

class DigitData(NamedTuple):
    """A training and a test set of digits, and where they come from."""

    train: tuple
    """:class:`DigitImages` or :class:`DigitFeatures` for training."""
    test: tuple
    """The same for testing."""
    source: str
    """One line naming the data."""
    standin: bool
    """True when these are the built-in 8x8 digits standing in for the USPS data."""


def _standin_split(rng, test_fraction):
    return train_test_split(load_sklearn_digits(), test_fraction=test_fraction, rng=rng)


def load_digit_images(*, test_fraction=0.3, rng=None, download=True):
    """The USPS digit images for the lectures, or the 8x8 stand-in when they cannot be had.

    Tries :func:`load_usps` for both splits (from ``COURSE_DATA_DIR``, the cache, or
    a download). When a file cannot be had (offline, or ``download=False`` and no
    copy), it prints one line saying so and returns scikit-learn's 8x8 digits split
    at random into training and test images instead. A corrupted file is never
    replaced silently: its ValueError propagates.

    Parameters
    ----------
    test_fraction : float, default=0.3
        Share of the 8x8 stand-in kept for testing (the USPS data come split).
    rng : None, int or numpy.random.Generator
        Randomness of the stand-in's split.
    download : bool, default=True
        As in :func:`course_lib.data.fetch_file`.

    Returns
    -------
    DigitData
        ``(train, test, source, standin)`` with :class:`DigitImages` sets.

    Examples
    --------
    >>> data = load_digit_images(rng=0, download=False)    # doctest: +SKIP
    >>> data.train.images.shape[1:], data.standin          # doctest: +SKIP
    ((16, 16), False)
    """
    try:
        train, test = load_usps("train", download=download), load_usps("test", download=download)
    except DataUnavailableError as exc:
        print(f"USPS digits unavailable ({_short(exc)}): using scikit-learn's 8x8 digits instead.")
        train, test = _standin_split(rng, test_fraction)
        return DigitData(train, test, "scikit-learn's 8x8 digits (stand-in for the USPS digits)", True)
    return DigitData(train, test, "USPS digits (zip.train.gz / zip.test.gz)", False)


def load_digit_features(*, test_fraction=0.3, rng=None, download=True):
    """The published intensity/symmetry features for the lectures, or the 8x8 stand-in.

    Tries :func:`load_features` for both splits. When a file cannot be had, it prints
    one line saying so and returns the features of scikit-learn's 8x8 digits
    (:func:`features`), split at random and **standardised** with the training set's
    mean and standard deviation: on the raw 8x8 features the constant coordinate
    x0 = 1 dwarfs both features and a perceptron stopped early says "1" to everything;
    standardised, the stand-in still shows pocket beating PLA at 1,000 updates.

    Parameters
    ----------
    test_fraction, rng, download
        As in :func:`load_digit_images`.

    Returns
    -------
    DigitData
        ``(train, test, source, standin)`` with :class:`DigitFeatures` sets.

    Examples
    --------
    >>> data = load_digit_features(rng=0, download=False)  # doctest: +SKIP
    >>> data.train.X.shape, data.standin                   # doctest: +SKIP
    ((7291, 2), False)
    """
    try:
        train, test = load_features("train", download=download), load_features("test", download=download)
    except DataUnavailableError as exc:
        print(f"USPS feature files unavailable ({_short(exc)}): using standardised features of "
              "scikit-learn's 8x8 digits instead.")
        train_img, test_img = _standin_split(rng, test_fraction)
        F_train, F_test = features(train_img.images), features(test_img.images)
        mean, std = F_train.mean(axis=0), F_train.std(axis=0)
        return DigitData(DigitFeatures((F_train - mean) / std, train_img.digits),
                         DigitFeatures((F_test - mean) / std, test_img.digits),
                         "standardised features of scikit-learn's 8x8 digits (stand-in for the USPS features)", True)
    return DigitData(train, test, "USPS features (features.train / features.test)", False)


def _short(exc):
    """The first sentence of an error message (with its COURSE_DATA_DIR hint), for a one-line notice."""
    return str(exc).split(". ")[0]
