"""JupyterLab in a real browser: the course's lab server and a Chromium to look at it.

Used by tests/test_browser.py (as a pytest plugin: fixtures, and a screenshot of the page
for every failing test) and by benchmarks/bench_widgets.py.

* :func:`running_lab` copies the course into a temporary folder and starts ``make lab``
  (students) or ``make lab-instructor`` there, exactly as a user would, on a free loopback
  port with a random token and Jupyter settings isolated in that folder; nothing in the
  repository is written.
* :func:`find_browser` looks for a Chromium: Debian's ``chromium`` package, or
  Playwright's own download.
* The rest drives a notebook the way a student does: open it, *Run All Cells*, find the
  widgets on the page, move a slider with the keyboard or press a button, and watch the
  figure and the status text change.

It holds no assertions of its own (PYTEST_DONT_REWRITE): the tests make them.
"""
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
HOW_TO_INSTALL = ("no Chromium for the browser tests: install Debian's package (apt-get install chromium) "
                  "or Playwright's browser (.venv/bin/python -m playwright install chromium); "
                  "set COURSE_REQUIRE_BROWSER=1 to make its absence a failure")
# What a copy of the course leaves out: environment, version control, caches, grading state, the
# website's build (written while the tests run).
NOT_COPIED = shutil.ignore_patterns(".venv", ".venv-grading", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info",
                                    ".ipynb_checkpoints", "browser-screenshots", "submitted", "autograded",
                                    "feedback", "gradebook.db*", "grades.csv", "grades-*", "build")
MODES = {"student": "lab", "instructor": "lab-instructor"}
# How long a test waits for a state of the page or the server before it fails. Tests wait for
# the state itself (Playwright's auto-waiting, the server's own output and responses), never a
# fixed time, so on a busy machine they only take longer; this bound is there so that a real hang ends.
WAIT_MS = int(os.environ.get("COURSE_BROWSER_WAIT_MS", 300_000))


# --- the browser ------------------------------------------------------------------------

def find_browser():
    """Path of a Chromium that Playwright can drive, or None.

    Debian's ``chromium`` first (the course's CI installs it), then the browser that
    ``playwright install chromium`` downloads where the network allows it. The
    environment variable ``COURSE_BROWSER`` names another executable.
    """
    chosen = os.environ.get("COURSE_BROWSER")
    if chosen:  # a browser of one's choice; a path that is not one means "none"
        return chosen if os.access(chosen, os.X_OK) else None
    for path in SYSTEM_BROWSERS:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("chromium")
    if found:
        return found
    try:
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:
        return None
    return path if path and os.access(path, os.X_OK) else None


def launch_browser(playwright, executable):
    return playwright.chromium.launch(executable_path=executable, headless=True, args=BROWSER_ARGS)


# --- the lab server ---------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_course(dest):
    """A fresh copy of the course (what a clone holds, without its environment) in ``dest``."""
    shutil.copytree(ROOT, dest, ignore=NOT_COPIED)
    return Path(dest)


class Lab:
    """A running JupyterLab: its address, token, course folder and log."""

    def __init__(self, mode, base, token, course, log):
        self.mode, self.base, self.token, self.course, self.log = mode, base, token, course, log

    def url(self, path="lab", **query):
        query = {"token": self.token, **query}
        q = "&".join(f"{k}={v}" if v is not None else k for k, v in query.items())
        return f"{self.base}/{path.lstrip('/')}?{q}"

    def api(self, path, method="GET", body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.base}/{path.lstrip('/')}", data=data, method=method,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode()
        return json.loads(text) if text else None

    def log_tail(self, n=3000):
        return Path(self.log).read_text(errors="replace")[-n:]

    def shutdown_kernels(self):
        """Stop every kernel the browser started (one notebook's run does not slow the next)."""
        for session in self.api("api/sessions"):
            with contextlib.suppress(urllib.error.URLError):
                self.api(f"api/sessions/{session['id']}", method="DELETE")


@contextlib.contextmanager
def serving(cmd, *, port, cwd, env, log_path, timeout=WAIT_MS / 1000):
    """Run ``cmd`` (``make lab`` and the like) in a session of its own until it serves on ``port``.

    Its output is copied to ``log_path`` line by line as it comes, and the wait ends on the
    line in which Jupyter Server says it is running at ``http://...:<port>/`` (its socket is
    listening by then), or when the output ends because the command exited. ``timeout`` only
    bounds a hang. Yields the process; on exit the whole session is stopped.
    """
    ready_line = re.compile(rf"https?://[^\s/]+:{port}/".encode())
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    seen, ready = threading.Event(), []
    log = open(log_path, "wb")

    def copy():
        for line in iter(proc.stdout.readline, b""):
            with contextlib.suppress(ValueError):  # the log closed after a hang: drop the rest
                log.write(line)
                log.flush()
            if not ready and ready_line.search(line):
                ready.append(line)
                seen.set()
        seen.set()  # the output ended: the command exited (or closed it)

    copier = threading.Thread(target=copy, daemon=True)
    copier.start()

    def tail():
        return Path(log_path).read_text(errors="replace")[-3000:]

    try:
        if not seen.wait(timeout):
            raise RuntimeError(f"{' '.join(cmd)} never said it serves on port {port} ({timeout:.0f} s):\n{tail()}")
        if not ready:
            proc.wait()
            raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode} before serving on port {port}:\n{tail()}")
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        copier.join(timeout=20)  # a kernel left running (its own session) may keep the output open
        log.close()


def answer(lab, timeout):
    """The server's first answer to ``api/status``, just after it says where it serves.

    Jupyter Server says so, then binds its socket on the first turn of its event loop: a
    connection refused in between is tried again, sooner first (no fixed interval), within
    ``timeout``. Raises RuntimeError naming what never came.
    """
    deadline, pause = time.monotonic() + timeout, 0.01
    while True:
        try:
            return lab.api("api/status", timeout=timeout)
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab says it serves on {lab.base} but its API never answered ({exc}):\n"
                                   f"{lab.log_tail()}") from exc
        time.sleep(pause)
        pause = min(2 * pause, 1.0)


@contextlib.contextmanager
def running_lab(mode, workdir, *, timeout=WAIT_MS / 1000):
    """Start ``make lab`` (mode ``"student"``) or ``make lab-instructor`` on a copy of the course.

    ``workdir`` (an empty folder) receives the copy (``course/``), the Jupyter settings
    (``jupyter/``) and the server's log. Yields a :class:`Lab`; stops the server on exit.
    """
    workdir = Path(workdir)
    course = copy_course(workdir / "course")
    home = workdir / "jupyter"
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), VENV=str(ROOT / ".venv"), LAB_PORT=str(port),
               LAB_ARGS=f"--no-browser --ServerApp.port_retries=0 --IdentityProvider.token={token}")
    log_path = workdir / f"lab-{mode}.log"
    lab = Lab(mode, f"http://127.0.0.1:{port}", token, course, log_path)
    with serving(["make", "--no-print-directory", MODES[mode]], port=port, cwd=course, env=env, log_path=log_path,
                 timeout=timeout):
        answer(lab, timeout)
        warm_up(lab, timeout)
        yield lab


def warm_up(lab, timeout):
    """Start and stop one kernel through the API before any test opens a notebook.

    A fresh server's first kernel start is its slowest (kernel specs read, the first
    ipykernel import), and that is when JupyterLab was seen to start two kernels for the
    first notebook a test opened and to shut one down under the page. The tests then meet
    a server that has been through it.
    """
    kernel = lab.api("api/kernels", method="POST", body={"name": "python3"}, timeout=timeout)
    try:
        lab.api(f"api/kernels/{kernel['id']}", timeout=timeout)
    finally:
        with contextlib.suppress(urllib.error.URLError):
            lab.api(f"api/kernels/{kernel['id']}", method="DELETE", timeout=timeout)


# --- a notebook, as a student meets it --------------------------------------------------

ACTIVE = ".jp-NotebookPanel:not(.lm-mod-hidden)"
# An error output is rendered as stderr text, like a warning; what tells them apart is the
# traceback: IPython's header, or a final line "SomeError: message" / "SomeError".
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*Cell In\[\d+\], line \d+"
                       r"|^[A-Za-z_.]*(Error|Exception|Interrupt|Exit)\b(:.*)?$",
                       re.M)


def open_notebook(page, lab, path, *, kernel=True, timeout=WAIT_MS):
    """Open ``path`` (relative to the course) in a fresh workspace; wait for an idle kernel."""
    page.goto(lab.url(f"lab/tree/{path}", reset=None))
    page.wait_for_selector(f"{ACTIVE} .jp-Notebook .jp-Cell", timeout=timeout)
    if not kernel:
        return
    from playwright.sync_api import Error, expect
    # Ready when all three say so: the server (the notebook's session has a kernel that is idle),
    # the status bar (the page's connection to that kernel reports "Idle") and the toolbar's
    # execution indicator. The indicator alone reads "idle" before the page is connected, and a
    # Run All sent then was seen to run nothing.
    try:
        page.wait_for_function(
            """async (path) => {
                const r = await fetch('/api/sessions', {credentials: 'same-origin'});
                if (!r.ok) return false;
                return (await r.json()).some(s => s.path.endsWith(path) && s.kernel
                                                  && s.kernel.execution_state === 'idle');
            }""", arg=path, timeout=timeout, polling=250)
        page.wait_for_function("() => /\\|\\s*Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')",
                               timeout=timeout, polling=100)
        expect(page.locator(f"{ACTIVE} .jp-Notebook-ExecutionIndicator")).to_have_attribute(
            "data-status", "idle", timeout=timeout)
    except (AssertionError, Error) as exc:
        raise AssertionError(f"the kernel of {path} never became idle: {exc}\n{lab.log_tail()}") from None


def accept_dialog(page, title):
    """Press the default button of a dialog titled ``title`` if one is open."""
    dialog = page.locator(".jp-Dialog", has=page.locator(".jp-Dialog-header", has_text=title))
    if dialog.count():
        dialog.locator(".jp-Dialog-button.jp-mod-accept").click()


def menu_command(page, menu, command):
    """Choose a command from the menu bar, as a student does (e.g. Run -> Run All Cells)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(menu)}$")).click()
    page.locator(f".lm-Menu li[data-command='{command}']").click()


def run_all(page, *, timeout=WAIT_MS):
    """Run -> Run All Cells, and wait until the kernel is done.

    Returns the prompts of the code cells ("[1]:", ... or "[ ]:" for a cell that never ran).
    """
    for attempt in range(2):
        menu_command(page, "Run", "runmenu:run-all")
        # Either the cells start running, or JupyterLab first asks for a kernel.
        page.wait_for_function(
            """(active) => document.querySelector('.jp-Dialog .jp-Dialog-header')
                           || [...document.querySelectorAll(active + ' .jp-CodeCell .jp-InputPrompt')]
                              .some(p => /[*\\d]/.test(p.textContent))""", arg=ACTIVE, timeout=timeout, polling=100)
        accept_dialog(page, "Select Kernel")
        # Done: every cell has run and the kernel is idle. Or JupyterLab asks for a kernel again:
        # it lost the one it had started (a fresh server sometimes starts two kernels for the
        # first notebook it opens and shuts one down under the page); then choose it and run
        # all again, once.
        state = page.wait_for_function(
            """(active) => {
                const header = document.querySelector('.jp-Dialog .jp-Dialog-header');
                if (header && header.textContent.includes('Select Kernel')) return 'lost';
                const prompts = [...document.querySelectorAll(active + ' .jp-CodeCell .jp-InputPrompt')];
                const busy = prompts.some(p => p.textContent.includes('*'));
                const ind = document.querySelector(active + ' .jp-Notebook-ExecutionIndicator');
                return prompts.length > 0 && !busy && /\\d/.test(prompts[0].textContent)
                       && ind && ind.dataset.status === 'idle' && 'done';
            }""", arg=ACTIVE, timeout=timeout, polling=200).json_value()
        if state != "lost" or attempt:
            break
        accept_dialog(page, "Select Kernel")
    return _texts(page.locator(f"{ACTIVE} .jp-CodeCell .jp-InputPrompt"))


def _texts(locator):
    # textContent, not innerText: cells scrolled out of view are not rendered (content-visibility)
    return locator.evaluate_all("els => els.map(e => e.textContent)")


def error_outputs(page):
    """Text of every error output on the page (a traceback, not merely text on stderr)."""
    texts = _texts(page.locator(f"{ACTIVE} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"))
    return [t for t in texts if TRACEBACK.search(t)]


def widget_fallbacks(page):
    """Outputs that show a widget's plain-text stand-in ("VBox(children=...)") or a widget error."""
    texts = _texts(page.locator(f"{ACTIVE} .jp-OutputArea-output"))
    bad = re.compile(r"^\s*[A-Z]\w*\((children|value|layout|description)=|Error displaying widget|"
                     r"^\s*Loading widget\.\.\.\s*$|Failed to load model class|model not found")
    return [t[:200] for t in texts if bad.search(t)]


def widget_outputs(page):
    """The rendered widget views in the cells' outputs (not those nested in an Output widget)."""
    return page.locator(f"{ACTIVE} .jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output > .jupyter-widgets"
                        ).all()


# The controls a student moves, and what a widget shows in answer.
SLIDER = ".noUi-handle[role='slider']"
BUTTON = "button.jupyter-button:not([disabled])"
SHOWN_TEXT = ".widget-html-content, .widget-label-basic, .widget-output .jp-OutputArea-output"

_WATCH = """(root) => {
    // Time stamps in the page: the input (keydown / pointerdown), then the first new picture
    // loaded and the first change of the text shown.
    const w = window.__courseWatch = {start: null, figure: null, text: null};
    const now = () => performance.now();
    root.addEventListener('keydown', () => { if (w.start === null) w.start = now(); }, {capture: true});
    root.addEventListener('pointerdown', () => { if (w.start === null) w.start = now(); }, {capture: true});
    root.addEventListener('load', (e) => {
        if (e.target.tagName === 'IMG' && w.figure === null && w.start !== null) w.figure = now();
    }, {capture: true});
    const shown = () => [...root.querySelectorAll(arguments_SHOWN)].map(e => e.textContent).join('\\n');
    const before = shown();
    w.observer = new MutationObserver(() => {
        if (w.text === null && w.start !== null && shown() !== before) w.text = now();
    });
    w.observer.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
}""".replace("arguments_SHOWN", json.dumps(SHOWN_TEXT))


def widget_state(widget):
    """What a widget shows: the ``src`` of its pictures and the text of its labels and status lines."""
    return widget.evaluate("""(root, sel) => ({
        figures: [...root.querySelectorAll('img')].map(i => i.getAttribute('src')),
        text: [...root.querySelectorAll(sel)].map(e => e.textContent).join('\\n'),
    })""", SHOWN_TEXT)


def controls(widget):
    """The sliders and buttons of a widget, in page order: [("slider" | "button", locator, label)]."""
    found = []
    for kind, sel in (("slider", SLIDER), ("button", BUTTON)):
        for loc in widget.locator(sel).all():
            if kind == "slider":
                label = loc.evaluate("h => h.closest('.widget-slider')?.querySelector('.widget-label')?.textContent || ''")
            else:
                label = loc.text_content()
            found.append((kind, loc, label.strip() or kind))
    order = [c[1].evaluate("e => [...document.querySelectorAll('*')].indexOf(e)") for c in found]
    return [c for _, c in sorted(zip(order, found, strict=True), key=lambda t: t[0])]


def operate(page, widget, kind, control, *, timeout=30_000):
    """Move a slider one step (keyboard) or press a button, as a student does.

    Waits until the widget shows a new picture and a new text. Returns
    ``(figure_ms, text_ms)``, the times from the key press or click to the new picture
    being loaded and to the text changing, measured in the page; ``None`` for what did
    not change within ``timeout``.
    """
    control.scroll_into_view_if_needed()
    widget.evaluate(_WATCH)
    if kind == "slider":
        now, top = (float(control.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemax"))
        control.focus()
        page.keyboard.press("ArrowLeft" if now >= top else "ArrowRight")
    else:
        control.click()
    try:
        page.wait_for_function("() => { const w = window.__courseWatch; return w.figure !== null && w.text !== null; }",
                               timeout=timeout, polling=20)
    except Exception:
        pass
    t = page.evaluate("() => { const w = window.__courseWatch; w.observer.disconnect(); "
                      "return [w.start, w.figure, w.text]; }")
    start, fig, text = t
    if start is None:
        return None, None
    return (None if fig is None else fig - start), (None if text is None else text - start)


# --- pytest: fixtures, and a screenshot of every failing browser test --------------------
# test_browser.py and test_deploy.py load this module as a plugin (pytest_plugins = ["labdriver"]).

SCREENSHOTS = Path(os.environ.get("COURSE_SCREENSHOT_DIR", ROOT / "browser-screenshots"))


def _require_browser(reason):
    if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"COURSE_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session."""
    executable = find_browser()
    if executable is None:
        _require_browser(HOW_TO_INSTALL)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _require_browser("the playwright package is missing: run 'make setup'")
    from playwright.sync_api import expect
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        b = launch_browser(p, executable)
        yield b
        b.close()


def _lab_fixture(mode):
    @pytest.fixture(scope="session")
    def lab(browser, tmp_path_factory):
        try:
            with running_lab(mode, tmp_path_factory.mktemp(f"lab-{mode}")) as server:
                yield server
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)
    lab.__doc__ = f"``make {MODES[mode]}`` on a temporary copy of the course, for the whole session."
    return lab


student_lab = _lab_fixture("student")
instructor_lab = _lab_fixture("instructor")


@pytest.fixture
def new_page(browser, request):
    """``new_page(lab)``: a fresh browser page (own cookies and storage) on a lab server.

    Every page is photographed when the test fails; the kernels it started are stopped
    afterwards.
    """
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(WAIT_MS)
    pages, labs = [], []
    request.node._course_pages = pages

    def make(lab):
        page = context.new_page()
        pages.append(page)
        if lab not in labs:
            labs.append(lab)
        return page

    yield make
    context.close()
    for lab in labs:
        with contextlib.suppress(Exception):
            lab.shutdown_kernels()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    pages = getattr(item, "_course_pages", None)
    keep_all = os.environ.get("COURSE_SCREENSHOTS") == "all"
    if report.when != "call" or not pages or not (report.failed or keep_all):
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", item.nodeid.split("::", 1)[-1])
    saved = []
    for i, page in enumerate(pages):
        path = SCREENSHOTS / f"{name}{'-' + str(i) if i else ''}.png"
        try:
            page.screenshot(path=str(path), full_page=False)
            saved.append(str(path))
        except Exception as exc:  # a crashed page: say so rather than hide the test's failure
            saved.append(f"(no screenshot of page {i}: {exc})")
    if report.failed:
        report.sections.append(("browser screenshots", "\n".join(saved)))
