"""The course's own parts of the website (a Sphinx extension, loaded by docs/conf.py).

* Pages made from ``docs/course.yml``: the roadmap of Lin's four questions, the syllabus, the
  learning outcomes, the lecture-to-seed map and the list of problem sets (directives
  ``course-roadmap``, ``course-syllabus``, ``course-outcomes``, ``course-seed-map``,
  ``course-assignments``). A lecture with a notebook links to its page; one without is "coming".
* Checks that fail the build (as warnings under ``-W``): a notebook in ``notebooks/`` or an
  assignment in ``release/`` that ``course.yml`` does not name, and a lecture entry that names an
  unknown question or assignment.
* A "run this notebook" box on every lecture and assignment page: the course's hub when
  ``launch_url`` is set (in ``course.yml``, or ``COURSE_LAUNCH_URL``), and always the notebook's
  download and the ``make lab`` way (docs/conf.py reads the setting).
* The lectures' kernels start with ``static_widgets`` registered (see that module), through a
  startup file in an IPython folder of the build's own; every lecture page is read again (its
  outputs then come from the execution cache, or a new run) when ``course_lib`` changes.
* MathJax is served from the site itself (the copy of MathJax 3 in the ``django-static-mathjax``
  package): formulas are typeset without any outside service.
"""
import hashlib
import html
import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DATA = DOCS / "course.yml"
LECTURES_DIR, RELEASE_DIR = ROOT / "notebooks", ROOT / "release"
LECTURE_DOCS, ASSIGNMENT_DOCS = "lectures", "assignments"
logger = logging.getLogger(__name__)


# --- the course's data ---------------------------------------------------------------------

def load_course(path=DATA):
    """``course.yml`` as a dict, with the lectures and assignments that exist marked ``present``."""
    with open(path, encoding="utf-8") as f:
        course = yaml.safe_load(f)
    for name, lecture in course["lectures"].items():
        lecture["name"] = name
        lecture["present"] = (LECTURES_DIR / f"{name}.ipynb").is_file()
        lecture.setdefault("seeds", {})
        lecture.setdefault("outcomes", [])
    for name, assignment in course["assignments"].items():
        assignment["name"] = name
        assignment["present"] = (RELEASE_DIR / name / f"{name}.ipynb").is_file()
    return course


def problems(course):
    """What ``course.yml`` gets wrong or leaves out, as sentences (empty when all is well)."""
    found = []
    lectures, assignments = course["lectures"], course["assignments"]
    for path in sorted(LECTURES_DIR.glob("*.ipynb")):
        if path.stem not in lectures:
            found.append(f"notebooks/{path.name} is not in docs/course.yml: add its entry under 'lectures' "
                         "(week, question, follows, book, seeds, assignment, outcomes)")
    for path in sorted(RELEASE_DIR.glob("*/*.ipynb")):
        if path.parent.name not in assignments:
            found.append(f"release/{path.parent.name}/ is not in docs/course.yml: add its entry under 'assignments'")
    for name, lecture in lectures.items():
        if not re.fullmatch(r"\d\d-\d+-[a-z0-9-]+", name):
            found.append(f"lecture {name}: a lecture is named NN-k-slug, like its notebook")
        if lecture.get("question") not in course["questions"]:
            found.append(f"lecture {name}: question {lecture.get('question')!r} is not one of {list(course['questions'])}")
        if lecture.get("assignment") and lecture["assignment"] not in assignments:
            found.append(f"lecture {name}: assignment {lecture['assignment']!r} is not under 'assignments'")
        for seed in lecture["seeds"]:
            if str(seed) not in course["seeds"]:
                found.append(f"lecture {name}: seed {seed!r} is not under 'seeds'")
        if not lecture.get("outcomes"):
            found.append(f"lecture {name}: no learning outcomes")
    return found


def launch_url(config):
    """The hub's launch link template ('' when no hub is configured)."""
    return (config.course_launch_url or "").strip()


def hub_link(template, path):
    """The launch link for ``path`` (a path in the repository, e.g. ``notebooks/02-2-pla.ipynb``)."""
    if "{path}" not in template:
        raise ValueError(f"launch_url must contain {{path}} where the notebook's path goes; got {template!r}")
    return template.replace("{path}", quote(path, safe=""))


# --- generated pages -------------------------------------------------------------------------

def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def lecture_link(lecture):
    label = f"{lecture['name'][:4]} {lecture['title']}"
    if lecture["present"]:
        return f"{{doc}}`{_cell(label)} </{LECTURE_DOCS}/{lecture['name']}>`"
    return f"{_cell(label)} *(coming)*"


def assignment_link(course, name):
    if not name:
        return "—"
    assignment = course["assignments"][name]
    if assignment["present"]:
        return f"{{doc}}`{name} </{ASSIGNMENT_DOCS}/{name}/{name}>`"
    return f"{name} *(coming)*"


def roadmap(course):
    lines = []
    for key, question in course["questions"].items():
        lines += [f"**{question}**", ""]
        chosen = [lec for lec in course["lectures"].values() if lec["question"] == key]
        for lec in chosen:
            lines.append(f"- {lecture_link(lec)} (week {lec['week']}; {_cell(lec['follows'])})")
        lines.append("")
    return lines


def syllabus(course):
    lines = ["| week | lecture notebooks | problem set | follows | seeds | book sections |",
             "| --- | --- | --- | --- | --- | --- |"]
    weeks = {}
    for lec in course["lectures"].values():
        weeks.setdefault(lec["week"], []).append(lec)
    for week in sorted(weeks):
        lecs = weeks[week]
        names = "<br>".join(lecture_link(lec) for lec in lecs)
        sets = "<br>".join(dict.fromkeys(assignment_link(course, lec.get("assignment")) for lec in lecs))
        follows = "<br>".join(dict.fromkeys(_cell(lec["follows"]) for lec in lecs))
        seeds = ", ".join(dict.fromkeys(str(s) for lec in lecs for s in lec["seeds"])) or "—"
        books = "<br>".join(dict.fromkeys(_cell(lec["book"]) for lec in lecs))
        lines.append(f"| {week} | {names} | {sets} | {follows} | {seeds} | {books} |")
    return lines


def outcomes(course):
    lines = []
    for lec in course["lectures"].values():
        lines += [f"{lecture_link(lec)} — week {lec['week']}, {course['questions'][lec['question']]}", ""]
        lines += [f"- {_cell(o)}" for o in lec["outcomes"]] + [""]
    return lines


def seed_map(course):
    lines = ["| lecture | follows | seed | what the lecture takes from it |", "| --- | --- | --- | --- |"]
    for lec in course["lectures"].values():
        if not lec["seeds"]:
            lines.append(f"| {lecture_link(lec)} | {_cell(lec['follows'])} | — | not among the seeds |")
        for seed, what in lec["seeds"].items():
            lines.append(f"| {lecture_link(lec)} | {_cell(lec['follows'])} | {seed} | {_cell(what)} |")
    lines += ["", "The seeds:", ""]
    lines += [f"- **{key}**: {text}" for key, text in course["seeds"].items()]
    return lines


def assignment_list(course):
    lines = ["| problem set | practises |", "| --- | --- |"]
    for name, assignment in course["assignments"].items():
        lecs = [lecture_link(lec) for lec in course["lectures"].values() if lec.get("assignment") == name]
        lines.append(f"| {assignment_link(course, name)}: {_cell(assignment['title'])} | {', '.join(lecs) or '—'} |")
    return lines


MAKERS = {"course-roadmap": roadmap, "course-syllabus": syllabus, "course-outcomes": outcomes,
          "course-seed-map": seed_map, "course-assignments": assignment_list}


def make_directive(maker):
    class CourseTable(SphinxDirective):
        """Markdown made from docs/course.yml, parsed where the directive stands."""
        has_content = False

        def run(self):
            self.env.note_dependency(str(DATA))
            course = load_course()
            container = nodes.container(classes=["course-generated"])
            self.state.nested_parse(StringList(maker(course), source=str(DATA)), self.content_offset, container)
            return [container]
    return CourseTable


# --- the "run this notebook" box --------------------------------------------------------------

def launch_box(app, docname):
    """HTML of the box for a lecture or assignment page, or None for any other page."""
    parts = docname.split("/")
    up = "../" * (len(parts) - 1)
    students = app.builder.get_relative_uri(docname, "guides/students")
    template = launch_url(app.config)
    if parts[0] == LECTURE_DOCS and len(parts) == 2:
        repo_path, mine = f"notebooks/{parts[1]}.ipynb", f"my-lectures/{parts[1]}.ipynb"
        how = (f"in a clone of the course, <code>make lab</code> opens JupyterLab with your own copy "
               f"<code>{mine}</code>")
    elif parts[0] == ASSIGNMENT_DOCS and len(parts) == 3:
        repo_path = f"release/{parts[1]}/{parts[2]}.ipynb"
        how = (f"in a clone of the course, <code>make lab</code> and open <code>{repo_path}</code>; "
               "on the course's hub, fetch it from <em>Assignment List</em>. Press <strong>Validate</strong> "
               "before you submit")
    else:
        return None
    items = []
    if template:
        items.append(f'<a class="course-launch-hub" href="{html.escape(hub_link(template, repo_path))}">Open it on the course\'s '
                     'JupyterHub</a>')
    items.append(f'<a class="course-download" href="{up}_sources/{docname}.ipynb" download>Download the notebook</a> '
                 '(without outputs) and open it in JupyterLab')
    items.append(f'{how} (<a href="{students}">students\' guide</a>)')
    what = "run the cells and move the widgets" if parts[0] == LECTURE_DOCS else "fill it in"
    return ('<div class="admonition tip course-launch"><p class="admonition-title">Run this notebook</p>'
            f'<p>This page shows it executed, with its figures. To {what} yourself:</p><ul>'
            + "".join(f"<li>{item}</li>" for item in items) + "</ul></div>")


def mark_answers_for_mathjax(doctree):
    """Let MathJax read the formulas a lecture writes inside raw HTML (its folded answers)."""
    for raw in doctree.findall(nodes.raw):
        if "html" in raw.get("format", "").split() and "<details" in raw.astext():
            marked = re.sub(r"<details(?=[\s>])(?![^>]*\bclass=)", '<details class="tex2jax_process"', raw.astext())
            raw.parent.replace(raw, nodes.raw("", marked, format="html"))


def add_launch_box(app, doctree, docname):
    mark_answers_for_mathjax(doctree)
    box = launch_box(app, docname)
    if box is None:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not section.children or not isinstance(section[0], nodes.title):
        logger.warning(f"{docname}: no title to put the 'run this notebook' box under", location=docname)
        return
    section.insert(1, nodes.raw("", box, format="html"))


# --- builds: checks, the kernels' start-up, cache keys, MathJax -------------------------------

def execution_key():
    """What the lectures' outputs depend on besides the notebook itself (jupyter-cache hashes that).

    course_lib's code, the locked packages, the widget printer, and which data folder is used.
    """
    h = hashlib.sha256()
    files = sorted((ROOT / "course_lib").rglob("*.py")) + [ROOT / "uv.lock", DOCS / "_ext" / "static_widgets.py"]
    for path in files:
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(("COURSE_DATA_DIR=" + os.environ.get("COURSE_DATA_DIR", "")).encode())
    return h.hexdigest()[:16]


def builder_inited(app):
    for problem in problems(load_course()):
        logger.warning(problem, type="course", subtype="data")
    profile = Path(app.config.course_ipython_dir) / "profile_default"
    (profile / "startup").mkdir(parents=True, exist_ok=True)
    files = {
        profile / "startup" / "00-course-site.py":
            "import runpy\n"
            f"runpy.run_path({str(DOCS / '_ext' / 'static_widgets.py')!r})['register'](get_ipython())\n",
        # the kernels' own notices (a loopback connection "without encryption") are not the lectures'
        profile / "ipython_kernel_config.py": 'c.IPKernelApp.log_level = "ERROR"\n',
    }
    for path, code in files.items():
        if not path.is_file() or path.read_text() != code:
            path.write_text(code)
    os.environ["IPYTHONDIR"] = str(app.config.course_ipython_dir)


def env_get_outdated(app, env, added, changed, removed):
    """Every lecture again when course_lib (or the lock, the widget printer, the data) changed."""
    key = execution_key()
    if getattr(env, "course_execution_key", None) == key:
        return []
    env.course_execution_key = key
    return [d for d in env.found_docs if d.startswith(LECTURE_DOCS + "/") and d not in added | changed]


# What of MathJax's release the pages use: the TeX-to-HTML component, its fonts, and the TeX
# extensions and menu parts it loads when a formula or the reader asks for them.
MATHJAX_PARTS = ["tex-chtml.js", "output/chtml", "input/tex/extensions", "ui", "a11y", "adaptors"]


def mathjax_source():
    import importlib.util

    spec = importlib.util.find_spec("mathjax")   # django-static-mathjax's folder, not imported
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("MathJax is missing: the site needs the django-static-mathjax package (make setup-test)")
    return Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"


def copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_source()
    dest = Path(app.outdir) / "_static" / "mathjax"
    stamp = dest / ".source"
    if stamp.is_file() and stamp.read_text() == str(source):
        return
    shutil.rmtree(dest, ignore_errors=True)
    for part in MATHJAX_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, dest / part)
        elif (source / part).is_file():
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / part, dest / part)
    stamp.write_text(str(source))


def setup(app):
    app.add_config_value("course_launch_url", "", "html")   # a new link rewrites every page
    app.add_config_value("course_ipython_dir", str(ROOT / "build" / "site" / "ipython"), "")
    for name, maker in MAKERS.items():
        app.add_directive(name, make_directive(maker))
    app.connect("builder-inited", builder_inited)
    app.connect("env-get-outdated", env_get_outdated)
    app.connect("doctree-resolved", add_launch_box)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["execution_key", "hub_link", "launch_box", "load_course", "problems", "setup"]
