"""Withhold, don't detect: ``course_lib`` without the functions an assignment asks students to write.

Each assignment lists, in ``source/<assignment>/course_lib_withheld.txt`` (released with the
notebook), the ``course_lib`` functions that solve its exercises: one name per line, ``#``
starts a comment; a method of one of ``course_lib``'s classes is listed as ``Class.method``
(``Standardizer.transform``). While the assignment is graded or self-checked, the student's process sees
a copy of ``course_lib`` in which each of those functions is replaced, in its module's
source, by one that raises::

    NotImplementedError: `course_lib.pla` is not available while ps1_perceptron is graded: write it yourself

The private helpers that do the listed functions' work go with them: a withheld
``course_lib.pocket`` would be worth little if ``course_lib.perceptron._pocket_core`` still
ran the algorithm. Every module-level function whose name starts with ``_`` and that a
withheld function reaches (calls or names, directly or through other helpers, in any of
``course_lib``'s modules) is withheld too, except the small shared utilities in
:data:`SHARED_HELPERS` (input checks, ``sign`` with sign(0) = -1, the logistic function,
the visiting order of the examples), which teach nothing an exercise asks for and which
the data loaders and plots also use. Public functions built on a withheld helper then
refuse as well, naming the helper. A shared helper that *is* an exercise (``_sign``, sign
with sign(0) = -1, is the whole of ps1's ``predict``) is withheld when the assignment lists
it by name, and every method built on it (``SVMResult.predict`` ...) refuses with it.

The copy is mounted over ``course_lib`` inside the sandbox, wherever the real package shows there
(:meth:`grading.sandbox.Sandbox.readonly_paths`: also inside the environment's packages, where the
hub installs ``course_lib``), so no route reaches the
implementation: not ``cl.pla``, not ``getattr``, ``exec``, ``importlib`` or a helper file,
not reading ``course_lib``'s files or their bytecode (compiled from the copy). Everything else in
``course_lib`` (data loaders, plots) stays as it is. The grader's own process, where the
hidden tests run, keeps the real ``course_lib``.

Examples
--------
>>> parse_withheld("# ps1\\npla\\npocket  # the pocket algorithm\\n")
['pla', 'pocket']
"""
import ast
import functools
import importlib.util
import os
from pathlib import Path

__all__ = ["FILE", "SHARED_HELPERS", "parse_withheld", "withheld_names", "message", "withheld_closure",
           "withheld_copy", "install_in_kernel"]

FILE = "course_lib_withheld.txt"
_MAX_BYTES = 64 * 1024

SHARED_HELPERS = ("_check*", "_sign", "_expit", "_log_expit", "_pair", "_cycle_order", "_first_from")
"""Private helpers (glob patterns) never withheld with the functions that use them: checks and
one-line utilities that loaders and plots share. An assignment whose exercise one of them
solves lists it by name."""


def message(name, assignment):
    """The error a withheld function raises."""
    return f"`course_lib.{name}` is not available while {assignment or 'this assignment'} is graded: write it yourself"


def parse_withheld(text, *, where=FILE):
    """Names listed in the text of a withheld-functions file; ValueError naming the line when one is not a name."""
    names = []
    for number, line in enumerate(text.splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        owner, _, attr = name.rpartition(".")
        if not attr.isidentifier() or ("." in name and not (owner.isidentifier() and owner[0].isupper())):
            raise ValueError(f"{where}, line {number}: expected the name of a course_lib function "
                             f"(or Class.method), got {name!r}")
        if name not in names:
            names.append(name)
    return names


def withheld_names(folder):
    """The names listed in ``folder``/course_lib_withheld.txt (empty when there is no such file or it is a link)."""
    path = Path(folder) / FILE
    if path.is_symlink() or not path.is_file():
        return []
    with open(path, "rb") as fh:
        text = fh.read(_MAX_BYTES).decode("utf-8", errors="replace")
    return parse_withheld(text, where=str(path))


def course_lib_dir():
    """The folder of the ``course_lib`` package that the student's process imports."""
    from .sandbox import package_dirs

    dirs = [package_dirs(("course_lib",)).get("course_lib")] if package_dirs(("course_lib",)) else []
    if not dirs:
        spec = importlib.util.find_spec("course_lib")
        dirs = list(spec.submodule_search_locations or []) if spec else []
    if not dirs:
        raise RuntimeError("course_lib is not installed in this environment (make setup)")
    return Path(dirs[0])


def _stub(node, name, assignment, *, keep_decorators=False):
    """``node`` (a function definition) with its body replaced by a raise of the withheld message."""
    raise_stmt = ast.parse(f"raise NotImplementedError({message(name, assignment)!r})").body[0]
    body = [raise_stmt]
    if (node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)):
        body.insert(0, ast.Expr(ast.Constant(f"Withheld: {message(name, assignment)}.")))
    node.body = body
    if not keep_decorators:
        node.decorator_list = []
    return node


def _module_functions(source):
    """{path: [function definitions at module level]} and {name: names it refers to} for a package."""
    defs, refers = {}, {}
    for path in sorted(Path(source).rglob("*.py")):
        if "__pycache__" in path.parts or path.is_symlink():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        defs[path] = nodes
        named = [(n.name, n) for n in nodes]
        named += [(f"{c.name}.{m.name}", m) for c in tree.body if isinstance(c, ast.ClassDef)
                  for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for name, node in named:
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            used |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            refers.setdefault(name, set()).update(used)
    return defs, refers


def withheld_closure(names, *, source=None):
    """The listed names and every private helper they reach, except :data:`SHARED_HELPERS`.

    Examples
    --------
    >>> "_pocket_one" in withheld_closure(["pocket"])
    True
    >>> "_sign" in withheld_closure(["pocket"]) or "pla" in withheld_closure(["pocket"])
    False
    """
    import fnmatch

    _, refers = _module_functions(Path(source) if source is not None else course_lib_dir())
    closure, todo = set(names), list(names)
    while todo:
        for used in refers.get(todo.pop(), ()):
            if (used.startswith("_") and used in refers and used not in closure
                    and not any(fnmatch.fnmatchcase(used, pattern) for pattern in SHARED_HELPERS)):
                closure.add(used)
                todo.append(used)
    return closure


def withheld_copy(names, assignment, dest, *, source=None):
    """Write a copy of ``course_lib`` into ``dest`` with the functions ``names`` withheld.

    The copy's text is made once per process for each assignment and state of the package
    (:func:`_withheld_files`), then written: a class of submissions pays for the parsing once.

    Parameters
    ----------
    names : iterable of str
        Top-level functions of ``course_lib``'s modules; the private helpers they reach
        are withheld with them (:func:`withheld_closure`).
    assignment : str
        Named in the message.
    dest : path
        A folder that does not exist yet; it becomes the package folder.
    source : path, optional
        The package to copy (default: :func:`course_lib_dir`).

    Returns
    -------
    Path
        ``dest``.

    Raises
    ------
    ValueError
        When a name is not a top-level function of any of ``course_lib``'s modules.
    """
    source = Path(source) if source is not None else course_lib_dir()
    files = _withheld_files(frozenset(names), assignment, str(source), _package_state(source))
    dest = Path(dest)
    dest.mkdir(mode=0o755, parents=True, exist_ok=True)
    for rel, data in files:
        out = dest / rel
        out.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        out.write_bytes(data)
        os.chmod(out, 0o644)
    for path in [dest] + [p for p in dest.rglob("*") if p.is_dir()]:
        os.chmod(path, 0o755)
    return dest


def _package_files(source):
    """The files of the package at ``source`` that a copy holds, as sorted relative paths (no links, no bytecode)."""
    out = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for file in sorted(files):
            path = Path(folder) / file
            if not file.endswith((".pyc", ".pyo")) and not path.is_symlink():
                out.append(path.relative_to(source).as_posix())
    return out


def _package_state(source):
    """What the copy depends on besides the names: each file's path, size and time of change."""
    state = []
    for rel in _package_files(source):
        st = os.stat(Path(source) / rel)
        state.append((rel, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(state)


@functools.lru_cache(maxsize=16)
def _withheld_files(listed, assignment, source, state):
    """``((relative path, bytes), ...)`` of the copy of the package at ``source`` without ``listed`` (``state``:
    :func:`_package_state`, so a changed package is copied again)."""
    source = Path(source)
    names = withheld_closure(listed, source=source)
    found, files = set(), []
    for rel, *_ in state:
        src = source / rel
        if not rel.endswith(".py"):
            files.append((rel, src.read_bytes()))
            continue
        text = src.read_text(encoding="utf-8")
        tree = ast.parse(text)
        changed = False
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
                _stub(node, node.name, assignment)
                found.add(node.name)
                changed = True
            elif isinstance(node, ast.ClassDef):
                for method in node.body:
                    name = f"{node.name}.{getattr(method, 'name', '')}"
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in names:
                        _stub(method, name, assignment, keep_decorators=True)
                        found.add(name)
                        changed = True
        files.append((rel, (ast.unparse(tree) + "\n" if changed else text).encode("utf-8")))
    missing = sorted(listed - found)
    if missing:
        raise ValueError(f"{FILE} of {assignment} lists {', '.join(missing)}, which course_lib does not define "
                         "as a function (or as a method of one of its classes)")
    return tuple(files) + _compiled(files)


def _compiled(files):
    """The bytecode of the ``.py`` files among ``files``, as ``(relative path in __pycache__, bytes)``.

    Checked against the source's hash (not its time), so a copy written later still uses it: the student's
    process, which cannot write into the copy, would otherwise compile the package at every start.
    """
    import importlib.util
    import py_compile
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, data in files:
            if not rel.endswith(".py"):
                continue
            src = Path(tmp, rel)
            src.parent.mkdir(parents=True, exist_ok=True)
            src.write_bytes(data)
            cfile = Path(importlib.util.cache_from_source(str(src)))
            py_compile.compile(str(src), cfile=str(cfile), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            out.append((cfile.relative_to(tmp).as_posix(), cfile.read_bytes()))
    return tuple(out)


def install_in_kernel(folder=".", assignment=None):
    """In a running kernel (the Validate button's), replace the withheld functions of ``course_lib``.

    Weaker than the sandbox's copy (the files stay readable), but the Validate button then
    refuses the same calls as ``make check`` and autograde do.
    """
    import sys

    names = withheld_names(folder)
    if not names:
        return []
    import course_lib  # noqa: F401 - loads the modules whose functions are replaced

    names = sorted(withheld_closure(names))

    assignment = assignment or Path(os.path.abspath(folder)).name

    def stub(name):
        def withheld(*args, **kwargs):
            raise NotImplementedError(message(name, assignment))
        withheld.__name__ = name
        return withheld

    for module_name, module in list(sys.modules.items()):
        if module_name == "course_lib" or module_name.startswith("course_lib."):
            for name in names:
                owner, _, attr = name.rpartition(".")
                target = getattr(module, owner, None) if owner else module
                if not isinstance(target, type) and owner:
                    continue
                current = target.__dict__.get(attr) if owner else getattr(module, attr, None)
                if isinstance(current, property):
                    setattr(target, attr, property(stub(name)))
                elif callable(current):
                    setattr(target, attr, stub(name))
    return names
