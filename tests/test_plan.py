"""What a class run grades again: a submission's digest (its content, never its times), the plan, the cells to review."""
import os

from grading import plan


def test_digest_is_content_not_time_and_never_follows_links(tmp_path):
    a = tmp_path / "a"
    a.mkdir()
    (a / "nb.ipynb").write_bytes(b"{}")
    (a / "helper.py").write_text("x = 1\n")
    first = plan.submission_digest(a)
    os.utime(a / "helper.py", (1, 1))
    (a / "timestamp.txt").write_text("2026-11-23 20:00:00")          # nbgrader collect's, not the student's
    assert plan.submission_digest(a) == first
    (a / "helper.py").write_text("x = 2\n")
    assert plan.submission_digest(a) != first
    (a / "helper.py").write_text("x = 1\n")
    assert plan.submission_digest(a) == first
    secret = tmp_path / "secret.txt"
    secret.write_text("one")
    (a / "link").symlink_to(secret)
    linked = plan.submission_digest(a)
    secret.write_text("two")                                        # the target is never read
    assert plan.submission_digest(a) == linked != first
    b = tmp_path / "b"
    b.mkdir()
    (b / "nb.ipynb").write_bytes(b"{}")
    (b / "helper.py").write_text("x = 1\n")
    (b / "link").symlink_to(secret)
    assert plan.submission_digest(b) == linked                     # same content, other folder: same digest


def _write_tree(folder, files):
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def test_the_same_bytes_cut_into_other_files_give_another_digest(tmp_path):
    """One file whose bytes read like a boundary between two, against those two files (the old digest's collision)."""
    _write_tree(tmp_path / "one", {"nb.ipynb": b"{}", "z": b"data\0F\0z1\0more"})
    _write_tree(tmp_path / "two", {"nb.ipynb": b"{}", "z": b"data", "z1": b"more"})
    assert plan.submission_digest(tmp_path / "one") != plan.submission_digest(tmp_path / "two")


def test_plan_changed_new_one_student_force():
    state = {"a": {"digest": "1", "source": "s"}, "b": {"digest": "2", "source": "s"},
             "c": {"digest": "3", "source": "s", "interrupted": True}}
    now = {"a": "1", "b": "2", "c": "3", "d": "4"}
    assert plan.plan(list(now), state, now, "s") == (["c", "d"], ["a", "b"])
    assert plan.plan(list(now), state, now, "s2") == (list(now), [])           # the assignment changed
    assert plan.plan(list(now), state, now, "s", force=True) == (list(now), [])
    assert plan.plan(list(now), state, now, "s", student="b") == (["b"], [])


def test_cells_to_review_flags_changed_exercises_only():
    old = {"nb": {"pla-solution": "1", "pla-test": "t", "radius-solution": "2", "bound-solution": "3"}}
    new = {"nb": {"pla-solution": "9", "pla-test": "t", "radius-solution": "2", "bound-solution": "3"}}
    manual = {"pla-test", "radius-solution"}
    assert plan.cells_to_review(manual, old, new) == ["pla-test"]
    assert plan.cells_to_review(manual, old, old) == []
