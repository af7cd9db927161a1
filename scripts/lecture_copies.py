"""Give the student working copies of the lectures and the assignments, outside git.

The lectures in notebooks/ and the assignments in release/ are tracked by git and stay as
committed. `make lab` runs this script first: every lecture missing from my-lectures/ and
every released assignment missing from my-assignments/ (both ignored by git) is copied
there, and the student works on those copies, so running a notebook and saving it never
shows up in `git status` and never makes a `git pull` fail.

When a lecture or an assignment file changes upstream (after a `git pull`), its copy is
replaced only if it was never saved since it was copied; a copy you saved is kept and one
line says so (delete the copy and run `make lab` again to get the new version).

    python scripts/lecture_copies.py [COURSE_DIR]
"""
import hashlib
import json
import shutil
import sys
from pathlib import Path

COPIES = "my-lectures"
ASSIGNMENT_COPIES = "my-assignments"
RECORD = ".copied-from.json"     # file name (relative to the copies' folder) -> SHA-256 of the version copied


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sync_files(files, source_root, target_root, what):
    """Copy ``files`` (paths under ``source_root``) to the same places under ``target_root``; return (copied, lines)."""
    target_root.mkdir(exist_ok=True)
    record_path = target_root / RECORD
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        record = {}
    lines, copied = [], 0
    for original in files:
        name = original.relative_to(source_root).as_posix()
        copy, now = target_root / name, digest(original)
        if not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(original, copy)
            record[name], copied = now, copied + 1
        elif record.get(name) != now:
            if record.get(name) == digest(copy):                 # never saved: take the new version
                shutil.copyfile(original, copy)
                record[name], copied = now, copied + 1
            else:
                lines.append(f"{source_root.name}/{name} has changed; your saved copy {target_root.name}/{name} "
                             f"is kept (delete it and run make lab again for the new version of the {what}).")
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return copied, lines


def sync(course):
    """Copy new lectures and released assignments, refresh unsaved copies; return the lines to print."""
    lectures = sorted((course / "notebooks").glob("*.ipynb"))
    copied, lines = _sync_files(lectures, course / "notebooks", course / COPIES, "lecture")
    out = [f"{copied} lecture(s) copied to {COPIES}/: open the lectures there (your outputs stay out of git)."
           ] if copied else []
    released = course / "release"
    if released.is_dir():
        files = sorted(p for p in released.rglob("*") if p.is_file() and not p.is_symlink()
                       and ".ipynb_checkpoints" not in p.parts)
        done, more = _sync_files(files, released, course / ASSIGNMENT_COPIES, "assignment")
        if done:
            out.append(f"{done} assignment file(s) copied to {ASSIGNMENT_COPIES}/: work on the assignments there "
                       f"(make check NB={ASSIGNMENT_COPIES}/<assignment>/<assignment>.ipynb).")
        lines += more
    return out + lines


def main(argv):
    course = Path(argv[1] if len(argv) > 1 else ".").resolve()
    for line in sync(course):
        print(line)


if __name__ == "__main__":
    main(sys.argv)
