"""Data sets for the perceptron lectures: synthetic targets and a loader for text files.

Every function that draws random numbers takes ``rng`` (None, a seed, or a
``numpy.random.Generator``) and never touches NumPy's global random state.
Returned X never contain the constant coordinate; use
:func:`course_lib.perceptron.add_bias` before giving them to PLA or pocket.
"""
import hashlib
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._validation import check_choice, check_int, check_real

__all__ = [
    "make_separable", "make_noisy", "random_line_target", "make_random_line_data",
    "load_labeled_points", "load_homework", "data_dir", "DATA_DIR_ENV", "make_spirals",
    "fetch_file", "cache_dir", "DataFile", "DATA_FILES", "DataUnavailableError", "DATA_URL_ENV", "CACHE_SUBDIR",
    "spam_examples",
]

DATA_DIR_ENV = "COURSE_DATA_DIR"
"""Name of the environment variable that points at the course's data directory."""


def _random_hyperplane(d, rng):
    """A target w_f = (w0, u) with unit normal u whose boundary crosses [-1, 1]^d near the middle."""
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    centre = rng.uniform(-0.5, 0.5, size=d)
    return np.concatenate([[-u @ centre], u])


def make_separable(n_samples, n_features=2, *, margin=0.1, rng=None):
    """Linearly separable data on [-1, 1]^d with at least a chosen margin.

    A random target hyperplane ``w_f`` is drawn (unit normal, crossing the cube
    near its centre); points are drawn uniformly from [-1, 1]^d, labelled by
    sign(w_f^T [1, x]), and those closer than ``margin`` to the hyperplane are
    rejected and redrawn.

    Parameters
    ----------
    n_samples : int
        Number of examples N (>= 1).
    n_features : int, default=2
        Dimension d of the raw inputs (>= 1).
    margin : float, default=0.1
        Minimum Euclidean distance from every point to the target hyperplane, in
        input space (0 <= margin < 0.5).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels +1.0 / -1.0, both present whenever n_samples >= 2.
    w_f : ndarray of shape (n_features + 1,)
        The target weights (w0 first); ``w_f[1:]`` has unit length, so
        ``abs(add_bias(X) @ w_f)`` is each point's distance to the boundary.

    Examples
    --------
    >>> X, y, w_f = make_separable(50, 3, margin=0.2, rng=0)
    >>> X.shape, bool(np.all(np.abs(w_f[0] + X @ w_f[1:]) >= 0.2))
    ((50, 3), True)
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    d = check_int(n_features, "n_features", minimum=1)
    margin = check_real(margin, "margin", low=0.0, high=0.5, high_open=True)
    rng = np.random.default_rng(rng)
    for _ in range(100):
        w_f = _random_hyperplane(d, rng)
        X, s = np.empty((0, d)), np.empty(0)
        for _ in range(1000):
            cand = rng.uniform(-1.0, 1.0, size=(max(2 * n, 64), d))
            score = w_f[0] + cand @ w_f[1:]
            keep = np.abs(score) >= margin
            X, s = np.vstack([X, cand[keep]]), np.concatenate([s, score[keep]])
            if len(s) >= n:
                break
        X, s = X[:n], s[:n]
        # both classes present (a one-class "separable" set teaches nothing)
        if len(s) == n and (n < 2 or (np.any(s > 0) and np.any(s < 0))):
            return X, np.where(s > 0, 1.0, -1.0), w_f
    raise ValueError(f"could not draw {n} points with margin={margin} in {d} dimensions; try a smaller margin")


def make_noisy(n_samples, n_features=2, *, noise=0.1, margin=0.0, rng=None):
    """Separable data with a chosen fraction of labels flipped: the pocket setting.

    Parameters
    ----------
    n_samples, n_features : as in :func:`make_separable`
    noise : float, default=0.1
        Fraction of labels flipped (0 <= noise <= 1); exactly
        ``round(noise * n_samples)`` labels, chosen at random, change sign.
    margin : as in :func:`make_separable`
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        The noisy labels.
    w_f : ndarray of shape (n_features + 1,)
        The target before noise: ``sign(add_bias(X) @ w_f)`` are the clean labels.

    Examples
    --------
    >>> X, y, w_f = make_noisy(100, 2, noise=0.1, rng=0)
    >>> int(np.sum(np.sign(w_f[0] + X @ w_f[1:]) != y))
    10
    """
    noise = check_real(noise, "noise", low=0.0, high=1.0)
    rng = np.random.default_rng(rng)
    X, y, w_f = make_separable(n_samples, n_features, margin=margin, rng=rng)
    flip = rng.choice(len(y), size=int(round(noise * len(y))), replace=False)
    y = y.copy()
    y[flip] *= -1
    return X, y, w_f


def random_line_target(*, rng=None):
    """The random-line target of *Learning From Data*: a line through two random points.

    Two points are drawn uniformly from [-1, 1]^2; the target is +1 on one side of
    the line through them and -1 on the other.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        Randomness for the two points.

    Returns
    -------
    w_f : ndarray of shape (3,)
        Weights (w0, w1, w2) with f(x) = sign(w0 + w1 x1 + w2 x2).

    Examples
    --------
    >>> w_f = random_line_target(rng=0)
    >>> w_f.shape
    (3,)
    """
    rng = np.random.default_rng(rng)
    (a1, a2), (b1, b2) = rng.uniform(-1.0, 1.0, size=(2, 2))
    # the line through a and b: (b2 - a2) x1 - (b1 - a1) x2 + (b1 a2 - a1 b2) = 0
    return np.array([b1 * a2 - a1 * b2, b2 - a2, -(b1 - a1)])


def make_random_line_data(n_samples, *, rng=None):
    """N points uniform on [-1, 1]^2 labelled by a fresh random-line target.

    Parameters
    ----------
    n_samples : int
        Number of points N.
    rng : None, int or numpy.random.Generator
        Randomness for the target and the points.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
    w_f : ndarray of shape (3,)

    Examples
    --------
    >>> X, y, w_f = make_random_line_data(10, rng=0)
    >>> X.shape, set(np.unique(y)) <= {-1.0, 1.0}
    ((10, 2), True)
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    rng = np.random.default_rng(rng)
    w_f = random_line_target(rng=rng)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = np.where(w_f[0] + X @ w_f[1:] > 0, 1.0, -1.0)
    return X, y, w_f


def data_dir():
    """The course's data directory, from the ``COURSE_DATA_DIR`` environment variable.

    Returns
    -------
    pathlib.Path or None
        The directory, or None when the variable is not set.

    Raises
    ------
    ValueError
        When the variable names something that is not a directory.

    Examples
    --------
    >>> import os
    >>> folder = data_dir()
    >>> folder is None or folder.is_dir()
    True
    >>> (folder is None) == (os.environ.get("COURSE_DATA_DIR") is None)
    True
    """
    value = os.environ.get(DATA_DIR_ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ValueError(f"{DATA_DIR_ENV}={value!r} is not a directory")
    return path


_env_data_dir = data_dir      # fetch_file's argument of the same name hides it there


def load_labeled_points(path):
    """Load a whitespace-separated text file of rows ``x1 ... xd label``.

    This is the format of the course homework files (e.g. ``hw1_15_train.dat``):
    d feature columns then a label of +1 or -1 per line. A relative path that does
    not exist is also looked up in the data directory (``COURSE_DATA_DIR``).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,)

    Raises
    ------
    FileNotFoundError
        When the file is in neither place (the message says where it looked).
    ValueError
        On a malformed line (its number and content are in the message).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "points.dat"
    >>> _ = f.write_text("0.5 1.0\\t1\\n-0.5 2.0\\t-1\\n")
    >>> X, y = load_labeled_points(f)
    >>> X.tolist(), y.tolist()
    ([[0.5, 1.0], [-0.5, 2.0]], [1.0, -1.0])
    """
    p = Path(path)
    tried = [p]
    if not p.exists() and not p.is_absolute():
        base = data_dir()
        if base is not None:
            p = base / path
            tried.append(p)
    if not p.is_file():
        raise FileNotFoundError(
            f"no data file at {' or '.join(map(str, tried))}; pass the file's path, or set "
            f"{DATA_DIR_ENV} to the folder that holds it"
        )
    rows, width = [], None
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            fields = line.split()
            if not fields:
                continue
            try:
                values = [float(v) for v in fields]
            except ValueError:
                raise ValueError(f"{p}, line {lineno}: expected numbers, got {line.strip()!r}") from None
            if width is None:
                width = len(values)
                if width < 2:
                    raise ValueError(f"{p}, line {lineno}: expected at least one feature and a label, got {line.strip()!r}")
            elif len(values) != width:
                raise ValueError(f"{p}, line {lineno}: expected {width} columns like the first line, got {len(values)}")
            if values[-1] not in (1.0, -1.0):
                raise ValueError(f"{p}, line {lineno}: the label (last column) must be +1 or -1, got {fields[-1]!r}")
            if not np.all(np.isfinite(values)):
                raise ValueError(f"{p}, line {lineno}: NaN or infinity in {line.strip()!r}")
            rows.append(values)
    if not rows:
        raise ValueError(f"{p} holds no data rows")
    data = np.array(rows)
    return data[:, :-1], data[:, -1]


# --- The course's data files: where they are published, what they must be -----------------

class DataFile(NamedTuple):
    """What the course knows about one published data file."""

    name: str
    """The file name, e.g. ``zip.train.gz``."""
    subdir: str
    """Its sub-folder in a course data folder or mirror, e.g. ``esl_zip``."""
    url: str
    """Where it is published."""
    sha256: str
    """SHA-256 of the published bytes."""
    size: int
    """Its length in bytes."""
    rows: int
    """Number of data rows."""


_NTU = "https://www.csie.ntu.edu.tw/~htlin/mooc/datasets/mlfound_math/"
_ESL = "https://web.stanford.edu/~hastie/ElemStatLearn/datasets/"
_LFD = "http://www.amlbook.com/data/zip/"
_CALTECH = "http://work.caltech.edu/data/"

DATA_FILES = {
    f.name: f for f in [
        DataFile("zip.train.gz", "esl_zip", _ESL + "zip.train.gz",
                 "66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16", 1829071, 7291),
        DataFile("zip.test.gz", "esl_zip", _ESL + "zip.test.gz",
                 "8dacc3c6e136af6c3488de9e5113a7daf140c8c2f1f0b61c54ee02f03f1a962f", 439208, 2007),
        DataFile("features.train", "lfd_zip", _LFD + "features.train",
                 "253bcfa33a09890f3e83535f2bf12d1c5123c35dcbe01062060bef0e38970c72", 357259, 7291),
        DataFile("features.test", "lfd_zip", _LFD + "features.test",
                 "32187a0d5d6c1953094fbc842f62e0c4c3da050e7e4267f012b98111a324719c", 98343, 2007),
        DataFile("hw1_15_train.dat", "ntu_hw1", _NTU + "hw1_15_train.dat",
                 "b02bcea4f005535acf3530243d20354dcabb3d4aa7d424561c6c652bdc60eb91", 13720, 400),
        DataFile("hw1_18_train.dat", "ntu_hw1", _NTU + "hw1_18_train.dat",
                 "736c41eaad8b7acc1a0a725462c0d512a21fd838381ad679c491b56c64a6e7d7", 17284, 500),
        DataFile("hw1_18_test.dat", "ntu_hw1", _NTU + "hw1_18_test.dat",
                 "1bfae98aff3788b4512fa218f8d40880a5df680ac729595dfc994b741b74f869", 17376, 500),
        DataFile("in.dta", "lfd_dta", _CALTECH + "in.dta",
                 "ab59df7fa7b2b68792155bf159d4ba9ca105d59e22946a29c180fac65799a87a", 1750, 35),
        DataFile("out.dta", "lfd_dta", _CALTECH + "out.dta",
                 "29ebb4bf827e2c6f4e373524981d6eefdf052e704695246a402a3b080da75696", 12500, 250),
    ]
}
"""The known files, by name: sub-folder, original address, SHA-256, size and rows."""

DATA_URL_ENV = "COURSE_DATA_URL"
"""Name of the environment variable that names a mirror: a base URL with the same
relative paths as a course data folder (``esl_zip/zip.train.gz``, ``lfd_zip/...``,
``ntu_hw1/...``, ``lfd_dta/...``). When set, downloads come from there instead of the original sites."""

CACHE_SUBDIR = "ml-foundations"
"""Name of the course's folder inside the user's cache folder."""

DOWNLOAD_TIMEOUT = 10.0
"""Seconds a download waits for the server (to connect, and for each piece of data)."""

_unreachable = {}   # host -> why it failed: after one failed connection, no other file waits for it


class DataUnavailableError(FileNotFoundError, ConnectionError):
    """A data file is in no local folder and could not be downloaded (offline, or the server failed).

    It is a ``FileNotFoundError`` (the file is not there) and a ``ConnectionError``
    (the download failed), so either ``except`` clause catches it. Its message is one
    line: which file, why it could not be had, and how to use a copy of one's own
    (``COURSE_DATA_DIR=<folder> make lab``).
    """


def _own_copy_hint(info):
    """How to point the course at a copy of ``info`` (one sentence, no line break)."""
    return (f"to use a copy of your own, put it in <folder>/{info.subdir}/ and start the course with "
            f"{DATA_DIR_ENV}=<folder> make lab")


def _missing_data_dir():
    """The value of ``COURSE_DATA_DIR`` and where it leads, when it is set but names no folder; else None."""
    value = os.environ.get(DATA_DIR_ENV)
    if not value or Path(value).expanduser().is_dir():
        return None
    return value, Path(value).expanduser().resolve()


def cache_dir():
    """Where downloaded files are kept: ``$XDG_CACHE_HOME/ml-foundations``, else ``~/.cache/ml-foundations``.

    Returns
    -------
    pathlib.Path
        The folder (it is created only when something is downloaded).

    Examples
    --------
    >>> cache_dir().name
    'ml-foundations'
    """
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / CACHE_SUBDIR


def _source_url(info, base_url):
    """The address to download ``info`` from: the mirror's ``<base>/<subdir>/<name>``, else the original."""
    if base_url is None:
        base_url = os.environ.get(DATA_URL_ENV) or None
    if base_url is None:
        return info.url
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://", "file:")):
        raise ValueError(f"base_url (or {DATA_URL_ENV}) must be an http://, https:// or file: URL; got {base_url!r}")
    return f"{base_url.rstrip('/')}/{info.subdir}/{info.name}"


def _verify(path, info):
    """Raise a ValueError unless the file at ``path`` has the published size and SHA-256."""
    data = Path(path).read_bytes()
    if len(data) < info.size:
        raise ValueError(
            f"{path} is truncated: {len(data):,} bytes where the published {info.name} has {info.size:,}. "
            f"Replace it with a complete copy (from {info.url})."
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest != info.sha256:
        raise ValueError(
            f"{path} has the wrong SHA-256 checksum {digest} (the published {info.name} has {info.sha256}"
            f"{'' if len(data) == info.size else f' and {info.size:,} bytes, not {len(data):,}'}): it is corrupted "
            f"or a modified copy. Replace it with the original (from {info.url}), or pass verify=False to read it "
            "anyway (its rows are still checked)."
        )


def _download(info, target, base_url=None, progress=True):
    """Fetch ``info`` into ``target`` (atomically) with a progress bar, verifying it before it is stored."""
    import urllib.error  # (imported here: the network modules are needed only to download)
    import urllib.parse
    import urllib.request

    url = _source_url(info, base_url)
    host = urllib.parse.urlsplit(url).netloc
    if host in _unreachable:
        raise DataUnavailableError(f"{info.name}: could not download it from {url} ({host} did not answer "
                                   f"earlier: {_unreachable[host]}); {_own_copy_hint(info)}")
    digest, data = hashlib.sha256(), bytearray()
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            from tqdm.auto import tqdm

            with tqdm(total=info.size, unit="B", unit_scale=True, desc=f"downloading {info.name}",
                      disable=not progress, leave=False) as bar:
                while True:
                    chunk = response.read(1 << 16)
                    if not chunk:
                        break
                    data += chunk
                    digest.update(chunk)
                    bar.update(len(chunk))
                    if len(data) > info.size:
                        break
    except urllib.error.HTTPError as exc:
        raise DataUnavailableError(f"{info.name}: could not download it from {url} (HTTP {exc.code} {exc.reason}); "
                                   f"{_own_copy_hint(info)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if not isinstance(exc, urllib.error.HTTPError):
            _unreachable[host] = reason
        raise DataUnavailableError(f"{info.name}: could not download it from {url} ({reason}); "
                                   f"{_own_copy_hint(info)}") from None
    if len(data) != info.size or digest.hexdigest() != info.sha256:
        raise ValueError(
            f"the download of {info.name} from {url} has {len(data):,}{'+' if len(data) > info.size else ''} bytes "
            f"and SHA-256 {digest.hexdigest()}, but the published file has {info.size:,} bytes and SHA-256 "
            f"{info.sha256}; it was refused and not stored"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{info.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def fetch_file(name, *, path=None, data_dir=None, download=True, verify=True, base_url=None, progress=True):
    """Find one of the course's data files, downloading it on first use, and check it.

    A file is looked for, in this order: the ``path`` you pass; the ``data_dir`` you
    pass; the folder named by ``COURSE_DATA_DIR``; the download cache (see
    :func:`cache_dir`). In a folder the file may sit in its sub-folder (``esl_zip/``,
    ``lfd_zip/``, ``ntu_hw1/``, ``lfd_dta/``) or directly inside. When it is nowhere, it is
    downloaded into the cache from the mirror named by ``COURSE_DATA_URL`` (or
    ``base_url``), else from its original site, and stored only if its size and
    SHA-256 match the published ones.

    Parameters
    ----------
    name : str
        One of the keys of :data:`DATA_FILES`, e.g. ``"zip.train.gz"`` or ``"hw1_18_train.dat"``.
    path : str or path-like, optional
        The file itself; when given, nothing else is searched or downloaded.
    data_dir : str or path-like, optional
        A folder holding the file; searched before ``COURSE_DATA_DIR`` and the cache.
    download : bool, default=True
        Download a file that is in no folder. With False a missing file is an error.
    verify : bool, default=True
        Check a local file's size and SHA-256 against the published ones (a download
        is always checked).
    base_url : str, optional
        A mirror to download from, ``<base_url>/<subdir>/<name>``; default: the
        ``COURSE_DATA_URL`` environment variable, else the original site.
    progress : bool, default=True
        Show a progress bar while downloading.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    DataUnavailableError
        When the file is in no folder and was not downloaded (``download=False``, no
        network, or the server failed), or when ``COURSE_DATA_DIR`` is set but names no
        folder (nothing is downloaded then: the setting says where the files should be);
        the message is one line saying why and naming ``COURSE_DATA_DIR``.
    ValueError
        When a file is truncated or its checksum is wrong (a download with the wrong
        checksum is refused and nothing is stored).

    Examples
    --------
    >>> sorted(DATA_FILES)[:3]
    ['features.test', 'features.train', 'hw1_15_train.dat']
    >>> fetch_file("features.train", path="no/such/features.train")
    Traceback (most recent call last):
    ...
    FileNotFoundError: path='no/such/features.train': there is no such file (expected features.train)
    """
    check_choice(name, "name", tuple(DATA_FILES))
    info = DATA_FILES[name]
    for flag, value in (("download", download), ("verify", verify), ("progress", progress)):
        if not isinstance(value, bool):
            raise ValueError(f"{flag} must be True or False; got {value!r}")
    if path is not None:
        found = Path(path).expanduser()
        if not found.is_file():
            raise FileNotFoundError(f"path={str(path)!r}: there is no such file (expected {name})")
    else:
        folders = []
        if data_dir is not None:
            if not Path(data_dir).expanduser().is_dir():
                raise ValueError(f"data_dir={str(data_dir)!r} is not a directory")
            folders.append(Path(data_dir).expanduser())
        missing = _missing_data_dir()
        if missing is not None:
            value, resolved = missing
            where = "" if str(resolved) == value else f" (from {Path.cwd()} that is {resolved})"
            raise DataUnavailableError(
                f"{name}: {DATA_DIR_ENV}={value} is not a folder{where}; set it to the folder that holds "
                f"{info.subdir}/{name} ({DATA_DIR_ENV}=<folder> make lab), or unset it to download the file"
            )
        env = _env_data_dir()
        if env is not None:
            folders.append(env)
        folders.append(cache_dir())
        tried = [c for f in folders for c in (f / info.subdir / name, f / name)]
        found = next((c for c in tried if c.is_file()), None)
        if found is None:
            if not download:
                raise DataUnavailableError(
                    f"{name} was not found (looked for {', '.join(map(str, tried))}) and download=False. Put it "
                    f"in a folder as <folder>/{info.subdir}/{name} and set {DATA_DIR_ENV} to that folder, or "
                    f"pass download=True to fetch it from {info.url} into {cache_dir()}."
                )
            return _download(info, cache_dir() / name, base_url, progress)
    if verify:
        _verify(found, info)
    return found


def load_homework(name, *, path=None, data_dir=None, download=True, verify=True, base_url=None):
    """One of the course homework files: a set of labelled points.

    * ``hw1_15_train.dat``, ``hw1_18_train.dat``, ``hw1_18_test.dat``: the perceptron and
      pocket homework of *Machine Learning Foundations* (4 features per point);
    * ``in.dta`` (35 points) and ``out.dta`` (250 points): the training and test sets of
      the nonlinear-transform, weight-decay and validation homework of *Learning From
      Data* (Caltech's homework 6 and 7; 2 features per point, nearly all in [-1, 1]^2).

    The file is found or downloaded as by :func:`fetch_file` (checked against its
    published SHA-256), then read by :func:`load_labeled_points`.

    Parameters
    ----------
    name : {"hw1_15_train.dat", "hw1_18_train.dat", "hw1_18_test.dat", "in.dta", "out.dta"}
    path, data_dir, download, verify, base_url
        As in :func:`fetch_file`.

    Returns
    -------
    X : ndarray of shape (N, 4) or (N, 2)
        The raw features (no constant column; see :func:`course_lib.perceptron.add_bias`).
    y : ndarray of shape (N,)
        Labels +1 or -1.

    Raises
    ------
    DataUnavailableError, ValueError
        As in :func:`fetch_file`; ValueError also when the file does not hold the
        published number of rows.

    Examples
    --------
    >>> X, y = load_homework("hw1_15_train.dat")      # doctest: +SKIP
    >>> X.shape, int((y == 1).sum())                  # doctest: +SKIP
    ((400, 4), 284)
    >>> X, y = load_homework("in.dta")                # doctest: +SKIP
    >>> X.shape                                       # doctest: +SKIP
    (35, 2)
    """
    homework = tuple(n for n, f in DATA_FILES.items() if f.subdir in ("ntu_hw1", "lfd_dta"))
    check_choice(name, "name", homework)
    found = fetch_file(name, path=path, data_dir=data_dir, download=download, verify=verify, base_url=base_url)
    X, y = load_labeled_points(found)
    if len(y) != DATA_FILES[name].rows:
        raise ValueError(f"{found} holds {len(y)} rows but the published {name} has {DATA_FILES[name].rows}")
    return X, y

def make_spirals(n_samples=200, *, turns=1.5, noise=0.0, rng=None):
    """Two interleaved spirals, one per class: the classic data set that no line (and no low-degree curve) separates.

    Point i of a spiral lies at angle ``t`` and radius ``t / (2 pi turns)`` (so the
    spirals end on the unit circle); the second spiral is the first turned by 180 degrees.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points (>= 2), split evenly between the two classes.
    turns : float, default=1.5
        How many times each spiral winds around the centre (> 0).
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to each coordinate (>= 0).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        +1 for the first spiral, -1 for the second.

    Examples
    --------
    >>> X, y = make_spirals(100, rng=0)
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((100, 2), 50, 50)
    """
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    turns = check_real(turns, "turns", low=0.0, low_open=True)
    noise = check_real(noise, "noise", low=0.0)
    rng = np.random.default_rng(rng)
    n_pos = (n_samples + 1) // 2
    t = np.sqrt(rng.uniform(0.02, 1.0, size=n_samples)) * 2 * np.pi * turns  # more points where the arm is longer
    r = t / (2 * np.pi * turns)
    sign = np.r_[np.ones(n_pos), -np.ones(n_samples - n_pos)]
    X = sign[:, None] * np.c_[r * np.cos(t), r * np.sin(t)]
    X += noise * rng.normal(size=X.shape)
    return X, sign


_SPAM = """\
spam|win a free prize now click the link to claim your prize
spam|cheap meds online no prescription needed order now
spam|you have been selected for a cash reward claim it today
spam|limited offer buy one get one free click now
spam|urgent your account will be closed verify your password now
spam|earn money from home fast no experience needed
spam|congratulations you won a free holiday claim your reward
spam|lowest price guaranteed order cheap watches today
spam|free gift card waiting for you click the link
spam|make cash fast with this one simple trick
spam|exclusive deal just for you act now before it ends
spam|your loan is approved claim the cash now
spam|hot singles in your area click to chat free
spam|double your money in one week guaranteed
spam|final notice claim your free prize before midnight
spam|buy now and save big on cheap meds
spam|you are a winner click here to get your cash
spam|free trial offer no credit card needed act now
spam|best deal of the year limited stock order today
spam|verify your bank account now or lose access
ham|are we still meeting for lunch tomorrow
ham|the lecture notes for week three are online now
ham|can you send me the slides from the seminar
ham|thanks for the review i fixed the proof in section two
ham|dinner at my place on friday bring a friend
ham|the homework deadline moved to next monday
ham|please check the attached draft before the meeting
ham|i will be late for the lab today the bus is slow
ham|happy birthday hope you have a great day
ham|the experiment finished the results look good
ham|could you review my code before i submit it
ham|reminder the library closes early on sunday
ham|let me know when you are free to talk about the project
ham|the exam covers chapters one to four
ham|see you at the station at eight
ham|i uploaded the data set to the shared folder
ham|nice talk today i liked the part on kernels
ham|mom called she wants you to call her back
ham|the meeting room changed to the second floor
ham|our paper was accepted thanks for all the help
"""


def spam_examples():
    """A small, made-up collection of 40 short messages, 20 spam and 20 ordinary ("ham").

    Written for the course to show naive Bayes on text: not a real corpus, and far too
    small to say how well a filter would work on real mail. Words are lower case and
    separated by single spaces.

    Returns
    -------
    messages : list of str
    labels : ndarray of shape (40,)
        +1 for spam, -1 for ham.

    Examples
    --------
    >>> messages, labels = spam_examples()
    >>> len(messages), int((labels == 1).sum())
    (40, 20)
    >>> messages[0]
    'win a free prize now click the link to claim your prize'
    """
    rows = [line.split("|", 1) for line in _SPAM.strip().splitlines()]
    return [text for _, text in rows], np.array([1.0 if kind == "spam" else -1.0 for kind, _ in rows])
