"""Hidden inputs cannot be harvested: a submission that records what the hidden tests pass it and looks the answers
up in the next submission earns nothing it did not implement, over seven resubmissions.

The student implements only the four multiple-choice answers (4 points). Every graded function of ps1 records its
arguments, looks them up in a table of answers and otherwise raises; the last cells print the records, compressed,
within the per-cell cap. At home the student computes the right answers for every input recorded so far and
submits again with the bigger table. To leave the seeds alone in the dock, the test also plays a student who
learned every input of her previous submissions exactly (what a perfect leak would give): she fares no better,
because each submission's hidden data is drawn for that submission (its digest) with the course's secret.

Each round is prepared and run exactly as ``make autograde`` runs a submission
(:func:`grading.jobs.prepare_job`, :func:`grading.jobs.execute_job`); the points are those nbgrader
gives a test cell without an error.
"""
import base64
import hashlib
import json
import textwrap
import zlib

import nbformat
import numpy as np
import pytest
from grading_helpers import ASSIGNMENT, fill, make_course, reference_bodies, submit

pytestmark = pytest.mark.slow

ROUNDS = 7
STUDENT = "harvester"
REF = reference_bodies()
QUIZ = {g: body for g, body in REF.items() if g.startswith("funtime")}
FUNCTIONS = {"predict-solution": "predict(w, X)", "pla-solution": "pla(X, y, max_updates=10_000)",
             "radius-solution": "radius(X)", "margin-solution": "margin(w_f, X, y)",
             "bound-solution": "novikoff_bound(R, rho)", "pocket-solution": "pocket(X, y, max_updates)"}
LEAK_CELLS = 40

KEY = '''
import hashlib, json
import numpy as np

def _canon(v):
    if isinstance(v, np.ndarray):
        return ["nd", v.dtype.str, list(v.shape), v.tobytes().hex()]
    if isinstance(v, (list, tuple)):
        return [_canon(x) for x in v]
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v

def _key(name, args):
    return name + hashlib.sha256(json.dumps(_canon(list(args))).encode()).hexdigest()
'''


def _recorder(table):
    """The first solution cell: every graded function records its arguments and answers from ``table`` only."""
    functions = []
    for signature in FUNCTIONS.values():
        name, params = signature.split("(", 1)
        names = [p.split("=")[0].strip() for p in params.rstrip(")").split(",")]
        functions.append(f"def {signature}:\n    return _lookup({name!r}, {', '.join(names)})\n")
    return KEY + textwrap.dedent(f'''
        import base64, zlib
        _RECORDS = []
        _TABLE = {table!r}

        def _lookup(name, *args):
            _RECORDS.append([name, [_canon(a) for a in args]])
            if _key(name, args) in _TABLE:
                return _TABLE[_key(name, args)]
            raise NotImplementedError("nothing implemented")
        ''') + "\n".join(functions)


def _leak_cells():
    cells = ["_BLOB = base64.b85encode(zlib.compress(json.dumps(_RECORDS).encode(), 9)).decode()\n"
             "print('LEAK-SIZE', len(_BLOB))"]
    cells += [f"print('LEAK', {i}, _BLOB[{i} * 19_000:{i + 1} * 19_000])" for i in range(LEAK_CELLS)]
    return cells


def _home_functions(course):
    """The right answers, computed at home (the reference solutions, as course_lib computes them)."""
    nb = fill(nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4), REF)
    scope = {"np": np}
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in FUNCTIONS:
            exec(cell.source, scope)
    exec(KEY, scope)
    return scope


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


def _answers_for(records, home):
    """``{key: right answer}`` for recorded calls ``[name, canonical args]``."""
    table = {}
    for name, args in records:
        values = [_decanon(a) for a in args]
        table[home["_key"](name, values)] = _plain(home[name](*values))
    return table


def _decanon(v):
    if isinstance(v, list) and len(v) == 4 and v[0] == "nd":
        return np.frombuffer(bytes.fromhex(v[3]), dtype=np.dtype(v[1])).reshape(v[2]).copy()
    if isinstance(v, list):
        return [_decanon(x) for x in v]
    return v


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from grading.autograde import release, sync_gradebook
    from grading.course import Course

    course = make_course(tmp_path_factory.mktemp("leaks"))
    release(course, ASSIGNMENT)
    sync_gradebook(Course(course), ASSIGNMENT)
    return course


def _grade(course, nb):
    """Run the submission exactly as make autograde does; return (points, executed notebook, job arguments)."""
    from grading.course import Course
    from grading.jobs import execute_job, prepare_job

    submit(course, STUDENT, nb)
    c = Course(course)
    cfg = c.nbgrader_config()
    cfg.CourseDirectory.assignment_id = ASSIGNMENT
    job = prepare_job(cfg, ASSIGNMENT, STUDENT, [ASSIGNMENT])
    done = nbformat.from_dict(execute_job(job)[ASSIGNMENT]["notebook"])
    points = sum(float(cell.metadata["nbgrader"]["points"]) for cell in done.cells
                 if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution")
                 and cell.cell_type == "code" and not any(o["output_type"] == "error" for o in cell.outputs))
    return points, done, job["notebooks"][ASSIGNMENT]["arguments"]


def _perfect_leak(arguments, home, identity=None):
    """Every call the hidden tests made to this submission, as the grader made them (what a perfect leak gives).

    ``identity(cell)``: the context the test cells run in (default: the grader's, ``grading.context.test_cell``).
    """
    from grading.context import test_cell

    identity = identity or (lambda gid: test_cell(assignment=ASSIGNMENT, student=STUDENT, cell=gid,
                                                  submission=arguments["submission"], secret=arguments["secret"]))
    records = []

    def recording(name):
        def call(*args, **kwargs):
            values = list(args) + list(kwargs.values())
            records.append([name, [home["_canon"](v) for v in values]])
            return home[name](*[v.copy() if isinstance(v, np.ndarray) else v for v in values])
        return call

    for gid, source in arguments["tests"].items():
        scope = {name.split("(")[0]: recording(name.split("(")[0]) for name in FUNCTIONS.values()}
        scope.update({f"answer_{k}": 1 for k in range(1, 5)})
        with identity(gid):
            try:
                exec(source, scope)
            except AssertionError:
                pass
    return records


def _leaked(done):
    """What the submission's last cells carried home in the graded notebook (and so in its feedback)."""
    parts = {}
    for cell in done.cells:
        for out in cell.get("outputs", []):
            for line in out.get("text", "").splitlines():
                if line.startswith("LEAK "):
                    _, i, chunk = (line.split(" ", 2) + [""])[:3]
                    parts[int(i)] = chunk
    try:
        return json.loads(zlib.decompress(base64.b85decode("".join(parts[i] for i in sorted(parts)))))
    except (ValueError, zlib.error):
        return []


def test_leaking_hidden_inputs_and_looking_them_up_earns_nothing_over_seven_resubmissions(course):
    from grading.engine import AFTER_HIDDEN_CHARS

    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    home = _home_functions(course)
    table, scores, leaked_sizes, seeds = {}, [], [], []
    for _ in range(ROUNDS):
        cells = {"predict-solution": ("cell", _recorder(table))}
        cells.update({gid: ("cell", "# defined in the first solution cell") for gid in FUNCTIONS if
                      gid != "predict-solution"})
        nb = fill(released, dict(QUIZ, **cells))
        nb.cells += [nbformat.v4.new_code_cell(code) for code in _leak_cells()]
        points, done, arguments = _grade(course, nb)
        scores.append(points)
        leak = _leaked(done)
        leaked_sizes.append(sum(len(o.get("text", "")) for c in done.cells[-LEAK_CELLS:] for o in c.outputs))
        seeds.append(arguments["submission"])
        # at home: the right answer to every input that came home, and to every input a perfect leak would give
        table.update(_answers_for(leak, home))
        table.update(_answers_for(_perfect_leak(arguments, home), home))
    assert scores == [len(QUIZ)] * ROUNDS, scores
    assert len(set(seeds)) == ROUNDS
    assert all(size <= LEAK_CELLS * (AFTER_HIDDEN_CHARS + 100) for size in leaked_sizes), leaked_sizes
    assert len(table) > 70 * ROUNDS          # the table held the right answer to every input seen so far


def test_hidden_inputs_cannot_be_recomputed_from_a_clone_of_the_course(course):
    """The seeds of old were a public hash of (assignment, student, cell): with the hidden tests' code, anyone could
    recompute a student's hidden inputs. Recomputed so, none of the hidden inputs of predict is the grader's."""
    import contextlib

    from grading import context

    class PublicCell(context.TestCell):
        @property
        def seed(self):
            digest = hashlib.sha256("\0".join((self.assignment, self.student, self.cell)).encode()).digest()
            return int.from_bytes(digest[:8], "big")

    @contextlib.contextmanager
    def public(gid):
        token = context._CURRENT.set(PublicCell(ASSIGNMENT, STUDENT, gid))
        try:
            yield
        finally:
            context._CURRENT.reset(token)

    released = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    home = _home_functions(course)
    _, _, arguments = _grade(course, fill(released, REF))
    graded = [r for r in _perfect_leak(arguments, home) if r[0] == "predict"]
    recomputed = [r for r in _perfect_leak(arguments, home, public) if r[0] == "predict"]
    hidden = [r for r in graded if r not in recomputed]
    assert len(hidden) >= 3 and len(graded) == len(recomputed)
