"""The course as students and instructors meet it: JupyterLab in a real browser.

A headless Chromium drives ``make lab`` (students) and ``make lab-instructor`` started on
a temporary copy of the course (tests/labdriver.py): every lecture notebook is run with
*Run All Cells*, every widget on the page must render and answer its sliders and buttons
with a new figure and new numbers; the Validate button (the course's own) must lead with
each failing test's message, shown as text, say how many visible tests passed and what is
graded later, and that a lecture has nothing to check; students must not see nbgrader's
instructor tools, instructors must, and the Formgrader must show the autograded scores.

Without a Chromium these tests are skipped with a note on how to install one
(``apt-get install chromium``); with ``COURSE_REQUIRE_BROWSER=1`` (CI) they fail instead.
A failing test leaves a screenshot of its page in browser-screenshots/ (path in the report).
"""
import contextlib
import re
import subprocess
import urllib.error
import urllib.parse
from pathlib import Path

import labdriver as ld
import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, grade_id, reference_bodies, with_written_answers, written_answer_ids
from playwright.sync_api import expect

pytest_plugins = ["labdriver"]
pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("*.ipynb"))
RELEASED = f"release/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
WORKING = f"my-assignments/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"   # the student's copy, made by make lab
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def saved_notebook(page, lab, path):
    """Save the open notebook from the browser (File -> Save) and read back what was saved."""
    url = lab.url(f"api/contents/{urllib.parse.quote(path)}").split("?")[0]
    # the server writes the file before it answers the browser's PUT
    with page.expect_response(lambda r: r.request.method == "PUT" and r.url.split("?")[0] == url) as saved:
        ld.menu_command(page, "File", "docmanager:save")
    assert saved.value.ok, f"saving {path} failed: {saved.value.status} {saved.value.text()[:500]}"
    return nbformat.from_dict(lab.api(f"api/contents/{path}")["content"])


def drive(page, widget):
    """Move every slider and press every button of a widget; return {label: what changed}.

    A control that changes nothing at first (a "back" button at the first step) is tried
    again once after the others have moved the widget away from its start.
    """
    results, pending = {}, ld.controls(widget)
    for attempt in range(2):
        retry = []
        for kind, control, label in pending:
            before = ld.widget_state(widget)
            times = ld.operate(page, widget, kind, control)
            after = ld.widget_state(widget)
            changed = {"figure": after["figures"] != before["figures"], "text": after["text"] != before["text"],
                       "had_figure": bool(before["figures"]), "had_text": bool(before["text"].strip()),
                       "times": times}
            if attempt == 0 and not (changed["figure"] or changed["text"]):
                retry.append((kind, control, label))
            results[f"{kind} {label}"] = changed
        pending = retry
    return results


@pytest.mark.parametrize("path", LECTURES, ids=[Path(p).stem for p in LECTURES])
def test_lecture_runs_in_jupyterlab_and_its_widgets_respond(path, student_lab, new_page):
    page = new_page(student_lab)
    ld.open_notebook(page, student_lab, path)
    prompts = ld.run_all(page)
    unrun = [i for i, p in enumerate(prompts) if not re.search(r"\d", p)]
    assert not unrun, f"Run All Cells left code cells {unrun} unrun (prompts {prompts}): it stopped at an error"
    errors = ld.error_outputs(page)
    assert not errors, "error outputs on the page:\n" + "\n---\n".join(e[-1500:] for e in errors)

    nb = saved_notebook(page, student_lab, path)
    model_errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, c in enumerate(nb.cells)
                    if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not model_errors, f"the notebook holds error outputs: {model_errors}"
    n_widgets = sum(WIDGET_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)

    assert not ld.widget_fallbacks(page), f"widgets shown as text, not rendered: {ld.widget_fallbacks(page)}"
    widgets = ld.widget_outputs(page)
    assert len(widgets) == n_widgets, f"{n_widgets} widget outputs in the notebook, {len(widgets)} rendered views"

    for number, widget in enumerate(widgets):
        results = drive(page, widget)
        for control, r in results.items():
            what = f"widget {number} of {path}, {control}"
            assert r["figure"] or r["text"], f"{what}: neither the figure nor the numbers changed"
            if r["had_figure"]:
                assert r["figure"], f"{what}: the figure was not redrawn"
            if r["had_text"]:
                assert r["text"], f"{what}: the numbers shown did not change"


WORK = f"student-work/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"   # a student's copy, in a folder named after its assignment


def validation_dialog(page, notebook_path, lab):
    """Open a notebook, press Validate, and return the dialog's message element (once the check has answered)."""
    ld.open_notebook(page, lab, notebook_path, kernel=False)  # the check runs in processes of its own
    button = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button")
    expect(button, "no Validate button, or more than one, in the notebook's toolbar").to_have_count(1)
    button.locator("button").click()
    expect(page.locator(".jp-Dialog .jp-Dialog-header")).to_contain_text("Validation Results")
    return page.locator(".jp-Dialog #validation-message")


def students_copy(lab, nb, path=WORK):
    """Save ``nb`` where a student works on it (not release/, which is the course's)."""
    (lab.course / path).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, lab.course / path)
    return path


def released(lab):
    return nbformat.read(lab.course / RELEASED, as_version=4)


def visible_test_ids(nb):
    return [grade_id(c) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")]


def headline(message):
    return message.locator(".course-validate-headline").text_content().strip()


def test_validate_names_every_failing_test_of_an_untouched_assignment_message_first(student_lab, new_page):
    nb = released(student_lab)
    tests, written = visible_test_ids(nb), written_answer_ids(nb)
    assert tests, "the released assignment has no test cells"
    # the student's working copy, where the guide says to work (make lab made it)
    message = validation_dialog(new_page(student_lab), WORKING, student_lab)
    assert "validation-failed" in message.get_attribute("class")
    failures = message.locator(".course-validate-failure")
    expect(failures).to_have_count(len(tests))
    # each failure leads with what went wrong, then names its test cell; its code and traceback are folded
    for k, gid in enumerate(tests):
        item = failures.nth(k)
        first = item.locator(":scope > *").first
        assert "course-validate-message" in first.get_attribute("class"), item.inner_html()[:500]
        assert first.text_content().strip() and not first.text_content().lstrip().startswith(('"""', "import")), \
            first.text_content()
        assert item.locator(".course-validate-test").text_content() == f"test cell {gid}"
        assert not item.locator("details").evaluate("d => d.open")
    assert "not done yet (the function still raises NotImplementedError)" in failures.first.text_content()
    problems = message.locator(".course-validate-problems li").all_text_contents()
    assert [p.split(":")[0] for p in problems] == written and all("not answered yet" in p for p in problems), problems
    line = headline(message)
    assert line.startswith(f"0 of {len(tests)} visible test cells passed;") and line.endswith("graded later"), line
    assert "all the tests" not in message.text_content() and "Success" not in message.text_content()


def test_validate_on_a_solved_assignment_says_what_it_checked_and_what_is_graded_later(student_lab, new_page):
    nb = released(student_lab)
    tests = visible_test_ids(nb)
    solved = with_written_answers(fill(nb, reference_bodies(ASSIGNMENT)))
    message = validation_dialog(new_page(student_lab), students_copy(student_lab, solved), student_lab)
    assert "validation-passed" in message.get_attribute("class"), message.text_content()[:2000]
    source = nbformat.read(student_lab.course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    hidden = sum("### BEGIN HIDDEN TESTS" in c.source for c in source.cells if grade_id(c) in tests)
    by_hand = len(written_answer_ids(nb))
    assert hidden and by_hand, "the reference assignment should hold hidden tests and a question graded by hand"
    expected = (f"{len(tests)} of {len(tests)} visible test cells passed; {hidden} more tests and "
                f"{by_hand} question{'s' if by_hand > 1 else ''} are graded later")
    assert headline(message) == expected
    text = message.text_content()
    assert "all the tests" not in text and "Success" not in text, text
    assert "not full marks" in text
    assert message.locator(".course-validate-failure").count() == 0


def test_validate_leads_with_the_failing_tests_message_shown_as_text(student_lab, new_page):
    """One wrong function and one that raises with markup in its message: each failure starts with its message,
    and the markup (the student's output) is shown as text, never run or rendered."""
    page = new_page(student_lab)
    payload = "<img src=x onerror=\"window.__validate_markup_ran = 1\"><b>bold</b>"
    wrong = dict(reference_bodies(ASSIGNMENT))
    wrong["radius-solution"] = "return 0.5\n"
    wrong["bound-solution"] = f"raise ValueError({payload!r})\n"
    nb = with_written_answers(fill(released(student_lab), wrong))
    path = students_copy(student_lab, nb, f"student-work-wrong/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    message = validation_dialog(page, path, student_lab)
    assert "validation-failed" in message.get_attribute("class")
    failures = message.locator(".course-validate-failure")
    expect(failures).to_have_count(2)
    first = failures.nth(0).locator(".course-validate-message").text_content()
    assert first.startswith("AssertionError: ") and "radius" in first and "0.5" in first, first
    assert failures.nth(0).locator(".course-validate-test").text_content().startswith("test cell radius-")
    second = failures.nth(1).locator(".course-validate-message").text_content()
    assert payload in second, second                      # the markup, as text
    assert message.locator("img, b").count() == 0         # ... and no element made from it
    assert page.evaluate("() => window.__validate_markup_ran === undefined")
    # the first thing the dialog says is the first failure's message
    assert message.text_content().lstrip().startswith(first.strip())
    tests = visible_test_ids(nb)
    assert headline(message).startswith(f"{len(tests) - 2} of {len(tests)} visible test cells passed;")
    # the test's code and traceback are one click away
    failures.nth(0).locator("summary").click()
    expect(failures.nth(0).locator("pre.course-validate-code")).to_contain_text("radius(")


def test_validate_on_a_lecture_says_there_is_nothing_to_check(student_lab, new_page):
    message = validation_dialog(new_page(student_lab), LECTURES[0], student_lab)
    assert "validation-nothing" in message.get_attribute("class")
    assert "there is nothing to check" in headline(message)
    assert "passed" not in message.text_content() and "Success" not in message.text_content()


def nbgrader_menu(page):
    """Open the Nbgrader menu; return the labels of its visible items."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).click()
    expect(page.locator(".lm-Menu").first).to_be_visible()
    items = page.locator(".lm-Menu li.lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel").all_text_contents()
    page.keyboard.press("Escape")
    return [i.strip() for i in items]


def test_students_see_validate_but_no_assignment_list_and_no_instructor_tools(student_lab, new_page):
    page = new_page(student_lab)
    ld.open_notebook(page, student_lab, WORKING)
    expect(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button")).to_have_count(1)
    items = nbgrader_menu(page) if page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).count() \
        else []
    # no Assignment List (it could only show errors: no exchange behind a clone); the students' guide says where
    # assignments come from (my-assignments/, made by make lab)
    assert "Assignment List" not in items, items
    assert not [i for i in items if "Formgrader" in i or "Course" in i], items
    assert page.locator(".lm-TabBar-tab", has_text="Create Assignment").count() == 0
    # and the server has neither an assignment list nor a formgrader to reach by typing its address
    for address in ("formgrader", "assignments?course_id=ml-foundations"):
        with pytest.raises(urllib.error.HTTPError) as err:
            student_lab.api(address)
        assert err.value.code == 404, address
    guide = (student_lab.course / "docs" / "guides" / "students.md").read_text()
    assert "my-assignments/" in guide and "Assignment List" in guide


def test_a_saved_lecture_reopens_with_its_pictures_not_model_not_found(student_lab, new_page):
    """Run a lecture, save it, stop its kernel, open it again: the widgets show their saved state."""
    path = "my-lectures/02-1-perceptron-hypothesis-set.ipynb"
    page = new_page(student_lab)
    ld.open_notebook(page, student_lab, path)
    ld.run_all(page)
    nb = saved_notebook(page, student_lab, path)
    n_widgets = sum(WIDGET_MIME in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert n_widgets >= 1
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata.get("widgets", {}), \
        "the notebook was saved without its widgets' state"
    page.close()
    student_lab.shutdown_kernels()                    # the models of the first run are gone with their kernel
    again = new_page(student_lab)
    ld.open_notebook(again, student_lab, path)
    expect(again.locator(f"{ld.ACTIVE} .jupyter-widgets img").first).to_be_visible()
    widgets = ld.widget_outputs(again)
    assert not ld.widget_fallbacks(again), ld.widget_fallbacks(again)
    assert len(widgets) == n_widgets
    assert all(w.locator("img").count() >= 1 for w in widgets)


def exercise_points(nb):
    """{exercise: points} from the nbgrader metadata (the exercise is the grade_id up to the first '-')."""
    points = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            name = meta["grade_id"].split("-", 1)[0]
            points[name] = points.get(name, 0) + meta.get("points", 0)
    return points


def test_instructors_see_the_formgrader_with_the_autograded_scores(instructor_lab, new_page):
    course = instructor_lab.course
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    points = exercise_points(source)
    total = sum(points.values())
    released = nbformat.read(course / RELEASED, as_version=4)
    ref = reference_bodies(ASSIGNMENT)
    first = next(iter(points))
    partial = {gid: body for gid, body in ref.items() if gid.split("-", 1)[0] == first}
    # answers graded by hand are left as released here, which scores them 0 at once
    by_hand = sum(c.metadata["nbgrader"].get("points", 0) for c in source.cells
                  if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade"))
    expected = {"alice": total - by_hand, "bob": 0, "carol": points[first]}
    for student, nb in {"alice": fill(released, ref), "bob": released, "carol": fill(released, partial)}.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    run = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "grading", "autograde", ASSIGNMENT],
                         cwd=course, capture_output=True, text=True, timeout=1800)  # ends a hang only
    assert run.returncode == 0, run.stdout + run.stderr

    page = new_page(instructor_lab)
    page.goto(instructor_lab.url("lab", reset=None))
    page.wait_for_selector(".lm-MenuBar-itemLabel:has-text('Nbgrader')")
    items = nbgrader_menu(page)
    assert "Formgrader" in items, items
    expect(page.locator(".lm-TabBar-tab", has_text="Create Assignment")).to_have_count(1)
    ld.menu_command(page, "Nbgrader", "nbgrader:open-formgrader")
    frame = page.frame_locator("iframe[src*='formgrader']")
    # Manage Assignments: the assignment, with its three submissions
    row = frame.locator("tr", has_text=ASSIGNMENT).first
    row.wait_for()
    header = [" ".join(h.split()) for h in frame.locator("thead th").all_text_contents()]
    cells = [c.strip() for c in row.locator("td").all_text_contents()]
    assert cells[header.index("# Submissions")] == str(len(expected)), dict(zip(header, cells, strict=False))

    # Manage Students: every student's score out of the assignment's points
    frame.locator("a", has_text="Manage Students").click()
    for student, score in expected.items():
        line = frame.locator("tr", has_text=student).first
        line.wait_for()
        text = " ".join(line.text_content().split())
        assert re.search(rf"(?<![\d.]){score:g}(\.0+)? / {total:g}(\.0+)?$", text), \
            f"{student}: expected {score:g} / {total:g}, the Formgrader shows {text!r}"


# --- student HTML in the instructor's browser ---------------------------------------------

@pytest.fixture(scope="module")
def hostile_lab(browser, tmp_path_factory):
    """``make lab-instructor`` with one autograded submission carrying every HTML attack.

    A lab of its own: the other instructor test counts the submissions of its course.
    """
    import hostile_html as hh
    try:
        with ld.running_lab("instructor", tmp_path_factory.mktemp("lab-hostile")) as lab:
            course = lab.course
            released = nbformat.read(course / RELEASED, as_version=4)
            nb = fill(released, reference_bodies(ASSIGNMENT))
            extra = hh.hostile_cells()
            if nb.nbformat_minor < 5:  # cell ids came with nbformat 4.5
                for cell in extra:
                    cell.pop("id", None)
            nb.cells += extra
            folder = course / "submitted" / "mallory" / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
            # a page handed in beside the notebook, which the Formgrader would serve from the
            # instructor's server if a link of the notebook led there
            (folder / "helper.html").write_text(f"<script>{hh.script('submitted-file')}</script>")
            run = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "grading", "autograde", ASSIGNMENT],
                                 cwd=course, capture_output=True, text=True, timeout=300)
            assert run.returncode == 0, run.stdout + run.stderr
            yield lab
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


class Traces:
    """What a student's script would leave behind in a page: console lines, globals, files."""

    def __init__(self, page, lab):
        import hostile_html as hh
        self.page, self.lab, self.tags = page, lab, hh.ALL_TAGS
        self.console, self.pending = [], set()
        page.on("console", lambda msg: self.console.append(msg.text))
        page.context.on("page", lambda popup: popup.on("console", lambda msg: self.console.append(msg.text)))
        page.on("request", lambda r: self.pending.add(r))
        page.on("requestfinished", lambda r: self.pending.discard(r))
        page.on("requestfailed", lambda r: self.pending.discard(r))

    def click_everything(self):
        """Click every link and button the student's cells offer (``click me``)."""
        for frame in self.page.frames:
            with contextlib.suppress(Exception):  # a click that led elsewhere detaches the frames
                for el in frame.locator(":is(a, button, text, span):text-is('click me')").all():
                    el.click(timeout=2_000, no_wait_after=True)

    def settled(self):
        """Wait until the page has loaded and every request it made has been answered or has failed."""
        self.page.wait_for_load_state("load")
        while self.pending:  # a request answered may have started others
            # resolves when the response arrives or the request fails (a page that navigates away fails its own)
            self.pending.pop().response()

    def left(self):
        self.settled()
        found = {"console": [t for t in self.console if "PWNED" in t]}
        found["globals"] = [f"{frame.url[:80]}: {g}" for frame in self.page.frames
                            for g in [_frame_global(frame, "__pwned")] if g]
        found["files"] = sorted(p.name for p in self.lab.course.rglob("pwned-*"))
        return {k: v for k, v in found.items() if v}


def _frame_global(frame, name):
    try:
        return frame.evaluate(f"() => window.{name} || null")
    except Exception:  # a frame that went away, or one the page cannot reach
        return None


def assert_inline_script_refused(page):
    """The page's policy refuses a script without its nonce (as a payload that got through would be)."""
    ran = page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = true'; document.body.appendChild(s); return !!window.__inlineRan; }""")
    assert ran is False, "an inline script without the page's nonce ran: no Content-Security-Policy in force"


@pytest.mark.slow
def test_payloads_run_when_nothing_protects_the_page(hostile_lab, new_page):
    """The control: rendered by plain nbconvert, the same submission runs its scripts in this browser."""
    from nbconvert.exporters import HTMLExporter
    autograded = hostile_lab.course / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    html, _ = HTMLExporter().from_filename(str(autograded))
    path = hostile_lab.course / "plain.html"
    path.write_text(html)
    page = new_page(hostile_lab)
    traces = Traces(page, hostile_lab)
    page.goto(path.as_uri())
    traces.click_everything()
    ran = {m.split(" ", 1)[1] for m in traces.console if m.startswith("PWNED ")}
    assert {"img-onerror", "script", "svg-onload", "js-link", "iframe-srcdoc", "details-ontoggle"} <= ran, ran
    path.unlink()


@pytest.mark.slow
def test_the_formgrader_shows_a_hostile_submission_inert(hostile_lab, new_page):
    subs = hostile_lab.api(f"formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}")
    [sub] = [s for s in subs if s["student"] == "mallory"]
    page = new_page(hostile_lab)
    traces = Traces(page, hostile_lab)
    lab = page.goto(hostile_lab.url("lab"))  # the instructor logs in (the server's cookie)
    page.wait_for_selector(".lm-MenuBar-itemLabel:has-text('Nbgrader')")
    # JupyterLab's own pages keep their inline scripts: no script policy there
    assert "script-src" not in (lab.headers.get("content-security-policy") or "")
    address = hostile_lab.url(f"formgrader/submissions/{sub['id']}/").split("?")[0]
    response = page.goto(address)
    # the policy is sent as a header too (grading/formgrader_csp.py), the same as the page's
    meta = page.locator("meta[http-equiv='Content-Security-Policy']").first.get_attribute("content")
    assert response.headers.get("content-security-policy") == f"{meta}; frame-ancestors 'self'", response.headers
    # nbgrader's own scripts run: the grading form shows the autograded scores
    page.wait_for_function("() => [...document.querySelectorAll('input.score')].some(i => i.placeholder !== '')",
                           polling=200)
    traces.click_everything()
    assert traces.left() == {}
    assert_inline_script_refused(page)
    # the control: the same script, run by the test in this page, does write into the course
    import hostile_html as hh
    status = page.evaluate(f"async () => (await {hh.write_file('control')}).status")
    assert status == 201 and (hostile_lab.course / "pwned-control.txt").is_file(), \
        f"the page could not have written a file at all ({status})"
    (hostile_lab.course / "pwned-control.txt").unlink()
    # the student's legitimate content is still there
    body = page.locator("body").text_content()
    assert "Legitimate work" in body and "42" in body
    # (its formula is drawn as MathML when the page is made: E, "in" as its subscript)
    assert page.locator("math msub").filter(has_text="Ein").count() >= 1
    assert page.locator("img[alt='one pixel']").evaluate("i => i.complete && i.naturalWidth") == 1
    # an HTML page handed in beside the notebook, opened by its address in the Formgrader
    response = page.goto(address + "helper.html")
    assert response.status == 200 and response.headers["content-security-policy"].startswith("sandbox")
    assert traces.left() == {}


@pytest.mark.slow
def test_feedback_of_a_hostile_submission_is_inert(hostile_lab, new_page):
    course = hostile_lab.course
    page = new_page(hostile_lab)
    traces = Traces(page, hostile_lab)
    feedback = course / "feedback" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    # the Formgrader's "Generate Feedback" button
    reply = hostile_lab.api(f"formgrader/api/assignment/{ASSIGNMENT}/mallory/generate_feedback", method="POST", body={})
    assert reply["success"], reply
    opened = [feedback.as_uri(), hostile_lab.url(f"files/feedback/mallory/{ASSIGNMENT}/{ASSIGNMENT}.html")]
    for address in opened:
        page.goto(address)
        page.wait_for_selector("text=Legitimate work")
        traces.click_everything()
        assert traces.left() == {}, address
        assert_inline_script_refused(page)
    # nbgrader's command line, and make feedback, from the course folder
    for command in (["nbgrader", "generate_feedback", ASSIGNMENT, "--force"],
                    ["python", "-m", "grading", "feedback", ASSIGNMENT]):
        feedback.unlink()
        run = subprocess.run([str(ROOT / ".venv" / "bin" / command[0]), *command[1:]],
                             cwd=course, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and feedback.is_file(), run.stdout + run.stderr
        page.goto(feedback.as_uri())
        page.wait_for_selector("text=Legitimate work")
        traces.click_everything()
        assert traces.left() == {}, command
        assert_inline_script_refused(page)
        assert page.locator("img[alt='one pixel']").evaluate("i => i.complete && i.naturalWidth") == 1
