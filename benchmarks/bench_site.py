"""How long ``make site`` takes: from a clean cache, and again with nothing changed.

The clean build executes every lecture (Sphinx reads the pages one process per core) and
renders the site; its baseline runs the same lectures with ``jupyter nbconvert --execute``,
as many at once as there are cores, and renders nothing: the ratio is what the website adds
to running the lectures. The second figure is a rebuild with nothing changed (every lecture
from the execution cache). Goals, on 2 cores: the clean build under 5 minutes, the rebuild
under 15 s. Both builds go to a temporary folder (COURSE_SITE_BUILD), never build/site/.
"""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks import paired

ROOT = Path(__file__).resolve().parents[1]
BUILD = [sys.executable, str(ROOT / "scripts" / "build_site.py")]
REBUILDS = 3


def lectures_by_nbconvert(out):
    """A callable: every lecture executed by nbconvert, one process per core at a time."""
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))

    def one(nb):
        subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                        "--ExecutePreprocessor.timeout=600", "--output-dir", str(out), str(nb)],
                       cwd=nb.parent, check=True, capture_output=True)

    def run():
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(one, notebooks))
    return run


def main():
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, COURSE_SITE_BUILD=str(Path(tmp) / "site"))
        clean = paired.alternate(paired.process([*BUILD, "--clean"], cwd=ROOT, env=env),
                                 lectures_by_nbconvert(Path(tmp) / "nbconvert"), runs=1, warmup=False)
        paired.row("make site from a clean cache (baseline: nbconvert --execute every lecture)", clean,
                   goal="<= 300 s", met=clean.project <= 300)
        again = paired.alternate(paired.process(BUILD, cwd=ROOT, env=env), runs=REBUILDS, warmup=False)
        paired.row("make site again with nothing changed", again, goal="<= 15 s", met=again.project <= 15)


if __name__ == "__main__":
    main()
    paired.print_table()
