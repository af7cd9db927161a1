"""The deployment's collector never hands a student the file a link points to."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))
course_exchange = pytest.importorskip("course_exchange")


def collector():
    from nbgrader.coursedir import CourseDirectory
    return course_exchange.OwnerCheckedCollect(coursedir=CourseDirectory(), authenticator=None)


def test_links_are_collected_as_links(tmp_path):
    secret = tmp_path / "instructor" / "source.ipynb"
    secret.parent.mkdir()
    secret.write_text("the reference solution")
    entry = tmp_path / "inbound" / "eve+ps1+2026-01-01 00:00:00.000000 UTC+abc"
    entry.mkdir(parents=True)
    (entry / "ps1.ipynb").symlink_to(secret)
    (entry / "data").mkdir()
    (entry / "data" / "notes.txt").write_text("mine")
    (entry / "folder").symlink_to(secret.parent)
    dest = tmp_path / "submitted" / "eve" / "ps1"
    collector().do_copy(str(entry), str(dest))
    assert (dest / "ps1.ipynb").is_symlink() and (dest / "folder").is_symlink()
    assert (dest / "data" / "notes.txt").read_text() == "mine"
    copied = [p for p in dest.rglob("*") if p.is_file() and not p.is_symlink()]
    assert all("reference solution" not in p.read_text() for p in copied)
