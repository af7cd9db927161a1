"""Give the student a working copy of every lecture, outside git: my-lectures/.

The lectures in notebooks/ are tracked by git and stay as committed. `make lab` runs
this script first: every lecture missing from my-lectures/ (ignored by git) is copied
there, and JupyterLab is opened on those copies, so running a lecture and saving it
never shows up in `git status` and never makes a `git pull` conflict.

When a lecture changes in notebooks/ (after a `git pull`), its copy is replaced only if
it was never saved since it was copied; a copy you saved is kept and one line says so
(delete the copy and run `make lab` again to get the new version).

    python scripts/lecture_copies.py [COURSE_DIR]
"""
import hashlib
import json
import shutil
import sys
from pathlib import Path

COPIES = "my-lectures"
RECORD = ".copied-from.json"     # lecture name -> SHA-256 of the version that was copied


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sync(course):
    """Copy new lectures into ``course/my-lectures``, refresh unsaved copies; return the lines to print."""
    source, target = course / "notebooks", course / COPIES
    target.mkdir(exist_ok=True)
    record_path = target / RECORD
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        record = {}
    lines, copied = [], 0
    for lecture in sorted(source.glob("*.ipynb")):
        copy, now = target / lecture.name, digest(lecture)
        if not copy.exists():
            shutil.copyfile(lecture, copy)
            record[lecture.name], copied = now, copied + 1
        elif record.get(lecture.name) != now:
            if record.get(lecture.name) == digest(copy):         # never saved: take the new version
                shutil.copyfile(lecture, copy)
                record[lecture.name], copied = now, copied + 1
            else:
                lines.append(f"notebooks/{lecture.name} has changed; your saved copy {COPIES}/{lecture.name} is kept "
                             "(delete it and run make lab again for the new version).")
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    if copied:
        lines.insert(0, f"{copied} lecture(s) copied to {COPIES}/: open the lectures there (your outputs stay out of git).")
    return lines


def main(argv):
    course = Path(argv[1] if len(argv) > 1 else ".").resolve()
    for line in sync(course):
        print(line)


if __name__ == "__main__":
    main(sys.argv)
