"""``make audit``: what looks like tampering in the submissions, for an instructor to look at.

The sandbox and the judge already make tampering worthless for the grade; the audit
tells the instructor who tried. It reads every submitted notebook (every code cell,
whatever its metadata claims, except the instructor's own test cells, recognised by their
code) and every ``.py`` file, reports links, and lists, with the cell and the line:

* file access outside the notebook's folder (absolute paths, ``..``, the home folder);
* ``course_lib``'s own implementation of an exercise used in that exercise;
* attributes of imported modules reassigned (``np.testing.assert_allclose = ...``,
  ``setattr(module, ...)``, ``builtins`` changed);
* ``exec``, ``eval``, ``compile``, ``__import__`` and ``importlib``;
* ``os._exit`` and ``sys.exit``; subprocesses (``subprocess``, ``os.system``, ``os.fork``,
  ``multiprocessing`` ...); network use (``socket``, ``urllib``, ``http``, ``requests`` ...);
* classes that redefine comparison or conversion (``__eq__``, ``__bool__``, ``__float__``).

It never changes a grade. The report is printed and written to
``autograded/audit-<assignment>.txt``.
"""
import ast
import json
import os
from pathlib import Path

from .checks import _dotted, python_source
from .course import Course, CourseError

__all__ = ["audit_source", "audit_notebook", "audit_file", "audit_submission", "audit"]

_EXEC = {"exec", "eval", "compile", "__import__", "breakpoint"}
_EXIT = {"os._exit", "sys.exit", "os.abort", "os.kill", "os.killpg", "signal.signal", "exit", "quit"}
_PROCESS_MODULES = {"subprocess", "multiprocessing", "pty", "concurrent"}
_PROCESS_CALLS = {"os.system", "os.popen", "os.fork", "os.forkpty", "os.spawnl", "os.spawnv", "os.spawnve",
                  "os.execv", "os.execve", "os.execl", "os.execvp", "os.posix_spawn", "os.posix_spawnp"}
_NETWORK_MODULES = {"socket", "urllib", "http", "requests", "httpx", "ftplib", "smtplib", "ssl", "asyncio",
                    "websocket", "aiohttp", "paramiko"}
_FILE_CALLS = {"open", "os.open", "os.listdir", "os.scandir", "os.walk", "os.remove", "os.unlink", "os.rename",
               "os.replace", "os.rmdir", "os.chmod", "os.chown", "shutil.rmtree", "shutil.copy", "shutil.copyfile",
               "shutil.copytree", "shutil.move", "glob.glob", "Path", "pathlib.Path", "sqlite3.connect",
               "np.load", "np.save", "np.loadtxt", "numpy.load", "io.open", "os.chdir"}
_DUNDERS = {"__eq__", "__ne__", "__bool__", "__float__", "__int__", "__index__", "__len__", "__array__",
            "__array_ufunc__", "__array_function__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__"}


def _suspicious_path(text):
    return text.startswith(("/", "~")) or ".." in text.replace("\\", "/").split("/")


def _parse(source):
    return ast.parse(python_source(source))


def imported_names(source):
    """``{local name: module or object}`` for the imports of a piece of code.

    Examples
    --------
    >>> imported_names("import numpy as np\\nfrom course_lib import perceptron")
    {'np': 'numpy', 'perceptron': 'course_lib.perceptron'}
    """
    try:
        return _imports(_parse(source))
    except SyntaxError:
        return {}


def _imports(tree):
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def audit_source(source, *, exercises=(), aliases=None):
    """Findings in one cell's code: a list of ``(line, what)``.

    Parameters
    ----------
    source : str
        The cell's code.
    exercises : iterable of str
        Names of the functions the assignment asks for.
    aliases : dict, optional
        Names imported elsewhere in the notebook (see :func:`imported_names`), e.g. ``cl``.

    Examples
    --------
    >>> audit_source("import os\\nos._exit(0)")
    [(2, 'ends the process: os._exit')]
    >>> audit_source("def radius(X):\\n    return max(abs(X))")
    []
    """
    try:
        tree = _parse(source)
    except SyntaxError as exc:
        return [(exc.lineno or 0, "the code does not parse (SyntaxError)")]
    exercises = set(exercises)
    modules, findings = dict(aliases or {}), []

    def note(node, what):
        findings.append((getattr(node, "lineno", 0), what))

    modules.update(_imports(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in _NETWORK_MODULES:
                note(node, f"network: imports {name}")
            if top in _PROCESS_MODULES:
                note(node, f"subprocesses: imports {name}")
            if top in ("importlib", "builtins", "ctypes", "gc", "inspect"):
                note(node, f"imports {name}")
        if isinstance(node, ast.ImportFrom):
            top = node.module.split(".")[0]
            if top == "course_lib":
                used = sorted(a.name for a in node.names if a.name in exercises)
                if used:
                    note(node, f"imports course_lib's own {', '.join(used)}")

    def resolve(name):
        if name is None:
            return None
        head, _, rest = name.partition(".")
        full = modules.get(head, head)
        return f"{full}.{rest}" if rest else full

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            full = resolve(name)
            if name in _EXEC or (full or "").startswith("importlib"):
                note(node, f"dynamic code: {name}")
            if name in _EXIT or full in _EXIT:
                note(node, f"ends the process: {full}")
            if full in _PROCESS_CALLS or (full or "").split(".")[0] in _PROCESS_MODULES:
                note(node, f"subprocesses: {full}")
            if name in ("setattr", "delattr") and node.args:
                target = resolve(_dotted(node.args[0]))
                if target and (target.split(".")[0] in modules.values() or target in modules.values()
                               or target.split(".")[0] in ("builtins", "numpy", "course_lib", "sys", "os")):
                    note(node, f"changes a module: {name}({target}, ...)")
            if (name in _FILE_CALLS or full in _FILE_CALLS or (full or "").endswith((".read_text", ".read_bytes",
                                                                                     ".write_text", ".write_bytes",
                                                                                     ".open", ".iterdir", ".glob"))):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _suspicious_path(arg.value):
                        note(node, f"file access outside the notebook's folder: {name}({arg.value!r})")
                    elif isinstance(arg, (ast.JoinedStr, ast.BinOp)):
                        texts = [c.value for c in ast.walk(arg)
                                 if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                        if any(_suspicious_path(t) for t in texts):
                            note(node, f"file access outside the notebook's folder: {name}(...)")
            if full and full.startswith("course_lib.") and full.rsplit(".", 1)[-1] in exercises:
                note(node, f"uses course_lib's own {full.rsplit('.', 1)[-1]}")
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            full = resolve(_dotted(node))
            if full and full.startswith("course_lib.") and full.rsplit(".", 1)[-1] in exercises:
                note(node, f"uses course_lib's own {full.rsplit('.', 1)[-1]}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute):
                    root = _dotted(target)
                    if root and root.split(".")[0] in modules:
                        note(node, f"changes a module: {resolve(root)} = ...")
                    elif root and root.split(".")[0] in ("builtins", "__builtins__"):
                        note(node, f"changes builtins: {root} = ...")
                elif isinstance(target, ast.Subscript) and _dotted(target.value) in ("__builtins__", "sys.modules",
                                                                                   "builtins.__dict__", "globals"):
                    note(node, f"changes {_dotted(target.value)}")
        elif isinstance(node, ast.ClassDef):
            rigged = sorted({item.name for item in node.body if isinstance(item, ast.FunctionDef)} & _DUNDERS)
            rigged += sorted({t.id for item in node.body if isinstance(item, ast.Assign)
                              for t in item.targets if isinstance(t, ast.Name)} & _DUNDERS)
            if rigged:
                note(node, f"class {node.name} redefines {', '.join(rigged)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if any(key in node.value for key in ("gradebook.db", "/source/", "submitted/", "autograded/")):
                note(node, f"names the course's files: {node.value[:60]!r}")
    return sorted(set(findings))


MAX_SOURCE = 1_000_000     # characters of one cell or file that are read; a longer one is reported, not parsed
TIME_PER_SUBMISSION = 30.0  # seconds; the audit of a submission stops there, saying so


def _safe_audit(source, exercises, aliases):
    """:func:`audit_source` that survives any input: a cell too large or too deep is a finding of its own."""
    if len(source) > MAX_SOURCE:
        return [(0, f"{len(source)} characters: too large to audit (the audit reads at most {MAX_SOURCE})")]
    try:
        return audit_source(source, exercises=exercises, aliases=aliases)
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return [(0, f"the code could not be analysed ({type(exc).__name__}): nested too deeply or malformed")]


def _trusted(path):
    """Sources of the instructor's test cells of the source notebook (skipped by content, not by metadata)."""
    try:
        nb = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return set()
    from .cells import is_test_cell, source_of
    return {source_of(c) for c in nb.get("cells", []) if isinstance(c, dict) and is_test_cell(c)}


def audit_notebook(path, *, exercises=(), trusted=()):
    """``[(cell index, grade_id or None, line, what)]`` for one submitted notebook.

    Every code cell is read, whatever its metadata claims, except cells whose code is
    exactly one of ``trusted`` (the instructor's test cells, restored when graded).
    """
    from .cells import grade_id, source_of

    try:
        if os.path.islink(path):
            return [(None, None, 0, f"the notebook is a symbolic link to {os.readlink(path)!r}")]
        with open(path, "rb") as fh:
            raw = fh.read(64 * 1024**2 + 1)
        if len(raw) > 64 * 1024**2:
            return [(None, None, 0, "the notebook is larger than 64 MiB: not read")]
        nb = json.loads(raw)
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        return [(None, None, 0, f"the notebook could not be read: {type(exc).__name__}: {str(exc)[:200]}")]
    cells_in = nb.get("cells", []) if isinstance(nb, dict) else []
    out, cells, aliases = [], [], {}
    for index, cell in enumerate(cells_in if isinstance(cells_in, list) else []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = source_of(cell)
        if source in trusted:
            continue          # the instructor's tests (restored from the gradebook when graded)
        cells.append((index, grade_id(cell), source))
        if len(source) <= MAX_SOURCE:
            try:
                aliases.update(imported_names(source))
            except (RecursionError, MemoryError, ValueError):
                pass
    for index, gid, source in cells:
        for line, what in _safe_audit(source, exercises, aliases):
            out.append((index, gid, line, what))
    return out


def audit_file(path, *, exercises=()):
    """``[(line, what)]`` for one submitted ``.py`` file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SOURCE + 1)
    except OSError as exc:
        return [(0, f"could not be read: {exc.strerror}")]
    if len(raw) > MAX_SOURCE:
        return [(0, f"larger than {MAX_SOURCE} bytes: too large to audit")]
    return _safe_audit(raw.decode("utf-8", errors="replace"), exercises, {})


def _exercise_names(course, assignment):
    from .cells import is_solution_cell, source_of
    from .withhold import withheld_names

    names = set(withheld_names(course.source_dir / assignment))
    for nb_path in (course.source_dir / assignment).glob("*.ipynb"):
        nb = json.loads(nb_path.read_text())
        for cell in nb.get("cells", []):
            if is_solution_cell(cell) and cell.get("cell_type") == "code":
                source = source_of(cell)
                try:
                    tree = ast.parse(source)
                except SyntaxError:
                    continue
                names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return names


def audit_submission(folder, *, exercises=(), trusted=(), time_limit=TIME_PER_SUBMISSION):
    """Findings in every notebook and ``.py`` file below ``folder`` (links reported, never followed)."""
    import time

    start, found = time.monotonic(), []
    folder = Path(folder)
    if folder.is_symlink():
        return [{"notebook": "", "cell": None, "grade_id": None, "line": 0,
                 "what": f"the submission's folder is a symbolic link to {os.readlink(folder)!r}"}]
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in (".ipynb_checkpoints", "__pycache__"))
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(here, d))]):
            if time.monotonic() - start > time_limit:
                found.append({"notebook": "", "cell": None, "grade_id": None, "line": 0,
                              "what": f"the audit of this submission stopped after {time_limit:.0f} s"})
                return found
            path = os.path.join(here, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                found.append({"notebook": rel, "cell": None, "grade_id": None, "line": 0,
                              "what": f"a symbolic link to {os.readlink(path)!r} (never followed)"})
            elif name.endswith(".ipynb"):
                for index, gid, line, what in audit_notebook(path, exercises=exercises, trusted=trusted):
                    found.append({"notebook": rel, "cell": index, "grade_id": gid, "line": line, "what": what})
            elif name.endswith(".py"):
                for line, what in audit_file(path, exercises=exercises):
                    found.append({"notebook": rel, "cell": None, "grade_id": None, "line": line, "what": what})
    return found


def audit(root, assignment, *, echo=print):
    """Audit every submission of ``assignment``; return ``{student: findings}``.

    Every notebook and ``.py`` file of every submission is read; a submission that cannot be
    read, or code that cannot be analysed, is a finding, and the rest of the class is still
    audited. The report ``autograded/audit-<assignment>.txt`` is rewritten on every run (first
    marked unfinished, so a report on disk is never an earlier run's).
    """
    course = Course(root)
    course.check_assignment(assignment)
    students = course.submissions(assignment)
    if not students:
        raise CourseError(f"no submissions of {assignment!r} in {course.submitted_dir}")
    course.autograded_dir.mkdir(parents=True, exist_ok=True)
    out = course.autograded_dir / f"audit-{assignment}.txt"
    out.write_text(f"Audit of {assignment}: not finished (the audit was stopped before the end)\n")
    exercises = _exercise_names(course, assignment)
    trusted = set()
    for nb_path in (course.source_dir / assignment).glob("*.ipynb"):
        trusted |= _trusted(nb_path)
    report, lines = {}, [f"Audit of {assignment}: code that looks like tampering (grades are not changed)", ""]
    for student in students:
        try:
            found = audit_submission(course.submitted_dir / student / assignment, exercises=exercises,
                                     trusted=trusted)
        except Exception as exc:  # noqa: BLE001 - one submission never stops the audit of the class
            found = [{"notebook": "", "cell": None, "grade_id": None, "line": 0,
                      "what": f"could not be audited: {type(exc).__name__}: {str(exc)[:200]}"}]
        report[student] = found
        if found:
            lines.append(f"{student}: {len(found)} finding(s)")
            for f in found:
                where = f"cell {f['cell']}" + (f" ({f['grade_id']})" if f["grade_id"] else "") \
                    if f["cell"] is not None else ""
                lines.append(f"  {f['notebook']} {where}, line {f['line']}: {f['what']}".replace(" , line", ", line"))
    clean = [s for s, f in report.items() if not f]
    lines += ["", f"{len(students) - len(clean)} of {len(students)} submission(s) with findings; "
                  f"nothing found in {len(clean)}."]
    out.write_text("\n".join(lines) + "\n")
    for line in lines:
        echo(line)
    echo(f"\nwrote {out}")
    return report
