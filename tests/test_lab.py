"""`make lab` serves JupyterLab on the course, with widgets, nbgrader and course_lib working.

Starts the real command on a free loopback port with a random token and Jupyter
settings isolated in a temporary folder, then talks to it as the browser would:
the REST API, the extensions it serves, and a kernel started for a lecture notebook.
"""
import json
import os
import secrets
import socket
import time
import urllib.request
import uuid
from pathlib import Path

import labdriver as ld
import pytest
import websocket  # websocket-client, installed with jupyter-server

pytestmark = pytest.mark.slow  # starts JupyterLab

ROOT = Path(__file__).resolve().parents[1]
# How long to wait for the server before failing: a busy machine only makes the tests slower.
START_S = 300


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.read().decode()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    home = tmp_path_factory.mktemp("jupyter")
    port, token = free_port(), secrets.token_hex(16)
    # the data folder as people write it, relative to where they type `make lab`
    data = Path(os.environ.get("COURSE_DATA_DIR") or home).resolve()
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTER_DATA_DIR=str(home / "data"), LAB_PORT=str(port),
               LAB_ARGS=f"--no-browser --ServerApp.port_retries=0 --IdentityProvider.token={token}",
               COURSE_DATA_DIR=os.path.relpath(data, ROOT), EXPECTED_DATA_DIR=str(data))
    base = f"http://127.0.0.1:{port}"
    try:
        with ld.serving(["make", "--no-print-directory", "lab"], port=port, cwd=ROOT, env=env,
                        log_path=home / "lab.log", timeout=START_S):
            ld.answer(ld.Lab("student", base, token, ROOT, home / "lab.log"), START_S)
            yield base, token
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


def test_api_answers_and_refuses_without_token(lab):
    base, token = lab
    status, body = get(f"{base}/api/status", token)
    assert status == 200 and "started" in json.loads(body)
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"{base}/api/contents", timeout=10)
    assert err.value.code == 403


def test_lab_serves_the_course_folder(lab):
    base, token = lab
    names = {item["name"] for item in json.loads(get(f"{base}/api/contents", token)[1])["content"]}
    assert {"notebooks", "course_lib", "README.md"} <= names


def test_widget_and_nbgrader_extensions_are_served(lab):
    base, token = lab
    _, page = get(f"{base}/lab", token)
    config = json.loads(page.split('id="jupyter-config-data"', 1)[1].split(">", 1)[1].split("</script>", 1)[0])
    served = {ext["name"] for ext in config.get("federated_extensions", [])}
    assert "@jupyter-widgets/jupyterlab-manager" in served, served
    assert "@jupyter/nbgrader" in served, served
    # neither nbgrader's Validate handler (the course's takes its place: test_students_get_no_instructor_tools)
    # nor the Assignment List's answers: in a clone of the course the assignments come as copies in
    # my-assignments/ (make lab)
    for address in (f"nbgrader_version?version={__import__('nbgrader').__version__}",
                    "assignments?course_id=ml-foundations"):
        with pytest.raises(urllib.error.HTTPError) as err:
            get(f"{base}/{address}", token)
        assert err.value.code == 404, address
    assert (ROOT / "my-assignments" / "ps1_perceptron" / "ps1_perceptron.ipynb").is_file()


def run_in_kernel(base, token, kernel_id, code, timeout=START_S):
    ws = websocket.create_connection(f"{base.replace('http', 'ws')}/api/kernels/{kernel_id}/channels?token={token}",
                                     timeout=timeout)
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "test", "session": uuid.uuid4().hex, "msg_type": "execute_request",
                       "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False},
        }))
        out, status = [], None
        deadline = time.monotonic() + timeout
        while status is None or not any(m == "idle" for m in out[-1:]):
            # each receive blocks until the kernel sends something, for what is left of the bound
            ws.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                raw = ws.recv()
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"the kernel never replied and went idle within {timeout} s: {out}") from None
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "stream":
                out.append(msg["content"]["text"])
            elif kind == "error":
                out.append("ERROR " + msg["content"]["ename"] + ": " + msg["content"]["evalue"])
            elif kind == "execute_reply":
                status = msg["content"]["status"]
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                out.append("idle")
        return status, "".join(o for o in out if o != "idle")
    finally:
        ws.close()


def test_course_lib_imports_in_a_notebook_kernel(lab):
    base, token = lab
    notebook = sorted((ROOT / "notebooks").glob("*.ipynb"))
    path = notebook[0].relative_to(ROOT).as_posix() if notebook else "notebooks/untitled.ipynb"
    body = json.dumps({"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}).encode()
    req = urllib.request.Request(f"{base}/api/sessions", data=body, method="POST",
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        session = json.loads(resp.read())
    try:
        status, out = run_in_kernel(base, token, session["kernel"]["id"],
                                    "import os, course_lib as cl, ipywidgets\n"
                                    "print(os.path.dirname(cl.__file__)); print(os.getcwd())\n"
                                    "print(os.environ['COURSE_DATA_DIR'] == os.environ['EXPECTED_DATA_DIR'])")
        assert status == "ok", out
        lib_dir, cwd, data_dir_absolute = out.split()[:3]
        assert Path(lib_dir) == ROOT / "course_lib"
        assert Path(cwd) == ROOT / "notebooks"
        # COURSE_DATA_DIR was given relative to the course folder; the kernel, elsewhere, gets it absolute
        assert data_dir_absolute == "True"
    finally:
        req = urllib.request.Request(f"{base}/api/sessions/{session['id']}", method="DELETE",
                                     headers={"Authorization": f"token {token}"})
        urllib.request.urlopen(req, timeout=30)


# --- students and instructors (make lab / make lab-instructor) ------------------------
INSTRUCTOR_PLUGINS = {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                      "@jupyter/nbgrader:course-list"}
ASSIGNMENT_LIST = "@jupyter/nbgrader:assignment-list"   # off for students: no exchange behind a clone
NEWS = "@jupyterlab/apputils-extension:announcements"      # JupyterLab's news pop-up: off in both modes
# The course's Validate button (jupyter/labextensions/) takes the place of nbgrader's in both modes.
COURSE_VALIDATE, NBGRADER_VALIDATE = "ml-foundations-validate", "@jupyter/nbgrader:validate-assignment"


def assert_the_course_validates(config, base, token):
    """The course's Validate button is served, nbgrader's is off, and its server side answers."""
    assert COURSE_VALIDATE in {ext["name"] for ext in config.get("federated_extensions", [])}
    assert NBGRADER_VALIDATE in config.get("disabledExtensions", [])
    req = urllib.request.Request(f"{base}/course/validate", data=b'{"path": "no-such.ipynb"}', method="POST",
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=30)
    assert err.value.code == 404 and b"no notebook at no-such.ipynb" in err.value.read()


def page_config(base, token):
    _, page = get(f"{base}/lab", token)
    return json.loads(page.split('id="jupyter-config-data"', 1)[1].split(">", 1)[1].split("</script>", 1)[0])


def test_students_get_no_instructor_tools(lab):
    base, token = lab
    config = page_config(base, token)
    disabled = set(config.get("disabledExtensions", []))
    assert INSTRUCTOR_PLUGINS <= disabled, disabled
    assert ASSIGNMENT_LIST in disabled, disabled
    assert NEWS in disabled
    assert_the_course_validates(config, base, token)
    with pytest.raises(urllib.error.HTTPError) as err:
        get(f"{base}/formgrader", token)
    assert err.value.code == 404


def test_instructors_get_formgrader_and_create_assignment(tmp_path):
    from labdriver import running_lab  # starts `make lab-instructor` on a copy of the course

    with running_lab("instructor", tmp_path) as server:
        config = page_config(server.base, server.token)
        disabled = set(config.get("disabledExtensions", []))
        assert not (INSTRUCTOR_PLUGINS | {ASSIGNMENT_LIST}) & disabled, disabled
        assert NEWS in disabled
        assert_the_course_validates(config, server.base, server.token)
        # the Assignment List's Validate buttons keep nbgrader's handler (grading.validate_button)
        status, body = get(f"{server.base}/nbgrader_version?version={__import__('nbgrader').__version__}",
                           server.token)
        assert status == 200 and json.loads(body)["success"]
        status, body = get(f"{server.base}/formgrader", server.token)
        assert status == 200 and "Manage Assignments" in body
