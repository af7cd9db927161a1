"""Write environment.yml (for conda and Binder users) from requirements.lock.

The lock file is the single source of truth for versions; environment.yml names
exactly the same packages at exactly the same versions, installed by pip inside a
conda environment. ``tests/test_environment.py`` fails when the two disagree.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def locked_requirements(lock_path):
    """Return the requirement lines (``name==version[ ; marker]``) of a lock file."""
    lines = []
    for raw in Path(lock_path).read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def main():
    reqs = locked_requirements(ROOT / "requirements.lock")
    out = [
        "# Generated from requirements.lock by 'make lock'; do not edit by hand.",
        "# conda env create -f environment.yml && conda activate ml-foundations",
        "name: ml-foundations",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        "  - python=3.11",
        "  - pip",
        "  - pip:",
    ]
    out += [f'    - "{r}"' for r in reqs]
    out.append('    - "-e ."')
    (ROOT / "environment.yml").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
