"""One truth in every export, whatever path graded the class.

One made-up class of ps1 arrives as a Canvas ``submissions.zip`` (imported with ``make
collect-lms``, a roster and Canvas's submission times) into a course whose gradebook knows
only the due date (set with ``nbgrader db assignment add``, as the README tells a TA). Copies of
it are then graded by each path a TA can take, with real nbgrader, the real sandbox and a real
gradebook:

* ``make autograde`` (its output going to a log, not a terminal);
* ``nbgrader autograde``, nbgrader's own command, on what is a fresh clone for it;
* the Formgrader's *autograde* buttons, clicked in Chromium on ``make lab-instructor``;
* ``python -m grading autograde --dask-scheduler`` on a real Dask scheduler and worker.

Every export of every copy — ``grades-<assignment>.csv``, its summary, ``grades.csv``, the
Canvas and Moodle files, ``nbgrader export`` — and every grading record must be the same byte
for byte. The same Formgrader then shows a grader the rubric, the late note and the formulas
(drawn offline), takes a manual grade that the exports follow at once, and makes feedback
pages without instructor lines that fit the page.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import zipfile

import labdriver as ld
import nbformat
import pytest
from grading_helpers import (
    ASSIGNMENT,
    ROOT,
    fill,
    grade_id,
    make_course,
    reference_bodies,
    stop_processes,
    with_answers,
)

pytest_plugins = ["labdriver"]
pytestmark = [pytest.mark.slow]

BIN = ROOT / ".venv" / "bin"
NB = f"{ASSIGNMENT}.ipynb"
DUE = "2026-11-20 23:59:00 UTC"
WRITTEN = "explain-cosine-bound-on-updates"
ANSWER = ("T corrections give $\\mathbf w_f^T\\mathbf w_T \\ge T\\rho$ and $\\lVert\\mathbf w_T\\rVert^2 \\le TR^2$, "
          "so $\\sqrt T\\,\\rho/R \\le 1$.")
# roster id -> (Canvas user id, sortable name, how the submission was made, submitted at or None)
CLASS = {
    "b01": (501, "lovelaceada", "reference", "2026-11-20T12:00:00Z"),
    "b02": (502, "babbagebob", "partial", "2026-11-20T13:00:00Z"),
    "b03": (503, "hoppergrace", "written", "2026-11-20T14:00:00Z"),           # waits for a grader
    "b04": (504, "turingalan", "broken", "2026-11-20T15:00:00Z"),             # not a notebook
    "b05": (505, "knuthdon", "renamed", "2026-11-20T16:00:00Z"),              # notebook under another name
    "b06": (506, "liskovbarbara", "late", "2026-11-22T09:59:00Z"),            # 34 h late: two started days
    "b08": (508, "hamiltonmargaret", "edited test", "2026-11-20T18:00:00Z"),  # a visible test cell edited
    "=1+2": (509, "formulaone", "reference", "2026-11-20T19:00:00Z"),         # named like spreadsheet formulas
    "@SUM(1+1)": (510, "formulatwo", "reference", "2026-11-20T20:00:00Z"),
}
UNGRADED = {"b04": "not valid JSON", "b05": "no ps1_perceptron.ipynb in submitted/b05/ps1_perceptron/"}
EXPORTS = [f"grades-{ASSIGNMENT}.csv", f"grades-{ASSIGNMENT}-summary.txt", "grades.csv", "grades-canvas.csv",
           "grades-moodle.csv", "export.csv"]


def _notebook(kind, released, ref):
    if kind in ("reference", "late"):
        return fill(released, ref)
    if kind == "partial":
        return fill(released, with_answers(ref, pla_solution=None, pocket_solution=None))
    if kind == "written":
        nb = fill(released, ref)
        for cell in nb.cells:
            if grade_id(cell) == WRITTEN:
                cell.source = ANSWER
        return nb
    if kind in ("edited test", "renamed"):
        nb = fill(released, ref)
        if kind == "edited test":
            for cell in nb.cells:
                if grade_id(cell) == "radius-longest-example-with-x0":
                    cell.source = "pass  # nothing to test here"
        return nb
    raise ValueError(kind)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The class imported from a made-up Canvas download into a course with a due date and no grades."""
    from grading.autograde import release
    from grading.lms import collect_lms

    work = tmp_path_factory.mktemp("classrun")
    course = make_course(work)
    for extra in ("Makefile", "scripts", "uv.lock", "pyproject.toml"):
        (shutil.copytree if (ROOT / extra).is_dir() else shutil.copy)(ROOT / extra, course / extra)
    release(course, ASSIGNMENT)
    released = nbformat.read(course / "release" / ASSIGNMENT / NB, as_version=4)
    ref = reference_bodies()
    entries, times = {}, []
    for n, (user, name, kind, when) in enumerate(CLASS.values()):
        late = "_LATE" if kind == "late" else ""
        prefix = f"{name}{late}_{user}_{9000 + n}_"
        if kind == "broken":
            entries[prefix + NB] = b"{ this is not a notebook"
        else:
            data = nbformat.writes(_notebook(kind, released, ref)).encode()
            entries[prefix + ("my_answers.ipynb" if kind == "renamed" else f"{ASSIGNMENT}-1.ipynb")] = data
        times.append({"user_id": user, "submitted_at": when})
    download = work / "submissions.zip"
    with zipfile.ZipFile(download, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    (work / "submissions.json").write_text(json.dumps(times))
    with (course / "roster.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student_id", "lms_id", "login", "email", "first_name", "last_name", "section"])
        for sid, (user, name, _, _) in CLASS.items():
            w.writerow([sid, user, f"u{user}", f"{name}@example.org", name[:-3].title(), name[-3:].title(), "A"])
    # one course, one secret: every copy below is the same course graded another way
    from grading.context import SECRET_FILE, course_secret
    course_secret(course / SECRET_FILE, create=True)
    result = collect_lms(course, ASSIGNMENT, download, times=work / "submissions.json", echo=lambda *a: None)
    assert sorted(result["imported"]) == sorted(CLASS) and result["late"] == ["b06"], result
    # the TA sets the due date as the README says, before anything is graded (no notebooks known yet)
    run = subprocess.run([str(BIN / "nbgrader"), "db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}"],
                         cwd=course, capture_output=True, text=True, env=_env())
    assert run.returncode == 0, run.stderr[-2000:]
    return course


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def _copy(template, dest):
    shutil.copytree(template, dest)
    return dest


def _exports(course):
    """Every export of ``course``, as bytes, after the TA's usual commands."""
    py = str(BIN / "python")
    for args in (["-m", "grading", "grades", ASSIGNMENT, "--format", "canvas"],
                 ["-m", "grading", "grades", ASSIGNMENT, "--format", "moodle"]):
        run = subprocess.run([py, *args], cwd=course, capture_output=True, text=True, env=_env())
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        if "canvas" in args:
            shutil.copy(course / "grades-canvas.csv", course / "canvas-kept.csv")
    run = subprocess.run([str(BIN / "nbgrader"), "export", "--to", "export.csv"], cwd=course, capture_output=True,
                         text=True, env=_env())
    assert run.returncode == 0, run.stderr[-3000:]
    out = {name: (course / ("canvas-kept.csv" if name == "grades-canvas.csv" else name)).read_bytes()
           for name in EXPORTS}
    records = course / "autograded" / "grading-status" / ASSIGNMENT
    out["records"] = json.dumps({p.name: json.loads(p.read_text()) for p in sorted(records.glob("*.json"))},
                                sort_keys=True).encode()
    return out


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def formgrader(browser, tmp_path_factory, template):
    """``make lab-instructor`` serving a copy of the class, not graded yet."""
    try:
        with ld.running_lab("instructor", tmp_path_factory.mktemp("lab-classrun")) as lab:
            from grading.context import SECRET_FILE
            for name in ("submitted", "roster.csv", "gradebook.db", SECRET_FILE):
                src = template / name
                (shutil.copytree if src.is_dir() else shutil.copy)(src, lab.course / name)
            yield lab
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


def _click_autograde(page, lab, students):
    """The Formgrader's Manage Submissions page: the autograde button of each student, one after another."""
    page.goto(lab.url(f"formgrader/manage_submissions/{ASSIGNMENT}").split("?")[0])
    for sid in students:
        row = page.locator("tr", has=page.locator("td", has_text=re.compile(rf"^\s*{re.escape(sid)}\s*$"))).first
        row.wait_for()
        with page.expect_response(lambda r: r.url.endswith("/autograde") and r.request.method == "POST") as done:
            row.locator("td.autograde a").click()
        assert done.value.ok, done.value.text()[:2000]
        modal = page.locator(".modal:visible")
        modal.wait_for()
        modal.locator(".modal-footer button").first.click()
        modal.wait_for(state="hidden")


@pytest.fixture(scope="module")
def paths(template, formgrader, new_page_module, tmp_path_factory):
    """The class graded by every path; ``{path: {export: bytes}}`` and what each run said."""
    work = tmp_path_factory.mktemp("paths")
    said, exports = {}, {}

    course = _copy(template, work / "make")
    run = subprocess.run(["make", "-s", "autograde", f"ASSIGNMENT={ASSIGNMENT}", f"VENV={ROOT / '.venv'}"],
                         cwd=course, capture_output=True, text=True, env=_env(), timeout=3600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said["make"] = run.stdout + run.stderr
    exports["make"] = _exports(course)

    course = _copy(template, work / "nbgrader")
    run = subprocess.run([str(BIN / "nbgrader"), "autograde", ASSIGNMENT], cwd=course, capture_output=True,
                         text=True, env=_env(), timeout=3600)
    said["nbgrader"] = run.stdout + run.stderr        # (nbgrader exits 1: two submissions could not be graded)
    exports["nbgrader"] = _exports(course)

    page = new_page_module(formgrader)
    _click_autograde(page, formgrader, list(CLASS))
    exports["formgrader"] = _exports(formgrader.course)

    course = _copy(template, work / "dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = open(work / "dask.log", "w")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard", "--preload", "grading.workers"], stdout=log, stderr=subprocess.STDOUT,
                              cwd=work, env=_env())]
    try:
        procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-dashboard",
                                       "--host", "127.0.0.1", "--preload", "grading.workers",
                                       "--local-directory", str(work / "dask-worker")],
                                      stdout=log, stderr=subprocess.STDOUT, cwd=work, env=_env()))
        from distributed import Client
        with Client(address, timeout="120s") as client:
            client.wait_for_workers(1, timeout=300)
        run = subprocess.run([str(BIN / "python"), "-m", "grading", "autograde", ASSIGNMENT, "--dask-scheduler",
                              address], cwd=course, capture_output=True, text=True, env=_env(), timeout=3600)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        said["dask"] = run.stdout + run.stderr
    finally:
        stop_processes(procs)
        log.close()
    exports["dask"] = _exports(course)
    return {"exports": exports, "said": said, "work": work}


@pytest.fixture(scope="module")
def new_page_module(browser):
    """Pages of one browser context for the module (the Formgrader's cookie kept)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(ld.WAIT_MS)
    logged_in = set()

    def make(lab):
        page = context.new_page()
        if lab.base not in logged_in:                 # the instructor logs in: the server's cookie
            page.goto(lab.url("lab"))
            page.wait_for_selector(".lm-MenuBar-itemLabel:has-text('Nbgrader')")
            logged_in.add(lab.base)
        return page

    yield make
    context.close()


def _rows(data, key="student_id"):
    return {r[key]: r for r in csv.DictReader(data.decode().splitlines())}


def test_every_path_writes_every_export_byte_for_byte_the_same(paths):
    exports = paths["exports"]
    first = exports["make"]
    for path, got in exports.items():
        for name, data in got.items():
            assert data == first[name], f"{name} from {path} differs from make autograde's:\n{data.decode()[:3000]}"


def test_unreadable_and_renamed_notebooks_are_ungraded_with_the_reason_on_every_path(paths):
    for path, got in paths["exports"].items():
        rows = _rows(got[f"grades-{ASSIGNMENT}.csv"])
        for sid, why in UNGRADED.items():
            assert rows[sid]["status"] == "ungraded" and rows[sid]["score"] == "", (path, rows[sid])
            assert why in rows[sid]["reason"], (path, rows[sid]["reason"])
        canvas = got["grades-canvas.csv"].decode()
        assert "u504" not in canvas and "u505" not in canvas, (path, canvas)


def test_provisional_totals_are_marked_and_never_sent_to_the_lms_as_final(paths):
    got = paths["exports"]["make"]
    rows = _rows(got[f"grades-{ASSIGNMENT}.csv"])
    assert rows["b03"]["status"] == "provisional" and WRITTEN in rows["b03"]["reason"]
    assert "u503" not in got["grades-canvas.csv"].decode() and "u503" not in got["grades-moodle.csv"].decode()
    course_rows = _rows(got["grades.csv"])
    assert course_rows["b03"][f"{ASSIGNMENT} status"] == "provisional"
    summary = got[f"grades-{ASSIGNMENT}-summary.txt"].decode()
    assert f"  b03: awaiting manual grading: {WRITTEN}" in summary
    assert "left out, provisional (1): b03" in summary


def test_the_late_submission_keeps_its_lms_time_and_penalty(paths):
    rows = _rows(paths["exports"]["make"][f"grades-{ASSIGNMENT}.csv"])
    late = rows["b06"]
    assert late["late_seconds"] == str(34 * 3600) and late["status"] == "final"
    assert float(late["penalty"]) == pytest.approx(0.2 * float(late["raw_score"]))
    assert float(late["score"]) == pytest.approx(0.8 * float(late["raw_score"]))


def test_formula_ids_are_text_in_every_file(paths):
    got = paths["exports"]["make"]
    for name in (f"grades-{ASSIGNMENT}.csv", "grades.csv", "export.csv"):
        cells = [c for row in csv.reader(got[name].decode().splitlines()) for c in row]
        assert "'=1+2" in cells and "'@SUM(1+1)" in cells, name
        assert not [c for c in cells if c and c[0] in "=+-@" and not re.fullmatch(r"-?\d+(\.\d+)?", c)], name


def test_checksum_warnings_only_for_the_test_cell_really_changed(paths):
    """nbgrader's own command, on a gradebook that knew only the due date: it grades, and warns only where it should."""
    said = paths["said"]["nbgrader"]
    # (nbgrader says "No notebooks found" once: for b05, whose notebook has another name)
    failed = re.findall(r"error processing assignment: \S+/submitted/([^/\s]+)/", said)
    assert sorted(failed) == ["b04", "b05"] and "No assignment with ID" not in said, (failed, said[-3000:])
    assert "Pre-convert hook failed" not in said, said[-3000:]
    warned = re.findall(r"Attribute 'checksum' for cell (\S+) has changed", said)
    assert warned == ["radius-longest-example-with-x0"], warned


def test_progress_goes_to_a_log_as_lines(paths):
    said = paths["said"]["make"]
    lines = re.findall(rf"^{ASSIGNMENT}: (\d+)/{len(CLASS)} submissions.*$", said, re.M)
    assert lines and lines[-1] == str(len(CLASS)), said[-3000:]


def test_the_dask_run_checked_its_workers(paths):
    assert "on the Dask cluster at tcp://127.0.0.1:" in paths["said"]["dask"]


# --- the Formgrader's page and the feedback, in Chromium ----------------------------------------

def _submission_page(lab, page, sid):
    subs = lab.api(f"formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}")
    (sub,) = [s for s in subs if s["student"] == sid]
    blocked = []
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), lambda route: (blocked.append(route.request.url),
                                                                          route.abort()))
    page.goto(lab.url(f"formgrader/submissions/{sub['id']}/").split("?")[0])
    page.wait_for_function("() => [...document.querySelectorAll('input.score')].some(i => i.placeholder !== '')",
                           polling=200)
    return blocked


def test_the_formgrader_shows_the_rubric_the_late_note_and_offline_math(paths, formgrader, new_page_module):
    page = new_page_module(formgrader)
    blocked = _submission_page(formgrader, page, "b03")
    rubric = page.locator(f".course-rubric[data-grade-id='{WRITTEN}']")
    assert rubric.count() == 1 and "Rubric (graders only" in rubric.text_content()
    # beside the student's answer: the answer's panel comes right before it
    answer = rubric.evaluate("el => el.previousElementSibling.textContent")
    assert "corrections give" in answer
    # formulas are MathML drawn by the browser: no script, nothing fetched from elsewhere
    sizes = page.eval_on_selector_all("math", "els => els.map(e => e.getBoundingClientRect().width)")
    assert len(sizes) > 5 and all(w > 0 for w in sizes), sizes
    assert "$\\mathbf" not in page.locator("body").text_content()
    assert blocked == [], blocked
    late = new_page_module(formgrader)
    _submission_page(formgrader, late, "b06")
    note = late.locator(".course-late").text_content()
    assert "Late penalty: 34.0 h late: 2 started days at 10 % of the earned score" in note, note


def test_a_manual_grade_in_the_formgrader_is_in_the_exports_at_once(paths, formgrader, new_page_module):
    page = new_page_module(formgrader)
    _submission_page(formgrader, page, "b03")
    box = page.locator(f"input.score#{WRITTEN}")
    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT") as saved:
        box.fill("1.5")
        box.press("Tab")
    assert saved.value.ok
    run = subprocess.run([str(BIN / "python"), "-m", "grading", "grades", ASSIGNMENT, "--format", "canvas"],
                         cwd=formgrader.course, capture_output=True, text=True, env=_env())
    assert run.returncode == 0, run.stderr[-3000:]
    rows = _rows((formgrader.course / f"grades-{ASSIGNMENT}.csv").read_bytes())
    before = _rows(paths["exports"]["make"][f"grades-{ASSIGNMENT}.csv"])["b03"]
    assert rows["b03"]["status"] == "final", rows["b03"]
    assert float(rows["b03"]["score"]) == float(before["score"]) + 1.5
    canvas = {r["SIS Login ID"]: r for r in csv.DictReader((formgrader.course / "grades-canvas.csv").open())}
    assert float(canvas["u503"][ASSIGNMENT]) == float(before["score"]) + 1.5


def test_feedback_pages_say_the_penalty_hold_no_instructor_line_and_fit(paths, formgrader, new_page_module):
    course = formgrader.course
    for sid in ("b06", "b02"):
        reply = formgrader.api(f"formgrader/api/assignment/{ASSIGNMENT}/{sid}/generate_feedback", method="POST",
                               body={})
        assert reply["success"], reply
    page = new_page_module(formgrader)
    for sid in ("b06", "b02"):
        html = (course / "feedback" / sid / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        assert "make regrade-check" not in html and "instructor replays" not in html
        page.goto((course / "feedback" / sid / ASSIGNMENT / f"{ASSIGNMENT}.html").as_uri())
        page.wait_for_selector("#notebook")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{sid}: the page is {overflow} px wider than the window"
        assert page.locator("math").count() > 5
    text = page.locator("body").text_content()
    assert "Late penalty" not in text                                  # b02 was on time
    page.goto((course / "feedback" / "b06" / ASSIGNMENT / f"{ASSIGNMENT}.html").as_uri())
    note = page.locator(".course-late").text_content()
    assert "Due date: 2026-11-20 23:59 UTC" in note and "Late penalty: 34.0 h late" in note, note
    assert "Rubric" not in page.locator("body").text_content()          # graders only


def test_the_fresh_clone_generate_assignment_force_refuses_before_removing_release(template, tmp_path):
    """After a grading, nbgrader may not regenerate the assignment: it now says so before removing anything."""
    course = _copy(template, tmp_path / "c")
    shutil.rmtree(course / "submitted" / "b04")
    run = subprocess.run([str(BIN / "nbgrader"), "autograde", ASSIGNMENT, "--student", "b01"], cwd=course,
                         capture_output=True, text=True, env=_env(), timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    nb = course / "source" / ASSIGNMENT / "second.ipynb"
    shutil.copy(course / "source" / ASSIGNMENT / NB, nb)               # a second notebook: the set changes
    before = sorted(p.name for p in (course / "release" / ASSIGNMENT).iterdir())
    run = subprocess.run([str(BIN / "nbgrader"), "generate_assignment", ASSIGNMENT, "--force"], cwd=course,
                         capture_output=True, text=True, env=_env(), timeout=600)
    assert run.returncode != 0
    assert "nothing was removed" in run.stdout + run.stderr, run.stderr[-3000:]
    assert sorted(p.name for p in (course / "release" / ASSIGNMENT).iterdir()) == before
