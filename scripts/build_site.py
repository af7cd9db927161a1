"""Build the course's website into build/site/html/ (``make site``).

    python scripts/build_site.py              build (lectures executed, or taken from the cache)
    python scripts/build_site.py --clean      throw away the cache and every earlier build first
    python scripts/build_site.py --jobs 1     read the pages in one process (default: one per core)

Sphinx with MyST-NB and the book theme (settings in docs/conf.py). The pages' sources are laid
out under build/site/src/: a copy of docs/' pages, and links to notebooks/ (as lectures/) and
release/ (as assignments/). The build fails (exit status 1) on any warning: a lecture cell that
raises, a broken cross-reference, a lecture missing from docs/course.yml. It ends with one line: pages, lectures executed and
taken from the cache, seconds.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD = Path(os.environ.get("COURSE_SITE_BUILD", ROOT / "build" / "site"))
NOT_PAGES = {"conf.py", "course.yml", "_ext", "_static", "_templates", "__pycache__"}
# Pages of Sphinx's own that are not the course's (the index of terms, the search page).
SPHINX_PAGES = {"genindex.html", "search.html", "py-modindex.html"}


def _sync(source, dest):
    """Make ``dest`` a copy of the folder or file ``source``, writing only what differs (mtimes kept)."""
    if source.is_file():
        if not dest.is_file() or dest.is_symlink() or dest.read_bytes() != source.read_bytes():
            if dest.is_symlink() or dest.is_dir():
                dest.unlink() if dest.is_symlink() else shutil.rmtree(dest)
            shutil.copy2(source, dest)
        return
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    dest.mkdir(exist_ok=True)
    wanted = {p.name for p in source.iterdir() if p.name != "__pycache__"}
    for entry in dest.iterdir():
        if entry.name not in wanted:
            entry.unlink() if entry.is_symlink() or entry.is_file() else shutil.rmtree(entry)
    for name in wanted:
        _sync(source / name, dest / name)


def stage(src):
    """Lay out the site's sources under ``src``.

    docs/' pages are copied (a relative link between them then resolves inside ``src``); the
    lectures and problem sets are links to notebooks/ and release/, so that the executed notebook
    and the downloadable one are the committed files themselves.
    """
    pages = {p.name: p for p in DOCS.iterdir() if p.name not in NOT_PAGES and not p.name.startswith(".")}
    pages["README.md"] = ROOT / "README.md"   # not a page: the guides include its Quickstart and tables
    links = {"lectures": ROOT / "notebooks", "assignments": ROOT / "release"}
    src.mkdir(parents=True, exist_ok=True)
    for entry in src.iterdir():
        if entry.name not in pages and entry.name not in links:
            entry.unlink() if entry.is_symlink() or entry.is_file() else shutil.rmtree(entry)
    for name, target in links.items():
        link = src / name
        if link.is_symlink() and link.resolve() == target.resolve():
            continue
        if link.exists() or link.is_symlink():
            link.unlink() if link.is_symlink() or link.is_file() else shutil.rmtree(link)
        link.symlink_to(target, target_is_directory=True)
    for name, source in pages.items():
        _sync(source, src / name)


def prune_caches(keep):
    """Remove the execution caches of other course_lib versions (each is keyed by its folder's name)."""
    for old in (BUILD / "cache").glob("*"):
        if old.is_dir() and old.resolve() != keep.resolve():
            shutil.rmtree(old, ignore_errors=True)


def pages(html):
    return sorted(p for p in html.rglob("*.html")
                  if "_static" not in p.parts and "_sources" not in p.parts and p.name not in SPHINX_PAGES)


def executions(cache_path, since):
    """(lectures executed since ``since``, lectures in the cache)."""
    if not cache_path.is_dir():
        return 0, 0
    from jupyter_cache import get_cache

    records = get_cache(str(cache_path)).list_cache_records()
    new = sum(r.created.replace(tzinfo=r.created.tzinfo or timezone.utc) >= since for r in records)
    return new, len(records)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the cache and earlier builds first")
    parser.add_argument("--jobs", default="auto", help="processes reading pages (default: auto, one per core)")
    args = parser.parse_args(argv)
    if args.clean:
        shutil.rmtree(BUILD, ignore_errors=True)
    sys.path.insert(0, str(DOCS / "_ext"))
    import course_site

    cache_path = BUILD / "cache" / course_site.execution_key()
    prune_caches(cache_path)
    src, html = BUILD / "src", BUILD / "html"
    stage(src)
    started, since = time.perf_counter(), datetime.now(timezone.utc)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(DOCS), "-d", str(BUILD / "doctrees"),
           "-W", "--keep-going", "-q", "-j", str(args.jobs), str(src), str(html)]
    env = dict(os.environ, COURSE_SITE_BUILD=str(BUILD))
    status = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    seconds = time.perf_counter() - started
    new, cached = executions(cache_path, since)
    if status != 0:
        print(f"make site: the build failed after {seconds:.1f} s (the messages above say where)", file=sys.stderr)
        return 1
    print(f"make site: {len(pages(html))} pages in {html.relative_to(ROOT) if html.is_relative_to(ROOT) else html}; "
          f"{new} lectures executed, {cached - new} from the cache; {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
