"""The course's website (``make site``; docs/, scripts/build_site.py).

Fast: docs/course.yml names every lecture and problem set, the "run this notebook" links, and
the static picture of a widget (docs/_ext/static_widgets.py) on real course widgets.

Slow (the ``site`` fixture builds the site once, as ``make site`` does, into build/site/, so a
later ``make site`` starts from its cache): every lecture in notebooks/ runs on the site without an
error (this is the suite's "every lecture runs" check; nbval checks the notebooks of source/),
each has its page with figures, its widgets as pictures and its answers folded; no page holds
a hidden test, a solution or a path into source/; a build fails on a lecture that raises, a broken
link and a notebook missing from docs/course.yml.

Browser (Chromium, as tests/test_browser.py): every page loads without a console error or a
failed or outside request, every image has a size, every internal link and anchor resolves, no
TeX is left untypeset, the search finds each lecture by a word of its body, answers stay hidden
until their summary is clicked. Screenshots of a few pages go to browser-screenshots/site-*.png
(named in the test report).
"""
import base64
import collections
import functools
import html as html_lib
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import course_site  # noqa: E402
import static_widgets  # noqa: E402

LECTURES = sorted((ROOT / "notebooks").glob("*.ipynb"))
RELEASED = sorted((ROOT / "release").glob("*/*.ipynb"))
SOURCES = sorted((ROOT / "source").glob("*/*.ipynb"))
BUILD = ROOT / "build" / "site"
CAPTION = "In the notebook this picture is interactive"
pytest_plugins = ["labdriver"]


# --- docs/course.yml and the pieces of the build (fast) ------------------------------------------

def test_course_data_names_every_lecture_and_problem_set():
    course = course_site.load_course()
    assert course_site.problems(course) == []
    assert {p.stem for p in LECTURES} <= set(course["lectures"])
    assert {p.parent.name for p in RELEASED} <= set(course["assignments"])
    # the lectures being written are named already (listed as coming until their notebook lands)
    assert {"05-4-naive-bayes", "06-3-the-vc-dimension", "07-4-validation"} <= set(course["lectures"])
    assert {"ps6_generalization", "ps7_validation"} <= set(course["assignments"])


def test_a_lecture_missing_from_the_course_data_is_named(monkeypatch, tmp_path):
    course = course_site.load_course()
    del course["lectures"][LECTURES[0].stem]
    course["lectures"][LECTURES[1].stem]["assignment"] = "ps0_nothing"
    found = course_site.problems(course)
    assert any(f"notebooks/{LECTURES[0].name} is not in docs/course.yml" in p for p in found), found
    assert any("'ps0_nothing' is not under 'assignments'" in p for p in found), found


def test_syllabus_rows_follow_the_weeks_and_link_only_existing_lectures():
    course = course_site.load_course()
    rows = course_site.syllabus(course)[2:]
    weeks = [int(r.split("|")[1]) for r in rows]
    assert weeks == sorted(set(weeks)) and weeks[0] == 1
    text = "\n".join(rows)
    for name, lecture in course["lectures"].items():
        link = f"</lectures/{name}>"
        assert (link in text) == lecture["present"], name
        if not lecture["present"]:
            assert f"{name[:4]} {lecture['title']} *(coming)*" in text


def test_hub_link_puts_the_notebook_path_in_the_configured_template():
    template = ("https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgit.example.edu%2Fml"
                "&branch=main&urlpath=lab%2Ftree%2Fml%2F{path}")
    link = course_site.hub_link(template, "notebooks/02-2-pla.ipynb")
    assert link.endswith("urlpath=lab%2Ftree%2Fml%2Fnotebooks%2F02-2-pla.ipynb")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    assert query["urlpath"] == ["lab/tree/ml/notebooks/02-2-pla.ipynb"]
    with pytest.raises(ValueError, match=r"\{path\}"):
        course_site.hub_link("https://hub.example.edu/hub", "notebooks/02-2-pla.ipynb")


class _Builder:
    def get_relative_uri(self, frm, to):
        return "../" * frm.count("/") + to + ".html"


class _App:
    def __init__(self, launch_url):
        self.builder = _Builder()
        self.config = type("Config", (), {"course_launch_url": launch_url})()


@pytest.mark.parametrize("configured", [False, True], ids=["no hub", "hub"])
def test_run_this_notebook_box_links_the_hub_only_when_one_is_configured(configured):
    app = _App("https://hub.example.edu/hub/user-redirect/git-pull?urlpath=lab%2Ftree%2F{path}" if configured else "")
    box = course_site.launch_box(app, "lectures/02-2-pla")
    assert 'href="../_sources/lectures/02-2-pla.ipynb" download' in box
    assert "<code>make lab</code>" in box and "my-lectures/02-2-pla.ipynb" in box
    assert ("hub.example.edu" in box) == configured
    assert ("notebooks%2F02-2-pla.ipynb" in box) == configured
    assignment = course_site.launch_box(app, "assignments/ps1_perceptron/ps1_perceptron")
    assert "release/ps1_perceptron/ps1_perceptron.ipynb" in assignment and "Validate" in assignment
    assert course_site.launch_box(app, "guides/students") is None


def test_execution_key_changes_with_course_lib_and_the_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_DATA_DIR", raising=False)
    key = course_site.execution_key()
    assert course_site.execution_key() == key
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    assert course_site.execution_key() != key
    monkeypatch.delenv("COURSE_DATA_DIR")
    fake_root = tmp_path / "root"
    shutil.copytree(ROOT / "course_lib", fake_root / "course_lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs" / "_ext", fake_root / "docs" / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "uv.lock", fake_root / "uv.lock")
    monkeypatch.setattr(course_site, "ROOT", fake_root)
    monkeypatch.setattr(course_site, "DOCS", fake_root / "docs")
    assert course_site.execution_key() == key
    with open(fake_root / "course_lib" / "perceptron.py", "a") as f:
        f.write("\n# a change\n")
    assert course_site.execution_key() != key


def _published(widget):
    """What a kernel publishes for ``widget`` with the site's printer registered."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    formatter = shell.display_formatter.ipython_display_formatter
    saved = dict(formatter.deferred_printers), dict(formatter.type_printers)
    static_widgets.register(shell)
    try:
        with capture_output() as captured:
            shell.display_formatter.format(widget)
    finally:
        formatter.deferred_printers.clear()
        formatter.deferred_printers.update(saved[0])
        formatter.type_printers.clear()
        formatter.type_printers.update(saved[1])
    return [o.data for o in captured.outputs]


def test_a_widget_on_a_static_page_is_its_figure_its_numbers_and_what_moving_it_shows():
    import course_lib as cl

    X, y, _ = cl.make_separable(20, 2, margin=0.1, rng=1)
    stepper = cl.widgets.PLAStepper(cl.add_bias(X), y)
    image, status, caption = _published(stepper)
    assert base64.b64decode(image["image/png"]) == bytes(stepper.image.value)  # the figure as drawn
    assert stepper.status.value in status["text/html"]
    text = caption["text/markdown"]
    assert text.startswith(CAPTION)
    for control in ("step t", "◀ back", "next ▶"):                # every control, by its label
        assert f"*{control}*" in text
    assert "step through PLA's corrections one at a time" in text
    assert not any("application/vnd.jupyter.widget-view+json" in o for o in (image, status, caption))


def test_every_widget_class_has_a_sentence_for_its_static_picture():
    import course_lib.widgets as w

    for name in w.__all__:
        cls = getattr(w, name)
        assert issubclass(cls, w._FigureWidget), f"{name} is not drawn by the shared figure machinery"
        assert getattr(cls, "moving_shows", None) or (cls.__doc__ or "").strip(), f"{name} says nothing of itself"


def test_a_bin_explorer_caption_names_its_sliders():
    import course_lib as cl

    outputs = _published(cl.widgets.BinExplorer(mu=0.4, n=10, eps=0.1, rng=0))
    caption = outputs[-1]["text/markdown"]
    assert caption.count("*") >= 6 and "bin model" in caption, caption


# --- the built site (slow) --------------------------------------------------------------------------

def run_build(root=ROOT, build=BUILD, *args, launch_url=None):
    env = dict(os.environ, COURSE_SITE_BUILD=str(build))
    env.pop("COURSE_LAUNCH_URL", None)
    if launch_url:
        env["COURSE_LAUNCH_URL"] = launch_url
    return subprocess.run([sys.executable, str(root / "scripts" / "build_site.py"), *args], cwd=root, env=env,
                          capture_output=True, text=True)


@pytest.fixture(scope="session")
def site():
    """``make site`` into build/site/ (the execution cache there is reused), once per session."""
    built = run_build()
    if built.returncode != 0:
        pytest.fail(f"make site failed:\n{built.stdout[-6000:]}\n{built.stderr[-6000:]}", pytrace=False)
    return collections.namedtuple("Site", "html summary")(BUILD / "html", built.stdout.strip().splitlines()[-1])


def page_text(path):
    """A page's text as a reader gets it: tags removed, entities decoded."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S | re.I)
    return html_lib.unescape(re.sub(r"<[^>]+>", "", raw))


def lecture_page(html, notebook):
    return html / "lectures" / f"{notebook.stem}.html"


@pytest.mark.slow
def test_every_lecture_runs_and_has_its_page_with_figures_and_folded_answers(site, record_property):
    record_property("report", f"site: {site.summary}")
    for notebook in LECTURES:
        page = lecture_page(site.html, notebook)
        assert page.is_file(), f"{notebook.name} has no page on the site"
        text = re.search(r"<article\b.*</article>", page.read_text(encoding="utf-8"), flags=re.S).group(0)
        assert "Traceback" not in page_text(page), f"{notebook.name}: an error output on its page"
        nb = nbformat.read(notebook, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        answers = sum(c.source.count("<details") for c in nb.cells if c.cell_type == "markdown")
        assert text.count("<details") == answers >= 2, notebook.name
        assert "<details open" not in text
        assert text.count('src="../_images/') >= 1, f"{notebook.name}: no figure"
        assert "cl.widgets." in code
        assert text.count(CAPTION) >= 1, f"{notebook.name}: its widget is not shown as a picture"
        assert not re.search(r"\b[HV]Box\(children=", text), f"{notebook.name}: a widget shown as its text"
        assert "course-launch" in text and f"_sources/lectures/{notebook.name}" in text
        assert (site.html / "_sources" / "lectures" / notebook.name).read_bytes() == notebook.read_bytes()
    index = (site.html / "index.html").read_text(encoding="utf-8")
    missing = [n.stem for n in LECTURES if f'href="lectures/{n.stem}.html"' not in index]
    assert not missing, f"lectures not linked from the landing page: {missing}"


@pytest.mark.slow
def test_problem_sets_are_the_student_versions_and_nothing_of_source_is_published(site):
    for released in RELEASED:
        page = site.html / "assignments" / released.parent.name / f"{released.stem}.html"
        assert page.is_file(), f"{released} has no page"
        text = page_text(page)
        assert "YOUR CODE HERE" in text and "raise NotImplementedError" in text
        assert 'class="cell_output' not in page.read_text(encoding="utf-8"), "a problem set was executed"
    secret = set()
    published = "\n".join(c.source for p in RELEASED + LECTURES for c in nbformat.read(p, as_version=4).cells)
    for source in SOURCES:
        nb = nbformat.read(source, as_version=4)
        for cell in nb.cells:
            for region in re.findall(r"BEGIN (?:SOLUTION|HIDDEN TESTS)[^\n]*\n(.*?)END (?:SOLUTION|HIDDEN TESTS)",
                                     cell.source, flags=re.S):
                secret |= {ln.strip() for ln in region.splitlines()
                           if len(ln.strip()) >= 30 and ln.strip() not in published}
    assert len(secret) > 20, "the check found hardly any solution or hidden-test lines to look for"
    files = [p for p in site.html.rglob("*") if p.is_file() and p.suffix in {".html", ".ipynb", ".js", ".txt"}]
    source_paths = [p.relative_to(ROOT).as_posix() for p in SOURCES]
    for path in files:
        raw = path.read_text(encoding="utf-8", errors="replace")
        text = page_text(path) if path.suffix == ".html" else raw
        where = path.relative_to(site.html)
        assert "BEGIN SOLUTION" not in raw and "BEGIN HIDDEN TESTS" not in raw, where
        leaked = [line for line in secret if line in text]
        assert not leaked, f"{where} shows solution or hidden-test code: {leaked[:3]}"
        assert not [s for s in source_paths if s in raw], f"{where} names a notebook of source/"
        assert not re.search(r"""href=["'][^"']*\bsource/""", raw), f"{where} links into source/"


@pytest.mark.slow
def test_the_instructor_kit(site):
    glossary = (site.html / "kit" / "glossary.html").read_text(encoding="utf-8")
    terms = [html_lib.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<a class="headerlink".*?</a>', "", t))).strip()
             for t in re.findall(r'<dt id="term-[^"]*">(.*?)</dt>', glossary, flags=re.S)]
    assert len(terms) == len(set(terms)) >= 40
    for term in ("margin of a point", "margin of a hyperplane", "margin of an SVM", "rho (ρ)", "gamma (γ)",
                 "VC dimension", "functional margin"):
        assert term in terms, term
    course = course_site.load_course()
    syllabus, outcomes, seeds = (page_text(site.html / "kit" / f"{name}.html").replace("’", "'")  # smart quotes
                                 for name in ("syllabus", "outcomes", "seed-map"))
    for name, lecture in course["lectures"].items():
        assert lecture["title"] in syllabus and lecture["title"] in seeds, name
        assert all(o in outcomes for o in lecture["outcomes"]), name
    for key in course["seeds"]:
        assert key in seeds


@pytest.mark.slow
def test_a_second_build_with_nothing_changed_executes_nothing(site):
    again = run_build()
    assert again.returncode == 0, again.stderr[-3000:]
    assert re.search(r"; 0 lectures executed, \d+ from the cache;", again.stdout), again.stdout


def _course_copy(tmp_path, notebooks):
    """A copy of the course's site sources with only ``notebooks`` ({name: [cell source]}) as lectures."""
    copy = tmp_path / "course"
    for part in ("docs", "scripts", "release"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "course_lib", copy / "course_lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "uv.lock", copy / "uv.lock")
    shutil.copy(ROOT / "README.md", copy / "README.md")
    (copy / "notebooks").mkdir()
    for name, cells in notebooks.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {name}")]
                                      + [nbformat.v4.new_code_cell(c) for c in cells])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, copy / "notebooks" / f"{name}.ipynb")
    return copy


def _add_lecture(copy, name):
    """List ``name`` in the copy's course.yml (its comments are not kept: the copy is thrown away)."""
    import yaml

    path = copy / "docs" / "course.yml"
    course = yaml.safe_load(path.read_text(encoding="utf-8"))
    course["lectures"][name] = {"title": "A test lecture", "week": 1, "question": "when", "follows": "nothing",
                                "book": "-", "outcomes": ["none"]}
    path.write_text(yaml.safe_dump(course, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_a_new_lecture_listed_in_the_course_data_gets_its_page_and_the_configured_hub_link(tmp_path):
    copy = _course_copy(tmp_path, {"09-1-new-lecture": ["import course_lib as cl", "print('seen on the page')"]})
    _add_lecture(copy, "09-1-new-lecture")
    hub = "https://hub.example.edu/hub/user-redirect/git-pull?repo=x&urlpath=lab%2Ftree%2Fml%2F{path}"
    built = run_build(copy, tmp_path / "build", launch_url=hub)
    assert built.returncode == 0, (built.stdout + built.stderr)[-3000:]
    assert "1 lectures executed" in built.stdout
    page = (tmp_path / "build" / "html" / "lectures" / "09-1-new-lecture.html").read_text(encoding="utf-8")
    assert "seen on the page" in page
    assert 'href="https://hub.example.edu/hub/user-redirect/git-pull?repo=x&amp;urlpath=lab%2Ftree%2Fml%2F' \
           'notebooks%2F09-1-new-lecture.ipynb"' in page
    syllabus = (tmp_path / "build" / "html" / "kit" / "syllabus.html").read_text(encoding="utf-8")
    assert 'href="../lectures/09-1-new-lecture.html"' in syllabus
    # the same build without the setting: no page links a hub
    again = run_build(copy, tmp_path / "build")
    assert again.returncode == 0 and "0 lectures executed" in again.stdout, again.stdout + again.stderr[-2000:]
    assert not [p for p in (tmp_path / "build" / "html").rglob("*.html") if "course-launch-hub" in p.read_text()]
    assert "course-launch-hub" not in (tmp_path / "build" / "html" / "lectures" / "09-1-new-lecture.html").read_text()


@pytest.mark.slow
def test_a_build_fails_naming_a_raising_lecture_a_broken_link_and_an_unlisted_notebook(tmp_path):
    copy = _course_copy(tmp_path, {"09-1-raises": ["x = 1", "raise ValueError('the lecture broke here')"],
                                   "09-2-not-listed": ["print(1)"]})
    _add_lecture(copy, "09-1-raises")
    with open(copy / "docs" / "guides" / "students.md", "a", encoding="utf-8") as f:
        f.write("\nSee [the missing page](no-such-page.md) and {doc}`nowhere`.\n")
    built = run_build(copy, tmp_path / "build")
    out = built.stdout + built.stderr
    assert built.returncode != 0, out[-3000:]
    assert "09-1-raises" in out and "the lecture broke here" in out, out[-3000:]   # its traceback
    assert "notebooks/09-2-not-listed.ipynb is not in docs/course.yml" in out, out[-3000:]
    assert "no-such-page" in out and "nowhere" in out, out[-3000:]
    assert "make site: the build failed" in out


# --- in a real browser ------------------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_server(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=site.html))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


MATHJAX_DONE = """() => !document.querySelector('script[src*="mathjax"]') ||
    (window.MathJax && MathJax.startup && MathJax.startup.promise && true)"""
LOOK = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
    const images = Array.from(document.images);
    images.forEach(img => { img.loading = 'eager'; });
    await Promise.all(images.map(img => img.decode().catch(() => null)));
    await document.fonts.ready;
    const clone = document.querySelector('main').cloneNode(true);
    clone.querySelectorAll('pre, code, .highlight, mjx-container, script, style').forEach(e => e.remove());
    return {
        images: images.map(img => ({src: img.currentSrc || img.src, w: img.naturalWidth, h: img.naturalHeight})),
        links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
        ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
        text: clone.textContent,
        mathErrors: document.querySelectorAll('mjx-merror, .MathJax_Error').length,
        math: document.querySelectorAll('mjx-container').length,
        details: Array.from(document.querySelectorAll('main details')).map(d => d.open),
    };
}"""
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]]|\$[^$\s][^$\n]{0,80}\$")


@pytest.fixture(scope="session")
def site_pages(site, site_server, browser):
    """Every page of the site loaded once in Chromium: what it showed, logged and requested."""
    import labdriver as ld

    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.set_default_timeout(ld.WAIT_MS)
    outside = []

    def route(r):
        if r.request.url.startswith(site_server) or r.request.url.startswith("data:"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    page = context.new_page()
    problems, seen = collections.defaultdict(list), {}
    page.on("console", lambda m: m.type == "error" and problems[page.url].append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems[page.url].append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems[page.url].append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and problems[page.url].append(f"HTTP {r.status}: {r.url}"))
    files = sorted(p.relative_to(site.html).as_posix() for p in site.html.rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts)
    for rel in files:
        page.goto(site_server + rel)
        page.wait_for_function(MATHJAX_DONE)
        seen[rel] = page.evaluate(LOOK)
        page.wait_for_load_state("networkidle")   # the favicon and fonts too, before the next page
    yield collections.namedtuple("Pages", "seen problems outside context base")(seen, problems, outside, context,
                                                                                    site_server)
    context.close()


@pytest.mark.slow
@pytest.mark.browser
def test_every_page_loads_cleanly_with_its_images_and_typeset_math(site_pages, record_property):
    seen = site_pages.seen
    assert len(seen) >= len(LECTURES) + len(RELEASED) + 8
    assert not site_pages.outside, f"pages reached outside the site: {sorted(set(site_pages.outside))[:10]}"
    assert not dict(site_pages.problems), "\n".join(f"{u}: {p}" for u, ps in site_pages.problems.items() for p in ps)
    broken = [(rel, i["src"]) for rel, s in seen.items() for i in s["images"] if not (i["w"] > 0 and i["h"] > 0)]
    assert not broken, f"images that did not load: {broken[:10]}"
    assert sum(len(s["images"]) for rel, s in seen.items() if rel.startswith("lectures/")) >= 3 * len(LECTURES)
    raw = {rel: RAW_TEX.findall(s["text"]) for rel, s in seen.items()}
    raw = {rel: found for rel, found in raw.items() if found}
    assert not raw, f"TeX left untypeset: {dict(list(raw.items())[:5])}"
    assert not [rel for rel, s in seen.items() if s["mathErrors"]], "a formula MathJax could not typeset"
    for notebook in LECTURES:
        assert seen[f"lectures/{notebook.stem}.html"]["math"] > 0, f"{notebook.name}: no typeset formula"
    record_property("report", f"site in the browser: {len(seen)} pages, "
                    f"{sum(len(s['images']) for s in seen.values())} images, "
                    f"{sum(s['math'] for s in seen.values())} formulas typeset, no console error")


@pytest.mark.slow
@pytest.mark.browser
def test_every_internal_link_and_anchor_resolves(site, site_pages):
    base, seen = site_pages.base, site_pages.seen
    ids = {rel: set(s["ids"]) for rel, s in seen.items()}
    bad, checked = [], 0
    for rel, s in seen.items():
        for href in s["links"]:
            if not href.startswith(base):
                continue
            target, _, fragment = href[len(base):].partition("#")
            target = urllib.parse.unquote(target.split("?")[0]) or "index.html"
            checked += 1
            if not (site.html / target).is_file():
                bad.append(f"{rel} -> {target} (no such file)")
            elif fragment and target.endswith(".html") and urllib.parse.unquote(fragment) not in ids.get(target, ()):
                bad.append(f"{rel} -> {target}#{fragment} (no such anchor)")
    assert checked > 500, checked
    assert not bad, "\n".join(sorted(set(bad))[:30])


def _search_word(notebook):
    """A long word of the lecture's body (not of its title) that its notebook uses most."""
    nb = nbformat.read(notebook, as_version=4)
    title = nb.cells[0].source.splitlines()[0].lower()
    body = " ".join(c.source for c in nb.cells[1:] if c.cell_type == "markdown").lower()
    words = collections.Counter(w for w in re.findall(r"\b[a-z]{8,}\b", body) if w not in title)
    return words.most_common(1)[0][0]


@pytest.mark.slow
@pytest.mark.browser
def test_search_finds_every_lecture_by_a_word_of_its_body(site_pages):
    page = site_pages.context.new_page()
    missed = []
    for notebook in LECTURES:
        word = _search_word(notebook)
        page.goto(site_pages.base + f"search.html?q={word}")
        page.wait_for_function("() => /Search finished|did not match/.test(document.querySelector("
                               "'#search-results .search-summary')?.innerText || '')")
        found = page.eval_on_selector_all("#search-results ul.search a", "links => links.map(a => a.href)")
        if not any(f"lectures/{notebook.stem}.html" in href for href in found):
            missed.append((notebook.stem, word, found[:5]))
    page.close()
    assert not missed, missed


@pytest.mark.slow
@pytest.mark.browser
def test_answers_stay_hidden_until_their_summary_is_clicked(site_pages, record_property):
    import labdriver as ld

    page = site_pages.context.new_page()
    shots = []
    for number, notebook in enumerate(LECTURES):
        page.goto(site_pages.base + f"lectures/{notebook.stem}.html")
        details = page.locator("main details")
        assert details.count() >= 2, notebook.name
        for i in range(details.count()):
            item = details.nth(i)
            answer = item.locator(":scope > :not(summary)").first
            assert not item.evaluate("d => d.open"), f"{notebook.name}: answer {i} starts open"
            assert not answer.is_visible(), f"{notebook.name}: answer {i} is visible before its click"
            item.locator("summary").click()
            answer.wait_for(state="visible")
            assert item.evaluate("d => d.open")
        if number == 1:
            ld.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            details.nth(0).scroll_into_view_if_needed()
            path = ld.SCREENSHOTS / "site-answer-opened.png"
            page.screenshot(path=str(path))
            shots.append(path)
    for name, rel, target in [("landing", "index.html", None), ("lecture-widget", f"lectures/{LECTURES[1].stem}.html",
                                                                 f"text={CAPTION}"),
                              ("glossary", "kit/glossary.html", None), ("syllabus", "kit/syllabus.html", None)]:
        page.goto(site_pages.base + rel)
        page.wait_for_function(MATHJAX_DONE)
        page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
        if target:
            page.locator(target).first.scroll_into_view_if_needed()
            page.evaluate("() => window.scrollBy(0, -450)")
        path = ld.SCREENSHOTS / f"site-{name}.png"
        page.screenshot(path=str(path))
        shots.append(path)
    page.close()
    record_property("report", "site screenshots: " + ", ".join(str(p) for p in shots))
