"""``make audit``: what looks like tampering in the submissions, for an instructor to look at.

The sandbox and the judge already make tampering worthless for the grade; the audit
tells the instructor who tried. It reads the code of every submitted notebook's cells
(except the instructor's test cells) and lists, with the cell and the line:

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
from pathlib import Path

from .checks import _dotted, python_source
from .course import Course, CourseError

__all__ = ["audit_source", "audit_notebook", "audit"]

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
                        texts = [c.value for c in ast.walk(arg) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
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


def audit_notebook(path, *, exercises=()):
    """``[(cell index, grade_id or None, line, what)]`` for one submitted notebook."""
    try:
        nb = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        return [(None, None, 0, f"the notebook could not be read: {exc}")]
    out, cells, aliases = [], [], {}
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            continue          # the instructor's tests (restored from the gradebook when graded)
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        cells.append((index, meta, source))
        aliases.update(imported_names(source))
    for index, meta, source in cells:
        for line, what in audit_source(source, exercises=exercises, aliases=aliases):
            out.append((index, meta.get("grade_id"), line, what))
    return out


def _exercise_names(course, assignment):
    names = set()
    for nb_path in (course.source_dir / assignment).glob("*.ipynb"):
        nb = json.loads(nb_path.read_text())
        for cell in nb.get("cells", []):
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("solution") and cell.get("cell_type") == "code":
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                try:
                    tree = ast.parse(source)
                except SyntaxError:
                    continue
                names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return names


def audit(root, assignment, *, echo=print):
    """Audit every submission of ``assignment``; return ``{student: findings}``."""
    course = Course(root)
    course.check_assignment(assignment)
    students = course.submissions(assignment)
    if not students:
        raise CourseError(f"no submissions of {assignment!r} in {course.submitted_dir}")
    exercises = _exercise_names(course, assignment)
    report, lines = {}, [f"Audit of {assignment}: code that looks like tampering (grades are not changed)", ""]
    for student in students:
        found = []
        for nb_path in sorted((course.submitted_dir / student / assignment).glob("*.ipynb")):
            for index, gid, line, what in audit_notebook(nb_path, exercises=exercises):
                found.append({"notebook": nb_path.name, "cell": index, "grade_id": gid, "line": line, "what": what})
        report[student] = found
        if found:
            lines.append(f"{student}: {len(found)} finding(s)")
            for f in found:
                where = f"cell {f['cell']}" + (f" ({f['grade_id']})" if f["grade_id"] else "")
                lines.append(f"  {f['notebook']} {where}, line {f['line']}: {f['what']}")
    clean = [s for s, f in report.items() if not f]
    lines += ["", f"{len(students) - len(clean)} of {len(students)} submission(s) with findings; "
                  f"nothing found in {len(clean)}."]
    course.autograded_dir.mkdir(parents=True, exist_ok=True)
    out = course.autograded_dir / f"audit-{assignment}.txt"
    out.write_text("\n".join(lines) + "\n")
    for line in lines:
        echo(line)
    echo(f"\nwrote {out}")
    return report
