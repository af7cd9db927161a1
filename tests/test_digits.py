"""course_lib.digits against the published feature files, plain loops, properties and a real HTTP server.

Tests marked ``data`` read the reference files from the folder named by COURSE_DATA_DIR
(CI points it at ../shared/data) and are skipped, with the reason, where it is absent.
"""
import contextlib
import functools
import gzip
import hashlib
import http.server
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import course_lib as cl
from course_lib import digits as dg
from course_lib.data import DATA_DIR_ENV, DATA_URL_ENV

SIZES = {"zip.train.gz": 7291, "zip.test.gz": 2007, "features.train": 7291, "features.test": 2007}


# read once at import, before any test changes the environment
_REFERENCE = os.environ.get(DATA_DIR_ENV)


def reference_dir():
    """The reference data folder, or skip the test saying why."""
    folder = Path(_REFERENCE).expanduser() if _REFERENCE else None
    if folder is not None and not folder.is_dir():
        pytest.skip(f"{DATA_DIR_ENV}={_REFERENCE} is not a directory")
    if folder is None:
        pytest.skip(f"{DATA_DIR_ENV} is not set; point it at the reference data folder (../shared/data) to run this test")
    missing = [f"{dg.DATA_FILES[n].subdir}/{n}" for n in dg.DATA_FILES
               if not (folder / dg.DATA_FILES[n].subdir / n).is_file() and not (folder / n).is_file()]
    if missing:
        pytest.skip(f"{DATA_DIR_ENV}={folder} lacks {', '.join(missing)}")
    return folder


def reference_file(name):
    folder = reference_dir()
    sub = folder / dg.DATA_FILES[name].subdir / name
    return sub if sub.is_file() else folder / name


def closed_port_url():
    """An http:// address on 127.0.0.1 where nothing listens (a connection is refused at once)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No data folder, an empty cache of our own, and downloads that fail at once (no network used)."""
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(DATA_URL_ENV, closed_port_url())
    monkeypatch.setattr(cl.data, "_unreachable", {})
    return tmp_path


# --- features against the published files ---------------------------------------------

@pytest.mark.data
@pytest.mark.parametrize("split", ["train", "test"])
def test_features_from_the_images_reproduce_the_published_files(split):
    reference_dir()
    images, digits = cl.load_usps(split)
    published, published_digits = cl.load_features(split)
    assert images.shape == (SIZES[f"features.{split}"], 16, 16)
    np.testing.assert_array_equal(digits, published_digits)
    np.testing.assert_allclose(cl.intensity(images), published[:, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(cl.symmetry(images), published[:, 1], rtol=0, atol=1e-6)
    np.testing.assert_allclose(dg.features(images), published, rtol=0, atol=1e-6)


@pytest.mark.data
def test_loaders_agree_with_a_plain_reading_of_the_files():
    """Both print formats of the USPS files, and the feature file, against line-by-line parsing."""
    for split in ("train", "test"):
        with gzip.open(reference_file(f"zip.{split}.gz"), "rt") as fh:
            rows = [[float(v) for v in line.split()] for line in fh]
        images, digits = cl.load_usps(split)
        assert [int(r[0]) for r in rows] == digits.tolist()
        assert rows[5][1:] == images[5].ravel().tolist()
        assert rows[-1][1:] == images[-1].ravel().tolist()
        with open(reference_file(f"features.{split}")) as fh:
            frows = [[float(v) for v in line.split()] for line in fh]
        X, fdigits = cl.load_features(split)
        assert np.array_equal(np.array(frows)[:, 1:], X) and [int(r[0]) for r in frows] == fdigits.tolist()
    # the counts stated with the data
    _, digits = cl.load_features("train")
    assert np.bincount(digits).tolist() == [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
    mask, y = cl.one_vs_one(digits, 1, 5)
    assert mask.sum() == 1561 and (y == 1).sum() == 1005


@pytest.mark.data
def test_ink_is_plus_one_so_fives_are_darker_than_ones():
    reference_dir()
    images, digits = cl.load_usps("train")
    assert np.mean(images == -1.0) > 0.5                       # mostly blank paper
    assert cl.intensity(images[digits == 5]).mean() > cl.intensity(images[digits == 1]).mean()
    assert cl.symmetry(images[digits == 1]).mean() > cl.symmetry(images[digits == 5]).mean()


@pytest.mark.data
def test_the_file_may_sit_directly_in_the_folder_and_every_source_is_verified(tmp_path, monkeypatch):
    src = reference_file("features.test")
    (tmp_path / "features.test").write_bytes(src.read_bytes())
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    a = cl.load_features("test", data_dir=tmp_path)
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    b = cl.load_features("test")
    c = cl.load_features("test", path=src)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.X, c.X)
    # a real file cut short is rejected as truncated
    cut = tmp_path / "cut" / "features.test"
    cut.parent.mkdir()
    cut.write_bytes(src.read_bytes()[:-1000])
    with pytest.raises(ValueError, match="truncated"):
        cl.load_features("test", path=cut)
    with pytest.raises(ValueError, match="truncated|rows|malformed row"):
        cl.load_features("test", path=cut, verify=False)
    cutgz = tmp_path / "cut" / "zip.test.gz"
    cutgz.write_bytes(reference_file("zip.test.gz").read_bytes()[:200_000])
    with pytest.raises(ValueError, match="truncated"):
        cl.load_usps("test", path=cutgz)
    with pytest.raises(ValueError, match="truncated"):
        cl.load_usps("test", path=cutgz, verify=False)


@pytest.mark.data
def test_a_copy_missing_its_first_row_is_not_accepted(tmp_path):
    """The bad public copy of features.train (first row dropped) must not pass as the real one."""
    lines = reference_file("features.train").read_text().splitlines(keepends=True)
    bad = tmp_path / "features.train"
    bad.write_text("".join(lines[1:]))
    with pytest.raises(ValueError, match="truncated"):
        cl.load_features("train", path=bad)
    with pytest.raises(ValueError, match="7290 rows"):
        cl.load_features("train", path=bad, verify=False)


# --- the features against a plain loop and their properties ---------------------------

def loop_intensity(img):
    h, w = len(img), len(img[0])
    total = 0.0
    for i in range(h):
        for j in range(w):
            total += img[i][j]
    return (total / (h * w) + 1) / 2


def loop_symmetry(img):
    h, w = len(img), len(img[0])
    total = 0.0
    for i in range(h):
        for j in range(w):
            total += abs(img[i][j] - img[i][w - 1 - j]) + abs(img[i][j] - img[h - 1 - i][j])
    return -total / (h * w / 4)


image_stacks = st.tuples(st.integers(1, 4), st.integers(1, 17), st.integers(1, 17)).flatmap(
    lambda shape: hnp.arrays(np.float64, shape, elements=st.floats(-1, 1, allow_nan=False)))


@settings(max_examples=80, deadline=None)
@given(images=image_stacks)
def test_features_match_a_plain_per_pixel_loop(images):
    np.testing.assert_allclose(cl.intensity(images), [loop_intensity(im.tolist()) for im in images], atol=1e-12)
    np.testing.assert_allclose(cl.symmetry(images), [loop_symmetry(im.tolist()) for im in images], atol=1e-12)
    one = images[0]
    assert isinstance(cl.intensity(one), float) and cl.intensity(one) == pytest.approx(loop_intensity(one.tolist()))
    assert isinstance(cl.symmetry(one), float) and cl.symmetry(one) == pytest.approx(loop_symmetry(one.tolist()))


def test_sixteen_by_sixteen_gives_the_published_formula():
    rng = np.random.default_rng(5)
    img = rng.uniform(-1, 1, (16, 16))
    expected = -(np.abs(img - np.fliplr(img)).sum() + np.abs(img - np.flipud(img)).sum()) / 64
    assert cl.symmetry(img) == pytest.approx(expected)
    assert cl.intensity(img) == pytest.approx((img.sum() / 256 + 1) / 2)


@settings(max_examples=40, deadline=None)
@given(quarter=hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8)),
                          elements=st.floats(-1, 1, allow_nan=False)),
       odd_row=st.booleans(), odd_col=st.booleans())
def test_an_image_symmetric_both_ways_has_symmetry_zero(quarter, odd_row, odd_col):
    # mirror a quarter into a full image (with a middle row/column for odd sizes)
    top = np.hstack([quarter, quarter[:, -2::-1] if odd_col else quarter[:, ::-1]])
    img = np.vstack([top, top[-2::-1] if odd_row else top[::-1]])
    assert np.array_equal(img, np.fliplr(img)) and np.array_equal(img, np.flipud(img))
    assert cl.symmetry(img) == 0.0


@settings(max_examples=40, deadline=None)
@given(img=hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8)),
                      elements=st.floats(-1, 1, allow_nan=False)),
       k=st.integers(2, 3))
def test_features_do_not_depend_on_the_resolution(img, k):
    big = np.kron(img, np.ones((k, k)))      # every pixel becomes a k x k block
    assert cl.intensity(big) == pytest.approx(cl.intensity(img), abs=1e-12)
    assert cl.symmetry(big) == pytest.approx(cl.symmetry(img), abs=1e-12)


@pytest.mark.parametrize("shape", [(16, 16), (8, 8), (3, 5)])
def test_blank_and_full_ink(shape):
    assert cl.intensity(np.full(shape, -1.0)) == 0.0
    assert cl.intensity(np.full(shape, 1.0)) == 1.0
    assert cl.symmetry(np.full(shape, 1.0)) == 0.0
    # a left half of ink: symmetric up-down, maximally asymmetric left-right where columns differ
    img = -np.ones(shape)
    img[:, : shape[1] // 2] = 1.0
    paired = 2 * (shape[1] // 2) * shape[0]                 # pixels whose mirror is on the other side
    assert cl.symmetry(img) == pytest.approx(-4 * 2 * paired / (shape[0] * shape[1]))


def test_features_reject_bad_images():
    with pytest.raises(ValueError, match="images"):
        cl.intensity(np.zeros(5))
    with pytest.raises(ValueError, match="images"):
        cl.symmetry(np.zeros((0, 4, 4)))
    with pytest.raises(ValueError, match="images.*NaN"):
        cl.intensity(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match=r"images.*\[-1, 1\].*rescaled"):
        cl.symmetry(np.full((8, 8), 16.0))
    with pytest.raises(ValueError, match="images"):
        dg.features("not an image")


# --- the embedded digits -----------------------------------------------------------------

def test_sklearn_digits_rescaled_with_ink_plus_one():
    from sklearn.datasets import load_digits

    raw = load_digits()
    images, digits = cl.load_sklearn_digits()
    assert images.shape == (1797, 8, 8) and digits.tolist() == raw.target.tolist()
    np.testing.assert_array_equal(images, raw.images / 8 - 1)
    assert images.min() == -1 and images.max() == 1
    assert np.mean(images == -1) > 0.4                       # paper is -1
    assert cl.intensity(images[digits == 8]).mean() > cl.intensity(images[digits == 1]).mean()


def test_train_test_split_is_a_reproducible_partition():
    data = cl.load_sklearn_digits()
    train, test = dg.train_test_split(data, test_fraction=0.3, rng=np.random.default_rng(3))
    again, _ = dg.train_test_split(data, test_fraction=0.3, rng=3)
    assert isinstance(train, dg.DigitImages)
    assert len(test.digits) == round(0.3 * 1797) and len(train.digits) + len(test.digits) == 1797
    assert np.array_equal(train.images, again.images)
    # every image lands in exactly one part
    key = lambda imgs: sorted(map(bytes, imgs.reshape(len(imgs), -1)))   # noqa: E731
    assert key(np.concatenate([train.images, test.images])) == key(data.images)
    with pytest.raises(ValueError, match="test_fraction"):
        dg.train_test_split(data, test_fraction=1.0)
    with pytest.raises(ValueError, match="data"):
        dg.train_test_split((np.zeros(3), np.zeros(4)))


# --- labels ------------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(digits=st.lists(st.integers(0, 9), min_size=1, max_size=60), a=st.integers(0, 9), b=st.integers(0, 9))
def test_one_vs_one_and_one_vs_all_against_the_definition(digits, a, b):
    y_all = cl.one_vs_all(digits, a)
    assert y_all.tolist() == [1.0 if d == a else -1.0 for d in digits]
    if a == b:
        with pytest.raises(ValueError, match="a and b"):
            cl.one_vs_one(digits, a, b)
        return
    mask, y = cl.one_vs_one(digits, a, b)
    assert mask.tolist() == [d in (a, b) for d in digits]
    assert y.tolist() == [1.0 if d == a else -1.0 for d in digits if d in (a, b)]


def test_label_helpers_reject_bad_input():
    with pytest.raises(ValueError, match="digits"):
        cl.one_vs_one([1.5, 5], 1, 5)
    with pytest.raises(ValueError, match="digits"):
        cl.one_vs_all([], 1)
    with pytest.raises(ValueError, match="a must be"):
        cl.one_vs_all([1, 2], -1)
    with pytest.raises(ValueError, match="b must be"):
        cl.one_vs_one([1, 2], 1, "5")


# --- loaders on files written here -------------------------------------------------------

def feature_text(n_rows, digit=1):
    return "".join(f"   {float(digit):.7e}   {0.25:.7e}  {-3.5:.7e}\n" for _ in range(n_rows))


def usps_row(digit=1, n=256, value="-1"):
    return " ".join([str(digit)] + [value] * n) + "\n"


def test_loaders_reject_a_wrong_checksum(tmp_path, offline):
    f = tmp_path / "features.test"
    f.write_text(feature_text(2007))            # right shape, right length or not: not the published bytes
    with pytest.raises(ValueError, match="SHA-256"):
        cl.load_features("test", path=f)
    with pytest.raises(ValueError, match="SHA-256"):
        cl.load_features("test", data_dir=tmp_path)
    # the same file is accepted when the check is switched off: rows alone are fine
    X, digits = cl.load_features("test", path=f, verify=False)
    assert X.shape == (2007, 2) and set(digits.tolist()) == {1}
    g = tmp_path / "zip.test.gz"
    g.write_bytes(gzip.compress(usps_row().encode() * 2007) + b"\0" * 439208)
    with pytest.raises(ValueError, match="SHA-256"):
        cl.load_usps("test", path=g)


def test_loaders_reject_a_truncated_file(tmp_path, offline):
    f = tmp_path / "features.train"
    f.write_text(feature_text(100))
    with pytest.raises(ValueError, match="truncated"):
        cl.load_features("train", path=f)
    with pytest.raises(ValueError, match="100 rows.*7291"):
        cl.load_features("train", path=f, verify=False)
    g = tmp_path / "zip.train.gz"
    g.write_bytes(gzip.compress(usps_row().encode() * 50)[:-30])
    with pytest.raises(ValueError, match="truncated"):
        cl.load_usps("train", path=g)
    with pytest.raises(ValueError, match="truncated or not a valid gzip"):
        cl.load_usps("train", path=g, verify=False)


@pytest.mark.parametrize("bad_line, message", [
    ("   1.0000000e+00   2.5000000e-01\n", "line 3: malformed row, expected 3 numbers"),
    ("   1.0000000e+00   2.5000000e-01  abc\n", "malformed row, 'abc' is not a number"),
    ("   1.2000000e+01   2.5000000e-01  -3.5\n", "malformed row, the digit"),
    ("   1.5000000e+00   2.5000000e-01  -3.5\n", "malformed row, the digit"),
    ("   1.0000000e+00   nan  -3.5\n", "malformed row, NaN"),
])
def test_load_features_rejects_a_malformed_row(tmp_path, offline, bad_line, message):
    lines = feature_text(2007).splitlines(keepends=True)
    lines[2] = bad_line
    f = tmp_path / "features.test"
    f.write_text("".join(lines))
    with pytest.raises(ValueError, match=message):
        cl.load_features("test", path=f, verify=False)
    with pytest.raises(ValueError, match="SHA-256|truncated"):
        cl.load_features("test", path=f)


@pytest.mark.parametrize("bad_row, message", [
    (usps_row(n=255), "line 2: malformed row, expected 257 numbers"),
    (usps_row(value="1.5"), r"grey values must lie in \[-1, 1\]"),
    (usps_row(digit=10), "the digit"),
])
def test_load_usps_rejects_a_malformed_row(tmp_path, offline, bad_row, message):
    rows = [usps_row(digit=k % 10, value="-1.0000") for k in range(2007)]
    rows[1] = bad_row
    g = tmp_path / "zip.test.gz"
    g.write_bytes(gzip.compress("".join(rows).encode()))
    with pytest.raises(ValueError, match=message):
        cl.load_usps("test", path=g, verify=False)


def test_load_usps_reads_both_print_formats(tmp_path, offline):
    long_form = " ".join(["5.0000"] + ["-1.0000"] * 255 + ["0.5000"]) + " \n"
    short_form = " ".join(["5"] + ["-1"] * 255 + ["0.5"]) + "\n"
    g = tmp_path / "zip.test.gz"
    g.write_bytes(gzip.compress((long_form + short_form * 2006).encode()))
    images, digits = cl.load_usps("test", path=g, verify=False)
    assert images.shape == (2007, 16, 16) and set(digits.tolist()) == {5}
    assert np.all(images == images[0]) and images[0, 15, 15] == 0.5 and images[0, 0, 0] == -1


def test_offline_the_loaders_say_so_in_one_line_and_fail_fast(offline):
    for loader, name in [(cl.load_usps, "zip.train.gz"), (cl.load_features, "features.train")]:
        with pytest.raises(cl.DataUnavailableError) as err:
            loader("train")
        text = str(err.value)
        assert name in text and dg.DATA_FILES[name].subdir in text and "could not download" in text
        assert "\n" not in text
        assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, ConnectionError)
    # download=False: says where it looked and where to put the file
    with pytest.raises(FileNotFoundError) as err:
        cl.load_features("test", data_dir=offline, download=False)
    assert DATA_DIR_ENV in str(err.value) and "lfd_zip" in str(err.value) and "download=True" in str(err.value)
    with pytest.raises(FileNotFoundError, match="no such file"):
        cl.load_usps("test", path=offline / "zip.test.gz")
    assert not (offline / "cache").exists()                     # nothing half-written


def test_one_failed_connection_spares_the_other_files_the_wait(offline, monkeypatch):
    import urllib.request  # (course_lib.data imports it when it downloads)

    calls = []
    real_urlopen = urllib.request.urlopen

    def counting_urlopen(url, *args, **kwargs):
        calls.append(url)
        return real_urlopen(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", counting_urlopen)
    for name in ("hw1_15_train.dat", "hw1_18_train.dat", "hw1_18_test.dat"):
        with pytest.raises(cl.DataUnavailableError, match=name):
            cl.load_homework(name)
    assert len(calls) == 1


def test_a_server_that_never_answers_is_given_up_on(offline, monkeypatch):
    """A mirror that accepts the connection and then says nothing: the download gives up after
    DOWNLOAD_TIMEOUT instead of hanging, and the next file does not wait again."""
    import socket

    monkeypatch.setattr(cl.data, "DOWNLOAD_TIMEOUT", 0.5)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)                                          # connections queue up, never answered
        base_url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        with pytest.raises(cl.DataUnavailableError, match="timed out"):
            cl.load_homework("hw1_15_train.dat", base_url=base_url)
        with pytest.raises(cl.DataUnavailableError, match="did not answer earlier"):
            cl.load_homework("hw1_18_train.dat", base_url=base_url)


def test_the_standins_say_so_in_one_line(offline, capsys):
    images = cl.load_digit_images(rng=0)
    out = capsys.readouterr().out
    assert images.standin and out.count("\n") == 1 and "8x8" in out and "zip.train.gz" in out
    assert images.train.images.shape[1:] == (8, 8) and len(images.train.digits) + len(images.test.digits) == 1797
    feats = cl.load_digit_features(rng=0)
    out = capsys.readouterr().out
    assert feats.standin and out.count("\n") == 1 and "standardised" in out
    # standardised with the training set's statistics
    np.testing.assert_allclose(feats.train.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(feats.train.X.std(axis=0), 1, rtol=1e-12)


def test_the_8x8_standin_still_shows_pocket_beating_pla_at_1000_updates(offline):
    """The lesson of the digits lecture holds on the stand-in: over random visiting orders, the
    pocket's E_in is never worse than the stopped PLA's and clearly better on average."""
    feats = cl.load_digit_features(rng=2027)
    m, y = cl.one_vs_one(feats.train.digits, 1, 5)
    X = cl.add_bias(feats.train.X[m])
    runs = cl.pocket_runs(X, y, n_runs=20, max_updates=1000, rng=1)
    e_pocket = np.array([cl.error_rate(w, X, y) for w in runs.w])
    e_pla = np.array([cl.error_rate(w, X, y) for w in runs.w_last])
    assert np.all(e_pocket <= e_pla)
    assert e_pla.mean() - e_pocket.mean() > 0.05
    # a constant answer errs on the smaller class; the pocket line does better than that
    assert e_pocket.max() < min(np.mean(y > 0), np.mean(y < 0))


def test_loaders_reject_bad_arguments(offline):
    with pytest.raises(ValueError, match="split"):
        cl.load_usps("validation")
    with pytest.raises(ValueError, match="split"):
        cl.load_features(1)
    with pytest.raises(ValueError, match="data_dir"):
        cl.load_features("test", data_dir=offline / "absent")
    with pytest.raises(ValueError, match="name"):
        dg.fetch_file("features.dat")
    with pytest.raises(ValueError, match="download"):
        cl.load_features("test", download="yes")


# --- real downloads from a local HTTP server (a mirror on 127.0.0.1) ----------------------

class CountingHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def serve(folder):
    """Serve ``folder`` over HTTP on 127.0.0.1 (a free port) from a thread; yield (base_url, requests)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(CountingHandler, directory=str(folder)))
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", server.requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def http_folder(tmp_path):
    """An empty folder served on 127.0.0.1; yield (folder, base_url, requests)."""
    folder = tmp_path / "served"
    folder.mkdir()
    with serve(folder) as (base_url, requests):
        yield folder, base_url, requests


def test_download_verifies_caches_and_reuses(http_folder, offline, monkeypatch):
    """A real HTTP download of a small file whose checksum we register for the test."""
    folder, base_url, requests = http_folder
    monkeypatch.delenv(DATA_URL_ENV)                               # from the file's own address
    text = feature_text(2007, digit=5)
    (folder / "features.test").write_text(text)
    info = dg.DATA_FILES["features.test"]
    monkeypatch.setitem(dg.DATA_FILES, "features.test", info._replace(
        sha256=hashlib.sha256(text.encode()).hexdigest(), size=len(text.encode()), url=base_url + "features.test"))
    cached = offline / "cache" / dg.CACHE_SUBDIR / "features.test"
    with pytest.raises(FileNotFoundError):
        cl.load_features("test", download=False)                   # never downloads when told not to
    assert requests == []
    X, digits = cl.load_features("test")                            # by default: downloads on first use
    assert requests == ["/features.test"] and cached.read_text() == text
    assert X.shape == (2007, 2) and set(digits.tolist()) == {5}
    X2, _ = cl.load_features("test")
    assert requests == ["/features.test"] and np.array_equal(X, X2)
    # a corrupted cache entry is caught when read
    cached.write_text(text.replace("5.0", "6.0", 1))
    with pytest.raises(ValueError, match="SHA-256"):
        cl.load_features("test")


def test_a_corrupted_download_is_rejected_and_not_cached(http_folder, offline):
    folder, base_url, requests = http_folder
    (folder / "lfd_zip").mkdir()
    (folder / "lfd_zip" / "features.test").write_bytes(Path(__file__).read_bytes())   # not the published bytes
    cached = offline / "cache" / dg.CACHE_SUBDIR / "features.test"
    with pytest.raises(ValueError, match="SHA-256.*refused and not stored"):
        cl.load_features("test", base_url=base_url)
    assert requests == ["/lfd_zip/features.test"] and not cached.exists()
    assert not cached.parent.exists() or list(cached.parent.iterdir()) == []
    with pytest.raises(cl.DataUnavailableError, match="could not download.*404"):
        cl.load_features("train", base_url=base_url)                  # not served
    with pytest.raises(ValueError, match="base_url"):
        cl.load_features("train", base_url="ftp.example.org")


def test_an_oversized_download_is_cut_off_and_refused(http_folder, offline):
    folder, base_url, _ = http_folder
    (folder / "ntu_hw1").mkdir()
    (folder / "ntu_hw1" / "hw1_15_train.dat").write_bytes(b"0 0 0 0\t1\n" * 1_000_000)   # 10 MB
    with pytest.raises(ValueError, match="refused"):
        cl.load_homework("hw1_15_train.dat", base_url=base_url)


@pytest.mark.data
def test_every_loader_through_a_mirror_of_the_reference_folder(offline, monkeypatch, capsys):
    """``COURSE_DATA_URL`` names a mirror with the reference folder's layout: an empty cache fills
    from it, every file checked, and then no second request is made."""
    with serve(reference_dir()) as (base_url, requests):
        monkeypatch.setenv(DATA_URL_ENV, base_url)
        usps = {split: cl.load_usps(split) for split in ("train", "test")}
        feats = {split: cl.load_features(split) for split in ("train", "test")}
        hw = {name: cl.load_homework(name) for name in ("hw1_15_train.dat", "hw1_18_train.dat", "hw1_18_test.dat")}
        lfd = {name: cl.load_homework(name) for name in ("in.dta", "out.dta")}
        assert sorted(requests) == sorted(f"/{f.subdir}/{f.name}" for f in dg.DATA_FILES.values())
        progress = capsys.readouterr().err                              # a progress bar per download
        assert all(f"downloading {name}" in progress for name in dg.DATA_FILES) and "1.83M" in progress
        cache = offline / "cache" / dg.CACHE_SUBDIR
        for info in dg.DATA_FILES.values():
            assert hashlib.sha256((cache / info.name).read_bytes()).hexdigest() == info.sha256
        # the counts published with the data
        assert usps["train"].images.shape == (7291, 16, 16) and usps["test"].images.shape == (2007, 16, 16)
        assert np.bincount(feats["test"].digits).tolist() == [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]
        assert [int((y == 1).sum()) for _, y in hw.values()] == [284, 195, 149]
        assert [X.shape for X, _ in hw.values()] == [(400, 4), (500, 4), (500, 4)]
        assert [X.shape for X, _ in lfd.values()] == [(35, 2), (250, 2)]
        # the images and the features agree row by row (two files, two loaders)
        np.testing.assert_allclose(dg.features(usps["test"].images), feats["test"].X, atol=1e-6)
        # the lectures' entry points use them, and say nothing
        again = cl.load_digit_features(rng=0)
        assert not again.standin and np.array_equal(again.train.X, feats["train"].X)
        assert len(requests) == len(dg.DATA_FILES)                    # all read from the cache


@pytest.mark.data
def test_a_tampered_file_on_the_mirror_is_refused(tmp_path, offline):
    mirror = tmp_path / "mirror"
    for info in dg.DATA_FILES.values():
        (mirror / info.subdir).mkdir(parents=True, exist_ok=True)
        (mirror / info.subdir / info.name).write_bytes(reference_file(info.name).read_bytes())
    hw = mirror / "ntu_hw1" / "hw1_18_test.dat"
    hw.write_bytes(hw.read_bytes().replace(b"\t-1", b"\t1", 1))          # one label flipped, same size
    real = (mirror / "lfd_zip" / "features.test").read_bytes()
    (mirror / "lfd_zip" / "features.test").write_bytes(real.replace(b"e-01", b"e-02", 1))
    cache = offline / "cache" / dg.CACHE_SUBDIR
    with serve(mirror) as (base_url, requests):
        with pytest.raises(ValueError, match="hw1_18_test.dat.*SHA-256.*refused"):
            cl.load_homework("hw1_18_test.dat", base_url=base_url)
        with pytest.raises(ValueError, match="features.test.*SHA-256.*refused"):
            cl.load_features("test", base_url=base_url)
        assert not cache.exists() or list(cache.iterdir()) == []
        # the intact files still come through
        images, _ = cl.load_usps("test", base_url=base_url)
        assert images.shape == (2007, 16, 16)
        # and a copy corrupted later in the cache is caught when read
        (cache / "zip.test.gz").write_bytes(b"\0" + (cache / "zip.test.gz").read_bytes()[1:])
        with pytest.raises(ValueError, match="SHA-256"):
            cl.load_usps("test", base_url=base_url)
        assert len(requests) == 3


# --- the case-study pictures ---------------------------------------------------------------

def test_plot_digits_tiles_the_images_with_their_labels():
    import matplotlib
    import matplotlib.pyplot as plt

    before = dict(matplotlib.rcParams)
    images = np.random.default_rng(0).uniform(-1, 1, (5, 4, 3))
    ax = cl.plotting.plot_digits(images, [7, 1, 5, 1, 9], n=5, ncols=2)
    mosaic = ax.images[0].get_array()
    # each image has a band of paper above it for its label (2 rows here) and a column of paper to its right
    assert mosaic.shape == (3 * (4 + 2), 2 * (3 + 1) - 1)
    np.testing.assert_array_equal(mosaic[2:6, 4:7], images[1])          # row 0, column 1
    np.testing.assert_array_equal(mosaic[14:18, 0:3], images[4])        # row 2, column 0
    assert [t.get_text() for t in ax.texts] == ["7", "1", "5", "1", "9"]
    assert dict(matplotlib.rcParams) == before
    with pytest.raises(ValueError, match="labels"):
        cl.plotting.plot_digits(images, [1, 2])
    plt.close("all")


def test_decision_lines_span_the_feature_picture():
    import matplotlib.pyplot as plt

    X = np.array([[0.1, -0.5], [0.15, -1.0], [0.3, -5.0], [0.45, -7.0]])
    y = np.array([1, 1, -1, -1])
    w = np.array([-3.0, -2.0, -1.0])                                    # crosses the picture
    away = np.array([10.0, 1.0, 0.0])                                    # x1 = -10: +1 on the picture
    ax = cl.plotting.plot_digit_boundaries(X, y, {"w": w, "away": away})
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0.1 and x1 > 0.45 and y0 < -7 and y1 > -0.5           # every point visible
    xs, ys = ax.lines[0].get_data()
    np.testing.assert_allclose(w[0] + w[1] * xs + w[2] * ys, 0, atol=1e-9)
    assert min(xs) <= x0 + 1e-9 and max(xs) >= x1 - 1e-9              # from edge to edge
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "w" in labels and any("away" in t and "outside" in t for t in labels)
    with pytest.raises(ValueError, match="weights"):
        cl.plotting.plot_digit_boundaries(X, y, [w])
    with pytest.raises(ValueError, match="limits"):
        cl.plotting.plot_digit_features(X, y, limits=((1, 0), (0, 1)))
    plt.close("all")


# --- the digits lecture, fed from the mirror -------------------------------------------------

@pytest.mark.slow
@pytest.mark.data
def test_the_digits_lecture_runs_on_the_usps_data_from_a_mirror(offline, monkeypatch):
    """03-2 from the top, with no data folder and an empty cache: its USPS section downloads the
    two image files from the mirror, shows them and the experiment's figures, and raises nothing."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(__file__).resolve().parents[1] / "notebooks" / "03-2-digits-1-vs-5.ipynb"
    nb = nbformat.read(path, as_version=4)
    with serve(reference_dir()) as (base_url, requests):
        monkeypatch.setenv(DATA_URL_ENV, base_url)
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    assert sorted(requests) == ["/esl_zip/zip.test.gz", "/esl_zip/zip.train.gz"]
    usps_cells = [c for c in nb.cells if c.cell_type == "code" and "usps_" in c.source]
    assert usps_cells, "the lecture has no USPS cells any more"
    text = "".join(o.get("text", "") for c in usps_cells for o in c.outputs)
    assert "7291" in text.replace(",", "") and "could not download" not in text
    pictures = sum("image/png" in o.get("data", {}) for c in usps_cells for o in c.outputs)
    assert pictures >= 3, f"the USPS section showed {pictures} pictures"


def test_offline_the_message_names_the_setting_and_the_command_for_a_copy_of_ones_own(offline):
    for loader, name in [(cl.load_usps, "zip.train.gz"), (cl.load_features, "features.train"),
                         (cl.load_homework, "hw1_15_train.dat")]:
        with pytest.raises(cl.DataUnavailableError) as err:
            loader(name if loader is cl.load_homework else "train")
        text = str(err.value)
        assert f"{DATA_DIR_ENV}=<folder> make lab" in text and f"<folder>/{dg.DATA_FILES[name].subdir}/" in text
        assert "\n" not in text


@pytest.mark.parametrize("value", ["no-such-folder", "/no/such/folder"])
def test_a_data_folder_that_is_not_there_gives_the_one_line_fallback_naming_it(offline, monkeypatch, capsys, value):
    monkeypatch.chdir(offline)
    monkeypatch.setenv(DATA_DIR_ENV, value)
    monkeypatch.setenv(DATA_URL_ENV, "http://127.0.0.1:9/")     # nothing may be downloaded: the setting is wrong
    calls = []
    monkeypatch.setattr(cl.data, "_download", lambda *a, **k: calls.append(a))
    with pytest.raises(cl.DataUnavailableError) as err:
        cl.load_features("train")
    text = str(err.value)
    assert f"{DATA_DIR_ENV}={value} is not a folder" in text and "\n" not in text and not calls
    if not value.startswith("/"):                                 # a relative setting says where it led
        assert str(offline / value) in text
    # the lectures' stand-in says so in its one line
    data = cl.load_digit_features(rng=0)
    out = capsys.readouterr().out
    assert data.standin and out.count("\n") == 1 and f"{DATA_DIR_ENV}={value}" in out
