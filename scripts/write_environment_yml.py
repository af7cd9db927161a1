"""Write environment.yml (for conda and Binder users) from the students' requirements.

``make lock`` exports from uv.lock what students need (the "lab" extra) as requirement lines
(``name==version[ ; marker]``) and passes that file here; environment.yml names exactly the
same packages at exactly the same versions, installed by pip inside a conda environment.
``tests/test_environment.py`` fails when the two disagree.

Usage: python scripts/write_environment_yml.py EXPORTED_REQUIREMENTS
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def locked_requirements(path):
    """Return the requirement lines (``name==version[ ; marker]``) of a requirements file."""
    lines = []
    for raw in Path(path).read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: write_environment_yml.py EXPORTED_REQUIREMENTS (run 'make lock')")
    reqs = locked_requirements(argv[0])
    out = [
        "# Generated from uv.lock (the lab extra: what students need) by 'make lock'; do not edit by hand.",
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
    main(sys.argv[1:])
