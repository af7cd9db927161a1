"""The Validate button: the course's prebuilt JupyterLab extension and its server side (grading.validate_service).

* The built extension in jupyter/labextensions/ is what its sources in jupyter/validate/ build
  to: a digest of the sources recorded by the build (fast), and a rebuild with npm compared
  byte for byte (slow; needs npm and the npm registry).
* It takes the place of nbgrader's Validate button wherever it is installed, and no settings
  file the course ships turns nbgrader's back on; its dialog never puts text on the page as HTML.
* On the hub's settings (deploy/: nbgrader_config_student.py, jupyter_server_config.json, the
  per-student files setup.sh writes, the extension where setup.sh installs it), a student's
  JupyterLab serves the course's button, and Validate checks her fetched assignment against the
  exchange's released copy with the course's limits and withheld functions, as make check does.

The browser tests (tests/test_browser.py) press the button in ``make lab``.
"""
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import jupyterlab
import labdriver as ld
import nbformat
import pytest
from grading_helpers import ASSIGNMENT, fill, reference_bodies, with_written_answers

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "jupyter" / "validate"
NAME = "ml-foundations-validate"
BUILT = ROOT / "jupyter" / "labextensions" / NAME
NBGRADER_VALIDATE = "@jupyter/nbgrader:validate-assignment"
SOURCES = ["package.json", "package-lock.json", "build.js", "src", "style"]   # as build.js digests them


def source_digest(folder=SOURCE):
    """build.js's digest: sha256 over each source file, sorted by path: its path, NUL, its bytes, NUL."""
    files = []
    for name in SOURCES:
        path = folder / name
        files += [p.relative_to(folder).as_posix() for p in sorted(path.rglob("*")) if p.is_file()] \
            if path.is_dir() else [name]
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + (folder / rel).read_bytes() + b"\0")
    return digest.hexdigest()


# -- the built extension is current ---------------------------------------------------------------------
def test_the_prebuilt_extension_is_built_from_the_sources_as_they_are():
    record = json.loads((BUILT / "course-build.json").read_text())
    assert record["sources"] == source_digest(), (
        "jupyter/validate/ changed since jupyter/labextensions/ was built: run `make labextension` and commit "
        "the result")
    # built against the JupyterLab the course locks (an extension built for one minor version loads in it)
    assert record["jupyterlab"].split(".")[:2] == jupyterlab.__version__.split(".")[:2], (
        f"built against JupyterLab {record['jupyterlab']}, the course runs {jupyterlab.__version__}: "
        "run `make labextension`")
    built = json.loads((BUILT / "package.json").read_text())
    source = json.loads((SOURCE / "package.json").read_text())
    build = built["jupyterlab"].pop("_build")
    assert built == source
    assert (BUILT / build["load"]).is_file(), build
    assert (SOURCE / "package-lock.json").is_file(), "npm ci needs the lock"


@pytest.mark.slow
def test_npm_builds_the_committed_extension_byte_for_byte(tmp_path):
    """npm ci (the lock's versions, from the npm registry) and npm run build on a copy elsewhere: the same files."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (only maintainers who change jupyter/validate/ need it)")
    copy = tmp_path / "somewhere" / "else" / "jupyter" / "validate"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("node_modules"))
    ci = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=copy, capture_output=True, text=True)
    if ci.returncode != 0:
        if re.search(r"ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|network", ci.stderr):
            pytest.skip(f"the npm registry cannot be reached: {ci.stderr.strip().splitlines()[-1]}")
        pytest.fail(f"npm ci failed:\n{ci.stderr[-3000:]}")
    build = subprocess.run([npm, "run", "build"], cwd=copy, capture_output=True, text=True,
                           env=dict(os.environ, COURSE_PYTHON=sys.executable))
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-3000:]
    rebuilt = copy.parent / "labextensions" / NAME

    def tree(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    ours, theirs = tree(BUILT), tree(rebuilt)
    assert sorted(ours) == sorted(theirs)
    assert [name for name in ours if ours[name] != theirs[name]] == []


# -- it replaces nbgrader's button, and shows text as text ---------------------------------------------
def _page_configs():
    """Every page_config the course ships: make lab's two modes, and the one setup.sh writes for each student."""
    configs = {str(p.relative_to(ROOT)): json.loads(p.read_text()) for p in (ROOT / "jupyter").glob("*/labconfig/*.json")}
    configs["deploy/setup.sh (a student's page_config.json)"] = json.loads(_heredoc("labconfig/page_config.json"))
    return configs


def _heredoc(target):
    """The JSON deploy/setup.sh writes into ``$home/.jupyter/<target>`` for each student."""
    text = (ROOT / "deploy" / "setup.sh").read_text()
    m = re.search(rf'cat > "\$home/\.jupyter/{re.escape(target)}" <<\'JSON\'\n(.*?)\nJSON\n', text, re.S)
    assert m, f"setup.sh no longer writes {target} as a heredoc"
    return m.group(1)


def test_the_extension_turns_nbgrader_s_validate_button_off_and_no_settings_turn_it_back_on():
    assert NBGRADER_VALIDATE in json.loads((SOURCE / "package.json").read_text())["jupyterlab"]["disabledExtensions"]
    for where, config in _page_configs().items():
        disabled = config.get("disabledExtensions", {})
        # an explicit false in a page_config would win over the extension's request (jupyterlab_server)
        assert NBGRADER_VALIDATE not in disabled or disabled[NBGRADER_VALIDATE] is True, where
        assert disabled.get(NAME) is not True and disabled.get(f"{NAME}:plugin") is not True, where


def test_the_dialog_puts_the_reply_on_the_page_as_text_only():
    """The reply holds a student's messages, code and output: src/index.js writes it with textContent only."""
    code = (SOURCE / "src" / "index.js").read_text()
    assert "textContent" in code
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "dangerouslySetInnerHTML",
                 "innerText =", "createContextualFragment", "DOMParser"):
        assert sink not in code, sink


def test_the_service_asks_for_the_sandbox_where_told_and_runs_the_check_of_make_check():
    from grading.validate_service import ValidateService

    student, grader = ValidateService(), ValidateService(require_sandbox=True)
    assert student.command("/course", "/course/a/b.ipynb") == [
        sys.executable, "-m", "grading", "--course", "/course", "check", "--json", "--sandbox", "preferred",
        "/course/a/b.ipynb"]
    assert "--sandbox" not in grader.command("/course", "/course/a/b.ipynb")


# -- on the hub's settings -----------------------------------------------------------------------------
COURSE_ID = "mlf-validate-test"


def _hub_like(tmp):
    """A student's server as the hub starts it, in ``tmp``: what deploy/setup.sh installs, with a released ps1."""
    prefix, home, exchange = tmp / "prefix", tmp / "home" / "ada", tmp / "exchange"
    etc = prefix / "etc"
    jupyter_etc = etc / "jupyter"
    jupyter_etc.mkdir(parents=True)
    (etc / "deploy.json").write_text(json.dumps({
        "prefix": str(prefix), "course_id": COURSE_ID, "exchange": str(exchange),
        "clerk_socket": str(tmp / "clerk.sock")}))
    # render(): nbgrader_config_student.py with the deployment's settings file
    (jupyter_etc / "nbgrader_config.py").write_text(
        (ROOT / "deploy" / "nbgrader_config_student.py").read_text().replace("@DEPLOY_JSON@", str(etc / "deploy.json")))
    shutil.copy(ROOT / "deploy" / "jupyter_server_config.json", jupyter_etc / "jupyter_server_config.json")
    # the course's nbgrader_config.py with the deployment's course id
    (etc / "course_nbgrader_config.py").write_text(re.sub(
        r"^c\.CourseDirectory\.course_id *=.*$", f'c.CourseDirectory.course_id = "{COURSE_ID}"',
        (ROOT / "nbgrader_config.py").read_text(), flags=re.M))
    # the extension where setup.sh copies it: the share/jupyter/labextensions of the hub's environment
    share = tmp / "venv-share" / "jupyter"
    shutil.copytree(BUILT, share / "labextensions" / NAME)
    # the instructor released ps1; she fetched it into her home
    released = ROOT / "release" / ASSIGNMENT
    shutil.copytree(released, exchange / COURSE_ID / "outbound" / ASSIGNMENT)
    shutil.copytree(released, home / ASSIGNMENT)
    (home / ".jupyter" / "labconfig").mkdir(parents=True)
    (home / ".jupyter" / "jupyter_server_config.json").write_text(_heredoc("jupyter_server_config.json"))
    (home / ".jupyter" / "labconfig" / "page_config.json").write_text(_heredoc("labconfig/page_config.json"))
    shutil.copy(ROOT / "notebooks" / "02-2-pla.ipynb", home / "02-2-pla.ipynb")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(HOME=str(home), JUPYTER_CONFIG_PATH=str(jupyter_etc), JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
               JUPYTER_PATH=str(share), JUPYTER_DATA_DIR=str(home / ".local" / "share" / "jupyter"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    return home, env


@pytest.fixture(scope="module")
def hub_student(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hub-like")
    home, env = _hub_like(tmp)
    port, token = ld.free_port(), secrets.token_hex(16)
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", f"--ServerApp.port={port}",
           "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={home}"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    lab = ld.Lab("student", f"http://127.0.0.1:{port}", token, home, tmp / "lab.log")
    try:
        with ld.serving(cmd, port=port, cwd=home, env=env, log_path=tmp / "lab.log"):
            ld.answer(lab, ld.WAIT_MS / 1000)
            yield lab
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


def _validate(lab, path):
    return lab.api("course/validate", method="POST", body={"path": path}, timeout=ld.WAIT_MS / 1000)


def _refused(lab, body):
    req = urllib.request.Request(f"{lab.base}/course/validate", data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=30)
    return err.value.code


@pytest.mark.slow
def test_on_the_hubs_settings_the_button_is_the_courses(hub_student):
    page = urllib.request.urlopen(hub_student.url("lab"), timeout=60).read().decode()
    config = json.loads(page.split('id="jupyter-config-data"', 1)[1].split(">", 1)[1].split("</script>", 1)[0])
    assert NAME in {ext["name"] for ext in config["federated_extensions"]}
    disabled = set(config["disabledExtensions"])
    assert NBGRADER_VALIDATE in disabled and "@jupyter/nbgrader:formgrader" in disabled, disabled


@pytest.mark.slow
def test_on_the_hubs_settings_validate_checks_against_the_exchange_with_the_courses_limits(hub_student):
    home = hub_student.course
    untouched = _validate(hub_student, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    assert untouched["status"] == "failed", untouched
    # the hidden tests are the instructor's (not on the hub for students): the button does not count them
    assert untouched["headline"] == ("0 of 12 visible test cells passed; the hidden tests these cells may hold "
                                     "and 1 question are graded later"), untouched["headline"]
    exchanged = str(Path(home).parents[1] / "exchange" / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    assert any(exchanged in note for note in untouched["notes"]), untouched["notes"]
    assert untouched["failures"][0]["message"] == "not done yet (the function still raises NotImplementedError)"
    # course_lib's pla is withheld while ps1 is checked, and ps1's own 3 s cell limit stops a loop
    released = nbformat.read(home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    answers = dict(reference_bodies(ASSIGNMENT))
    answers["pla-solution"] = "import course_lib as cl\nreturn cl.pla(X, y, max_updates=max_updates)\n"
    answers["radius-solution"] = "while True:\n    pass\n"
    nb = with_written_answers(fill(released, answers))
    nbformat.write(nb, home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")        # her work, where she fetched it
    report = _validate(hub_student, f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    failed = {f["grade_id"]: f for f in report["failures"]}
    assert set(failed) == {"pla-halts-with-no-training-mistake", "pla-stops-after-max-updates",
                           "radius-longest-example-with-x0"}, report
    assert "`course_lib.pla` is not available while ps1_perceptron is graded" in \
        failed["pla-halts-with-no-training-mistake"]["message"]
    stopped = failed["radius-longest-example-with-x0"]["message"]
    assert "3 s" in stopped or "3 seconds" in stopped, stopped
    assert report["headline"].startswith("9 of 12 visible test cells passed;")


@pytest.mark.slow
def test_on_the_hubs_settings_a_lecture_has_nothing_to_check_and_bad_requests_are_refused(hub_student):
    lecture = _validate(hub_student, "02-2-pla.ipynb")
    assert lecture["status"] == "nothing" and lecture["headline"].endswith("there is nothing to check"), lecture
    assert _refused(hub_student, {"path": "../../prefix/etc/deploy.json"}) == 403
    assert _refused(hub_student, {"path": "no-such.ipynb"}) == 404
    assert _refused(hub_student, {"path": ".jupyter/jupyter_server_config.json"}) == 404   # not a notebook
    assert _refused(hub_student, {"nothing": 1}) == 400
