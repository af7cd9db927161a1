"""``make audit``: code in the submissions that looks like tampering or copying, for an instructor to look at.

The sandbox and the judge already make tampering worthless for the grade; the audit tells
the instructor who tried, and shows what grading cannot see: copying. It reads every
submitted notebook (every code cell, whatever its metadata claims, except the instructor's
own test cells, recognised by their code) and every ``.py`` file, reports links, and lists,
with the cell and the line:

* file access outside the notebook's folder (absolute paths, ``..``, the home folder);
* ``course_lib``'s own implementation of an exercise used in that exercise, or **copied**
  into it: a function whose syntax tree, with names, constants and layout abstracted, is a
  near-copy of the implementation in ``course_lib/`` (see :data:`COPY_SIMILARITY`);
* **hard-coded answers**: a graded function that compares its inputs with the numbers of a
  visible test's example, looks them up in a table, or returns a visible test's expected value;
* attributes of imported modules reassigned (``np.testing.assert_allclose = ...``,
  ``setattr(module, ...)``, ``builtins`` changed);
* ``exec``, ``eval``, ``compile``, ``__import__`` and ``importlib``, referred to or called;
* ``os._exit`` and ``sys.exit``; subprocesses (``subprocess``, ``os.system``, ``os.fork``,
  ``multiprocessing``, shell escapes ``!cmd`` ...); network use (``socket``, ``urllib``, ``http``, ...);
* classes that redefine comparison or conversion (``__eq__``, ``__bool__``, ``__float__``),
  with ``class`` or with ``type(name, bases, namespace)``;
* dynamic lookups that hide any of the above from a reader: ``getattr``/``setattr``/
  ``hasattr`` with a computed name, ``sys.modules[...]``, ``globals()[...]``, ``vars(m)[...]``,
  ``m.__dict__[...]``, ``operator.attrgetter``, introspection (``__subclasses__``,
  ``__globals__``, ``__builtins__`` ...), and names of those things built from pieces
  (``"_ex" + "it"``, ``"".join([...])``, f-strings and slices of constants).

Across the class it lists **pairs of students whose graded cells are near-copies** of each
other, with a similarity score and the two cells side by side: MOSS's winnowed fingerprints
of the normalised syntax tree, counting only code that is neither the released template nor
common in the class (see :func:`similar_pairs`).

It never changes a grade. What it still misses: names computed at run time from anything but
constants (read from a file, decoded from base64, built in a loop), code objects and
``pickle``/``marshal`` payloads beyond the import itself, copies that were rewritten line by
line (other loops, other expressions), and copying from a source outside the class. A
finding is a reason to look, not proof.

Every cell and file is read as bounded input: at most :data:`MAX_SOURCE` characters, IPython
syntax turned into Python in one linear pass (never IPython's transformer, whose time grows
with the square of a cell), and the per-submission time limit is checked between cells and
while a cell's syntax tree is walked. File names are reported with undecodable bytes and
control characters escaped. The report is printed and written to
``autograded/audit-<assignment>.txt``.
"""
import ast
import builtins
import functools
import hashlib
import json
import os
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .checks import _dotted
from .course import Course, CourseError

__all__ = ["audit_source", "audit_notebook", "audit_file", "audit_submission", "audit", "imported_names",
           "python_of", "fingerprints", "similarity", "similar_pairs", "course_lib_implementations",
           "visible_constants", "shown_name", "MAX_SOURCE", "TIME_PER_SUBMISSION", "COPY_SIMILARITY",
           "PAIR_SIMILARITY", "MIN_PRINTS", "CHANCE", "MIN_COPIED", "AuditReport", "Pair"]

MAX_SOURCE = 256_000        # characters of one cell or file that are read; a longer one is reported, not parsed
TIME_PER_SUBMISSION = 30.0  # seconds; the audit of a submission stops there, saying so

# -- the rule tables ----------------------------------------------------------------------------
DYNAMIC_CODE = {"exec", "eval", "compile", "__import__", "breakpoint", "builtins.exec", "builtins.eval",
                "builtins.compile", "builtins.__import__"}
EXITS = {"os._exit", "sys.exit", "os.abort", "os.kill", "os.killpg", "signal.signal", "exit", "quit"}
PROCESS_MODULES = {"subprocess", "multiprocessing", "pty", "concurrent"}
PROCESS_CALLS = {"os.system", "os.popen", "os.fork", "os.forkpty", "os.spawnl", "os.spawnv", "os.spawnve", "os.execv",
                 "os.execve", "os.execl", "os.execvp", "os.posix_spawn", "os.posix_spawnp"}
NETWORK_MODULES = {"socket", "urllib", "http", "requests", "httpx", "ftplib", "smtplib", "ssl", "asyncio", "websocket",
                   "aiohttp", "paramiko"}
WATCHED_IMPORTS = {"importlib", "builtins", "ctypes", "gc", "inspect", "pickle", "marshal", "operator"}
FILE_CALLS = {"open", "os.open", "os.listdir", "os.scandir", "os.walk", "os.remove", "os.unlink", "os.rename",
              "os.replace", "os.rmdir", "os.chmod", "os.chown", "shutil.rmtree", "shutil.copy", "shutil.copyfile",
              "shutil.copytree", "shutil.move", "glob.glob", "Path", "pathlib.Path", "sqlite3.connect", "np.load",
              "np.save", "np.loadtxt", "numpy.load", "numpy.save", "numpy.loadtxt", "io.open", "os.chdir"}
FILE_METHODS = (".read_text", ".read_bytes", ".write_text", ".write_bytes", ".open", ".iterdir", ".glob")
RIGGED_DUNDERS = {"__eq__", "__ne__", "__bool__", "__float__", "__int__", "__index__", "__len__", "__array__",
                  "__array_ufunc__", "__array_function__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__"}
INTROSPECTION = {"__globals__", "__code__", "__subclasses__", "__builtins__", "__closure__", "__getattribute__",
                 "__mro__", "__bases__", "f_globals", "f_locals", "f_back", "gi_frame", "tb_frame", "__loader__"}
NAMESPACES = {"sys.modules", "globals", "locals", "vars", "__builtins__", "builtins.__dict__"}
LOOKUP_CALLS = {"getattr", "setattr", "delattr", "hasattr", "operator.attrgetter", "operator.methodcaller",
                "importlib.import_module", "__import__", "builtins.getattr"}
COURSE_FILES = ("gradebook.db", "/source/", "submitted/", "autograded/")
#: Names that code hiding what it does builds from pieces (compared with strings folded from constants).
HIDDEN_NAMES = ({name.rsplit(".", 1)[-1] for name in DYNAMIC_CODE | EXITS | PROCESS_CALLS} | PROCESS_MODULES
                | NETWORK_MODULES | WATCHED_IMPORTS | RIGGED_DUNDERS | INTROSPECTION | {"os", "sys", "course_lib",
                                                                                       "system", "popen", "modules"})


# -- IPython syntax, linearly ----------------------------------------------------------------------
_LINE_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?P<kind>!!|!|%)(?P<rest>.*)$")
_ASSIGNED_MAGIC = re.compile(r"^(?P<head>[ \t]*[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*)(?P<kind>!!|!|%)(?P<rest>.*)$")
_HELP = re.compile(r"^(?P<body>[ \t]*[\w.]+)[ \t]*\?{1,2}[ \t]*$")
_CODE_MAGICS = {"time", "timeit", "prun", "capture", "debug"}          # their argument is Python that runs
_SHELL_MAGICS = {"system", "sx", "sc", "bash", "sh", "script", "run", "load", "writefile", "file"}


def python_of(source):
    """``(code, shell)``: a cell's IPython syntax as plain Python, in one pass over its lines.

    A line magic whose argument is Python (``%time f(x)``) becomes that code; any other magic
    becomes ``pass``; a shell escape (``!cmd``, ``x = !cmd``) and the magics that run commands
    or files (``%system``, ``%%bash``, ``%run``, ``%%writefile`` ...) are returned in ``shell``.
    Linear in the length of the cell (IPython's own transformer is quadratic).

    Examples
    --------
    >>> python_of("%time y = f(x)\\n!ls /\\nx = 1")
    ('y = f(x)\\npass\\nx = 1', ['!ls /'])
    >>> python_of("%%bash\\nrm -rf /")
    ('', ['%%bash: rm -rf /'])
    """
    lines, shell = source.split("\n"), []
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in _CODE_MAGICS:
            if name in _SHELL_MAGICS:
                shell.append(f"%%{name}: " + " ".join(line.strip() for line in lines[1:] if line.strip())[:300])
            return "", shell
        lines = lines[1:]
    return "\n".join(_python_line(line, shell) for line in lines), shell


def _python_line(line, shell):
    """One line of a cell as plain Python (see :func:`python_of`); a command it runs is added to ``shell``."""
    m = _ASSIGNED_MAGIC.match(line)
    if m:
        if m["kind"] != "%" or m["rest"].split(None, 1)[:1] in (["system"], ["sx"], ["sc"]):
            shell.append(f"{m['kind']}{m['rest'].strip()}"[:300])
        return f"{m['head']}None"
    m = _LINE_MAGIC.match(line)
    if m is None:
        m = _HELP.match(line)
        return m["body"] if m else line
    indent, kind, rest = m["indent"], m["kind"], m["rest"]
    if kind != "%":
        shell.append(f"{kind}{rest.strip()}"[:300])
        return f"{indent}pass"
    name, _, argument = rest.partition(" ")
    if name in _SHELL_MAGICS:
        shell.append(f"%{rest.strip()}"[:300])
    code = _magic_code(argument) if name in _CODE_MAGICS else ""
    return f"{indent}{code}" if code else f"{indent}pass"


def _magic_code(argument):
    """The Python a line magic such as ``%time`` runs, when it parses; else empty."""
    code = argument.strip()
    try:
        compile(code, "<magic>", "exec", flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    return code


def _suspicious_path(text):
    return text.startswith(("/", "~")) or ".." in text.replace("\\", "/").split("/")


def _fold(node, depth=0):
    """The string a constant expression builds (``"_ex" + "it"``, ``"".join(["o", "s"])``, f-strings and slices of
    constants, ``"tixe_"[::-1]``), else None.

    Examples
    --------
    >>> import ast
    >>> [_fold(ast.parse(code, mode="eval").body) for code in ('"_ex" + "it"', '"".join(["o", "s"])', '"tixe_"[::-1]',
    ...                                                         "f'sys'", '"a" + x', '"abc"[::0]', '"ab"[x:]')]
    ['_exit', 'os', '_exit', 'sys', None, None, None]
    """
    fold = _FOLDS.get(type(node))
    return fold(node, depth + 1) if fold is not None and depth <= 50 else None


def _folded(nodes, depth):
    """The strings ``nodes`` build, or None unless every one does."""
    parts = [_fold(n, depth) for n in nodes]
    return parts if all(p is not None for p in parts) else None


def _fold_constant(node, depth):
    return node.value if isinstance(node.value, str) else None


def _fold_add(node, depth):
    parts = _folded([node.left, node.right], depth) if isinstance(node.op, ast.Add) else None
    return parts[0] + parts[1] if parts is not None else None


def _fold_fstring(node, depth):
    parts = _folded([v.value if isinstance(v, ast.FormattedValue) else v for v in node.values], depth)
    return "".join(parts) if parts is not None else None


def _fold_join(node, depth):
    """``sep.join([...])`` of constants."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple))):
        return None
    parts = _folded([node.func.value, *node.args[0].elts], depth)
    return parts[0].join(parts[1:]) if parts is not None else None


def _fold_slice(node, depth):
    """``text[a:b:c]`` of a constant with integer bounds."""
    if not isinstance(node.slice, ast.Slice):
        return None
    text = _fold(node.value, depth)
    given = (node.slice.lower, node.slice.upper, node.slice.step)
    bounds = [_integer(b) if b is not None else None for b in given]
    if text is None or sum(b is not None for b in bounds) != sum(b is not None for b in given) or bounds[2] == 0:
        return None
    return text[slice(*bounds)]


_FOLDS = {ast.Constant: _fold_constant, ast.BinOp: _fold_add, ast.JoinedStr: _fold_fstring, ast.Call: _fold_join,
          ast.Subscript: _fold_slice}
"""How :func:`_fold` reads each kind of expression that can build a string from constants."""


def _integer(node):
    """The value of an integer literal, signed (``-1`` is a unary minus in the tree), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _integer(node.operand)
        return -inner if inner is not None else None
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


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


def imported_names(source):
    """``{local name: module or object}`` for the imports of a piece of code.

    Examples
    --------
    >>> imported_names("import numpy as np\\nfrom course_lib import perceptron")
    {'np': 'numpy', 'perceptron': 'course_lib.perceptron'}
    """
    if len(source) > MAX_SOURCE:
        return {}
    try:
        return dict(_parse(source)[2])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}


class AuditTimeout(Exception):
    """The per-submission time limit ran out while a cell was being read."""


@dataclass
class _Deadline:
    at: float = float("inf")

    def check(self):
        if time.monotonic() > self.at:
            raise AuditTimeout


# -- the visitor ------------------------------------------------------------------------------------
class _Visitor(ast.NodeVisitor):
    """Findings in one cell's syntax tree, by the rule tables above."""

    def __init__(self, exercises, modules, deadline):
        self.exercises, self.modules, self.deadline = set(exercises), modules, deadline
        self.findings, self.nodes = [], 0

    def note(self, node, what):
        self.findings.append((getattr(node, "lineno", 0), what))

    def visit(self, node):
        self.nodes += 1
        if self.nodes % 2000 == 0:
            self.deadline.check()
        return super().visit(node)

    def resolve(self, name):
        """``name`` with its first part replaced by what it was imported as (``np.x`` -> ``numpy.x``)."""
        if name is None:
            return None
        head, _, rest = name.partition(".")
        full = self.modules.get(head, head)
        return f"{full}.{rest}" if rest else full

    def exercise_of(self, full):
        """The exercise ``full`` (a resolved name) is course_lib's own implementation of, if any."""
        if full and full.startswith("course_lib.") and full.rsplit(".", 1)[-1] in self.exercises:
            return full.rsplit(".", 1)[-1]
        return None

    # a name or attribute that is read: calls, references and values alike
    def check_reference(self, node, name):
        full = self.resolve(name)
        if name in DYNAMIC_CODE or full in DYNAMIC_CODE or (full or "").split(".")[0] == "importlib":
            self.note(node, f"dynamic code: {name}")
        if name in EXITS or full in EXITS:
            self.note(node, f"ends the process: {full}")
        if full in PROCESS_CALLS or ((full or "").split(".")[0] in PROCESS_MODULES and "." in (full or "")):
            self.note(node, f"subprocesses: {full}")
        if self.exercise_of(full):
            self.note(node, f"uses course_lib's own {self.exercise_of(full)}")

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.check_reference(node, node.id)
            if node.id == "__builtins__":
                self.note(node, "introspection: __builtins__")

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Load):
            name = _dotted(node)
            if name is not None:
                self.check_reference(node, name)
            elif self.owner_of(node.value):
                self.check_reference(node, f"{self.owner_of(node.value)}.{node.attr}")
        if node.attr in INTROSPECTION:
            self.note(node, f"introspection: .{node.attr}")
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.check_module(node, alias.name)

    def visit_ImportFrom(self, node):
        if not node.module:
            return
        self.check_module(node, node.module)
        if node.module.split(".")[0] == "course_lib":
            used = sorted(a.name for a in node.names if a.name in self.exercises)
            if used:
                self.note(node, f"imports course_lib's own {', '.join(used)}")
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            if full in EXITS or full in PROCESS_CALLS or full in DYNAMIC_CODE:
                self.note(node, f"imports {full}")

    def check_module(self, node, name):
        top = name.split(".")[0]
        if top in NETWORK_MODULES:
            self.note(node, f"network: imports {name}")
        if top in PROCESS_MODULES:
            self.note(node, f"subprocesses: imports {name}")
        if top in WATCHED_IMPORTS:
            self.note(node, f"imports {name}")

    def visit_Call(self, node):
        name = _dotted(node.func)
        full = self.resolve(name)
        if name in ("setattr", "delattr") and node.args:
            self.check_module_change(node, name)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "join":
            self.check_built_name(node)
        if name in LOOKUP_CALLS or full in LOOKUP_CALLS:
            self.check_lookup(node, name, full)
        if full in ("globals", "locals", "vars", "builtins.globals", "builtins.vars"):
            self.note(node, f"namespace lookup: {name}()")
        if full in ("type", "builtins.type") and len(node.args) == 3:
            self.check_built_class(node)
        if name in FILE_CALLS or full in FILE_CALLS or (full or "").endswith(FILE_METHODS):
            self.check_file_access(node, name)
        self.generic_visit(node)

    def check_module_change(self, node, name):
        """``setattr(module, ...)``, ``delattr(module, ...)`` on an imported module or a watched one."""
        target = self.resolve(_dotted(node.args[0]))
        if target and (target.split(".")[0] in self.modules.values() or target in self.modules.values()
                       or target.split(".")[0] in ("builtins", "numpy", "course_lib", "sys", "os")):
            self.note(node, f"changes a module: {name}({target}, ...)")

    def check_file_access(self, node, name):
        """A file call whose path (built from constants, or holding one) leaves the notebook's folder."""
        for arg in node.args:
            text = _fold(arg)
            texts = [text] if text is not None else [c.value for c in ast.walk(arg)
                                                     if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            if any(_suspicious_path(t) for t in texts):
                shown = repr(text) if text is not None else "..."
                self.note(node, f"file access outside the notebook's folder: {name}({shown})")

    def check_lookup(self, node, name, full):
        """``getattr(m, name)``, ``__import__(name)``, ``attrgetter(name)``: literal names resolved, computed ones named."""
        by_module = full in ("__import__", "importlib.import_module", "builtins.__import__")
        by_getter = full in ("operator.attrgetter", "operator.methodcaller")
        position = 0 if by_module or by_getter else 1
        if len(node.args) <= position:
            return
        text = _fold(node.args[position])
        if text is None:
            self.note(node, f"dynamic lookup: {name}(...) with a name computed at run time")
            return
        if by_getter:
            self.note(node, f"dynamic lookup: {name}({text!r})")
            if text.rsplit(".", 1)[-1] in HIDDEN_NAMES:
                self.note(node, f"reaches {text!r} by name: {name}({text!r})")
            return
        if by_module:
            top = text.split(".")[0]
            if top in PROCESS_MODULES or top in NETWORK_MODULES or top in WATCHED_IMPORTS or top == "os":
                self.note(node, f"imports {text} by name: {name}({text!r})")
            return
        owner = self.resolve(_dotted(node.args[0])) or self.owner_of(node.args[0]) or "..."
        self.check_reference(node, f"{owner}.{text}")
        if text in RIGGED_DUNDERS and name in ("setattr", "builtins.setattr"):
            self.note(node, f"rigs a class: {name}(..., {text!r}, ...)")
        if text in INTROSPECTION:
            self.note(node, f"introspection: {name}(..., {text!r})")

    def owner_of(self, node):
        """The module a looked-up object is, when the lookup names it: ``sys.modules['os']``, ``__import__('os')``."""
        if isinstance(node, ast.Subscript) and self.resolve(_dotted(node.value)) == "sys.modules":
            return _fold(node.slice)
        if isinstance(node, ast.Call) and self.resolve(_dotted(node.func)) in ("__import__", "importlib.import_module",
                                                                               "builtins.__import__") and node.args:
            return _fold(node.args[0])
        return None

    def check_built_class(self, node):
        """``type(name, bases, namespace)``: a class built at run time, rigged when it defines comparisons."""
        namespace = node.args[2]
        if isinstance(namespace, ast.Dict) and all(k is not None for k in namespace.keys):
            keys = [_fold(k) for k in namespace.keys]
            rigged = sorted({k for k in keys if k in RIGGED_DUNDERS})
            if rigged:
                self.note(node, f"class built with type() redefines {', '.join(rigged)}")
            if any(k is None for k in keys):
                self.note(node, "class built with type() from names computed at run time")
        else:
            self.note(node, "class built with type() from a namespace computed at run time")

    def visit_Subscript(self, node):
        base = _dotted(node.value)
        if isinstance(node.value, ast.Call):
            base = (_dotted(node.value.func) or "") + "()"
        resolved = self.resolve(base.rstrip("()")) if base else None
        namespace = (base in ("globals()", "locals()", "vars()") or (base or "").startswith("vars(")
                     or resolved in NAMESPACES or (base or "").endswith(".__dict__") or base == "__builtins__")
        if namespace and isinstance(node.ctx, ast.Load):
            key = _fold(node.slice)
            if key is None:
                self.note(node, f"dynamic lookup: {base}[...] with a key computed at run time")
            else:
                owner = (_dotted(node.value.args[0]) if isinstance(node.value, ast.Call) and node.value.args
                         else (base or "").removesuffix(".__dict__"))
                self.check_reference(node, key if base in ("sys.modules", "globals()", "__builtins__")
                                     else f"{self.resolve(owner)}.{key}")
        self.generic_visit(node)

    def visit_Assign(self, node):
        self.check_targets(node, node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.check_targets(node, [node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self.check_targets(node, [node.target])
        self.generic_visit(node)

    def check_targets(self, node, targets):
        for target in targets:
            if isinstance(target, ast.Attribute):
                root = _dotted(target)
                if root and root.split(".")[0] in self.modules:
                    self.note(node, f"changes a module: {self.resolve(root)} = ...")
                elif root and root.split(".")[0] in ("builtins", "__builtins__"):
                    self.note(node, f"changes builtins: {root} = ...")
            elif isinstance(target, ast.Subscript) and _dotted(target.value) in ("__builtins__", "sys.modules",
                                                                                  "builtins.__dict__", "globals"):
                self.note(node, f"changes {_dotted(target.value)}")
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call) \
                    and _dotted(target.value.func) in ("globals", "vars", "locals"):
                self.note(node, f"changes {_dotted(target.value.func)}()")

    def visit_ClassDef(self, node):
        rigged = sorted({item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
                        & RIGGED_DUNDERS)
        rigged += sorted({t.id for item in node.body if isinstance(item, ast.Assign)
                          for t in item.targets if isinstance(t, ast.Name)} & RIGGED_DUNDERS)
        if rigged:
            self.note(node, f"class {node.name} redefines {', '.join(rigged)}")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and any(key in node.value for key in COURSE_FILES):
            self.note(node, f"names the course's files: {node.value[:60]!r}")

    def check_built_name(self, node):
        text = _fold(node)
        if text is not None and text.strip() in HIDDEN_NAMES | {f"os.{n}" for n in ("_exit", "system", "popen")}:
            self.note(node, f"builds the name {text.strip()!r} from pieces")

    def visit_BinOp(self, node):
        self.check_built_name(node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node):
        if len(node.values) > 1:
            self.check_built_name(node)
        self.generic_visit(node)


@functools.lru_cache(maxsize=4096)
def _parse(source):
    """``(tree, shell commands, imported names)`` of a cell's code, parsed once however many rules ask (a cell is
    at most :data:`MAX_SOURCE` characters; callers check). Raises what ``ast.parse`` raises."""
    code, shell = python_of(source)
    tree = ast.parse(code)
    return tree, tuple(shell), _imports(tree)


def audit_source(source, *, exercises=(), aliases=None, deadline=None):
    """Findings in one cell's code: a list of ``(line, what)``.

    Parameters
    ----------
    source : str
        The cell's code (IPython syntax allowed); at most :data:`MAX_SOURCE` characters are analysed.
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
    >>> audit_source("import os\\ngetattr(os, '_ex' + 'it')(0)")
    [(2, "builds the name '_exit' from pieces"), (2, 'ends the process: os._exit')]
    """
    if len(source) > MAX_SOURCE:
        return [(0, f"{len(source)} characters: too large to audit (the audit reads at most {MAX_SOURCE})")]
    try:
        tree, shell, imports = _parse(source)
    except SyntaxError as exc:
        return [(exc.lineno or 0, "the code does not parse (SyntaxError)")]
    except (RecursionError, MemoryError, ValueError) as exc:
        return [(0, f"the code could not be analysed ({type(exc).__name__}): nested too deeply or malformed")]
    modules = dict(aliases or {})
    modules.update(imports)
    visitor = _Visitor(exercises, modules, deadline or _Deadline())
    try:
        visitor.visit(tree)
    except RecursionError:
        return [(0, "the code could not be analysed (RecursionError): nested too deeply or malformed")]
    findings = visitor.findings + [(0, f"subprocesses: shell command {command!r}") for command in shell]
    return sorted(set(findings))


# -- names and files ---------------------------------------------------------------------------------
def shown_name(name):
    """A file or folder name as the report shows it: undecodable bytes as ``\\xNN``, control characters escaped.

    Examples
    --------
    >>> shown_name(os.fsdecode(b"notes\\xff.py"))
    'notes\\\\xff.py'
    >>> shown_name("two\\nlines")
    'two\\\\nlines'
    """
    if isinstance(name, bytes):
        raw = name
    else:
        raw = str(name).encode("utf-8", "surrogateescape")
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _trusted(path):
    """Sources of the instructor's test cells of the source notebook (skipped by content, not by metadata)."""
    try:
        nb = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return set()
    from .cells import is_test_cell, source_of
    return {source_of(c) for c in nb.get("cells", []) if isinstance(c, dict) and is_test_cell(c)}


def _read_notebook(path):
    """``(cells, problem)``: the code cells of a notebook as ``[(index, grade_id, source)]``, or why it was not read."""
    from .cells import grade_id, source_of

    if os.path.islink(path):
        return [], f"the notebook is a symbolic link to {shown_name(os.readlink(path))!r}"
    try:
        with open(path, "rb") as fh:
            raw = fh.read(64 * 1024**2 + 1)
        if len(raw) > 64 * 1024**2:
            return [], "the notebook is larger than 64 MiB: not read"
        nb = json.loads(raw)
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        return [], f"the notebook could not be read: {type(exc).__name__}: {str(exc)[:200]}"
    cells = nb.get("cells", []) if isinstance(nb, dict) else []
    return [(index, grade_id(cell), source_of(cell)) for index, cell in enumerate(cells if isinstance(cells, list)
                                                                                   else [])
            if isinstance(cell, dict) and cell.get("cell_type") == "code"], None


def audit_notebook(path, *, exercises=(), trusted=(), deadline=None):
    """``[(cell index, grade_id or None, line, what)]`` for one submitted notebook.

    Every code cell is read, whatever its metadata claims, except cells whose code is
    exactly one of ``trusted`` (the instructor's test cells, restored when graded).
    """
    return list(_notebook_findings(path, exercises=exercises, trusted=trusted, deadline=deadline or _Deadline()))


def _notebook_findings(path, *, exercises, trusted, deadline):
    """:func:`audit_notebook`, one finding at a time (what was found stays found when the time limit runs out)."""
    cells, problem = _read_notebook(path)
    if problem:
        yield None, None, 0, problem
        return
    cells = [(index, gid, source) for index, gid, source in cells if source not in trusted]
    aliases = {}
    for _, _, source in cells:
        aliases.update(imported_names(source))
    for index, gid, source in cells:
        deadline.check()
        for line, what in audit_source(source, exercises=exercises, aliases=aliases, deadline=deadline):
            yield index, gid, line, what


def audit_file(path, *, exercises=(), deadline=None):
    """``[(line, what)]`` for one submitted ``.py`` file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SOURCE + 1)
    except OSError as exc:
        return [(0, f"could not be read: {exc.strerror}")]
    if len(raw) > MAX_SOURCE:
        return [(0, f"larger than {MAX_SOURCE} bytes: too large to audit")]
    return audit_source(raw.decode("utf-8", errors="replace"), exercises=exercises, deadline=deadline)


def _exercise_names(course, assignment):
    from .cells import is_solution_cell, source_of
    from .withhold import withheld_names

    names = set(withheld_names(course.source_dir / assignment))
    for nb_path in (course.source_dir / assignment).glob("*.ipynb"):
        nb = json.loads(nb_path.read_text())
        for cell in nb.get("cells", []):
            if is_solution_cell(cell) and cell.get("cell_type") == "code":
                try:
                    tree = ast.parse(source_of(cell))
                except SyntaxError:
                    continue
                names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return names


def _finding(notebook, what, cell=None, gid=None, line=0):
    return {"notebook": notebook, "cell": cell, "grade_id": gid, "line": line, "what": what}


def audit_submission(folder, *, exercises=(), trusted=(), time_limit=TIME_PER_SUBMISSION):
    """Findings in every notebook and ``.py`` file below ``folder`` (links reported, never followed).

    The time limit holds inside a file too: a submission whose audit runs past it gets a finding
    saying so, and what was found until then.
    """
    found, folder = [], Path(folder)
    deadline = _Deadline(time.monotonic() + time_limit)
    if folder.is_symlink():
        return [_finding("", f"the submission's folder is a symbolic link to {shown_name(os.readlink(folder))!r}")]
    try:
        for here, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in (".ipynb_checkpoints", "__pycache__"))
            for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(here, d))]):
                deadline.check()
                path = os.path.join(here, name)
                rel = shown_name(os.path.relpath(path, folder))
                if os.path.islink(path):
                    found.append(_finding(rel, f"a symbolic link to {shown_name(os.readlink(path))!r} (never followed)"))
                elif name.endswith(".ipynb"):
                    for index, gid, line, what in _notebook_findings(path, exercises=exercises, trusted=trusted,
                                                                     deadline=deadline):
                        found.append(_finding(rel, what, index, gid, line))
                elif name.endswith(".py"):
                    for line, what in audit_file(path, exercises=exercises, deadline=deadline):
                        found.append(_finding(rel, what, line=line))
    except AuditTimeout:
        found.append(_finding("", f"the audit of this submission stopped after {time_limit:g} s (what it found until "
                                  "then is listed)"))
    return found


# -- copies: normalised syntax trees and their fingerprints --------------------------------------------
K_GRAM = 12          # tokens per fingerprinted k-gram (a token is a node type, a placeholder or an API name)
WINDOW = 4           # winnowing window: one fingerprint kept among every WINDOW consecutive k-grams
COPY_SIMILARITY = 0.8
"""A function whose fingerprints are at least this fraction of course_lib's implementation (or the other way
round, whichever is smaller), with at least :data:`MIN_COPIED` of them in common, is reported as a near-copy."""
MIN_COPIED = 15
"""Fewer fingerprints in common with course_lib are never reported: a one-line formula is the same whoever writes it."""
PAIR_SIMILARITY = 0.9
"""Two students' versions of a graded cell whose fingerprints overlap this much (Jaccard: shared over all of
either's) are the same code, up to names, layout and comments."""
MIN_PRINTS = 30
"""A version of a cell with fewer fingerprints (about four lines of code) is not compared: a short answer is
written the same way by many who never saw each other's (``return float(R) ** 2 / float(rho) ** 2``)."""
CHANCE = 0.1
"""A pair is reported when the number of pairs of the class expected to have as many near-copied cells that rare
by chance (the class's own frequencies, see :func:`similar_pairs`) is at most this: one class in ten would show
one such pair by chance. (Measured on classes of 40 and 300 who wrote independently, tests/honest_class.py: copied
pairs come out at 0.04 or below, independent ones at 6 or above.)"""

_MODULE_NAMES = {"np": "numpy", "numpy": "numpy", "math": "math", "cl": "course_lib", "course_lib": "course_lib"}


def _tokens(node, names, out):
    """The normalised token stream of a syntax tree: node types, names renamed in order of first use (a copy
    that renames variables gives the same stream), constants by type, docstrings and layout dropped."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return                                                  # a docstring or a comment-like string
    if isinstance(node, (ast.expr_context, ast.Load, ast.Store, ast.Del)):
        return
    kind = type(node).__name__
    out.append(kind)
    if isinstance(node, ast.Name):
        out.append(_MODULE_NAMES.get(node.id) or (node.id if node.id in _BUILTINS else names.setdefault(
            node.id, f"v{len(names)}")))
    elif isinstance(node, ast.arg):
        out.append(names.setdefault(node.arg, f"v{len(names)}"))
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.append(names.setdefault(node.name, f"v{len(names)}"))
    elif isinstance(node, ast.Attribute):
        out.append(node.attr)
    elif isinstance(node, ast.Constant):
        out.append(type(node.value).__name__)
    elif isinstance(node, ast.keyword):
        out.append(node.arg or "**")
    elif isinstance(node, (ast.operator, ast.cmpop, ast.unaryop, ast.boolop)):
        return
    for child in ast.iter_child_nodes(node):
        _tokens(child, names, out)


_BUILTINS = set(dir(builtins))


def fingerprints(tree):
    """MOSS's winnowed fingerprints of a syntax tree's normalised token stream: a set of integers.

    Examples
    --------
    >>> a = fingerprints(ast.parse("def f(x):\\n    total = 0\\n    for v in x:\\n        total += v * v\\n    return total"))
    >>> b = fingerprints(ast.parse("def g(values):\\n    s = 0\\n    for item in values:\\n        s += item * item\\n"
    ...                            "    return s"))
    >>> a == b and len(a) > 0
    True
    """
    tokens = []
    _tokens(tree, {}, tokens)
    if len(tokens) < K_GRAM:
        return set()
    hashes = [int.from_bytes(hashlib.blake2b("\x1f".join(tokens[i:i + K_GRAM]).encode(), digest_size=8).digest(),
                             "big") for i in range(len(tokens) - K_GRAM + 1)]
    kept = set()
    for i in range(max(1, len(hashes) - WINDOW + 1)):
        window = hashes[i:i + WINDOW]
        kept.add(min(window))
    return kept


def similarity(a, b):
    """``(shared, score)`` of two fingerprint sets: how many they share, over the size of the smaller one."""
    shared = len(a & b)
    return shared, (shared / min(len(a), len(b)) if a and b else 0.0)


@functools.lru_cache(maxsize=4096)
def _functions(source, *, nested=False):
    """``{name: fingerprints}`` of the functions a piece of code defines (methods as Class.name); with ``nested``,
    the functions defined inside functions too (a copied helper pasted into an answer's body)."""
    if len(source) > MAX_SOURCE:
        return {}
    try:
        tree = _parse(source)[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}.{item.name}"] = fingerprints(item)
    for node in (ast.walk(tree) if nested else tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.name, fingerprints(node))
    return out


def course_lib_implementations(names, *, source=None):
    """``{qualified name: fingerprints}`` of course_lib's functions that solve exercises: ``names`` (as listed in
    an assignment's withheld file) and the private helpers they reach."""
    from .withhold import course_lib_dir, withheld_closure

    folder = Path(source) if source is not None else course_lib_dir()
    wanted = withheld_closure(names, source=folder) if names else set()
    out = {}
    for path in sorted(folder.glob("*.py")):
        for name, prints in _functions(path.read_text()).items():
            if name in wanted or name.rsplit(".", 1)[-1] in wanted:
                out[f"course_lib.{path.stem}.{name}"] = prints
    return out


def copies_of_course_lib(source, implementations):
    """``[(function, course_lib function, score)]``: functions of ``source`` that are near-copies of course_lib's."""
    found = []
    for name, prints in _functions(source, nested=True).items():
        best = max(((similarity(prints, theirs), where) for where, theirs in implementations.items()),
                   default=((0, 0.0), None))
        (shared, score), where = best
        if shared >= MIN_COPIED and score >= COPY_SIMILARITY:
            found.append((name, where, score))
    return found


# -- hard-coded answers -------------------------------------------------------------------------------------
def _numbers(node):
    """The flat tuple of numbers of a literal (a number, or nested lists/tuples of them), else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return (float(node.value),)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _numbers(node.operand)
        return tuple(-v for v in inner) if inner and isinstance(node.op, ast.USub) else inner
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        parts = [_numbers(e) for e in node.elts]
        return tuple(v for p in parts for v in p) if all(p is not None for p in parts) else None
    if isinstance(node, ast.Call) and _dotted(node.func) in ("np.array", "numpy.array", "np.asarray") and node.args:
        return _numbers(node.args[0])
    return None


def _shape(node):
    """The shape of a literal nested list (``[[1, 2], [3, 4]]`` -> ``(2, 2)``), else None."""
    if isinstance(node, ast.Call) and _dotted(node.func) in ("np.array", "numpy.array", "np.asarray") and node.args:
        node = node.args[0]
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return (1,) if _numbers(node) else None
    inner = {_shape(e) if isinstance(e, (ast.List, ast.Tuple)) else () for e in node.elts}
    return (len(node.elts), *inner.pop()) if len(inner) == 1 and None not in inner else None


_PLAIN = {0.0, 1.0, -1.0, 2.0, 0.5}


def visible_constants(sources):
    """``(literals, numbers, shapes)`` of the visible tests: the literal lists of numbers they pass or expect,
    the distinctive numbers in them (not 0, +-1, 2, 1/2), and the shapes of their example arrays."""
    literals, numbers, shapes = set(), set(), set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            values = _numbers(node) if isinstance(node, (ast.List, ast.Tuple)) else None
            if values and len(values) >= 2:
                literals.add(values)
                numbers |= {v for v in values if v not in _PLAIN}
                shape = _shape(node)
                if shape and len(shape) >= 2:
                    shapes.add(shape)
    return literals, numbers, shapes


def _from_visible(node, constants):
    """Whether a literal holds a visible test's numbers: one of its literals, its example's shape, or two of its
    distinctive numbers."""
    literals, numbers, shapes = constants
    values = _numbers(node)
    if values is None or len(values) < 2:
        return False
    integers = tuple(int(v) for v in values)
    return values in literals or (integers == values and integers in shapes) or \
        len([v for v in values if v in numbers]) >= 2


def _compared_sides(node):
    """The operands of a comparison (``==``, ``in``, ``np.allclose``, ``np.array_equal`` ...), else none."""
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Call) and (_dotted(node.func) or "").rsplit(".", 1)[-1] in (
            "allclose", "array_equal", "isclose", "array_equiv"):
        return list(node.args)
    return []


def _compares_input_with_visible(node, params, constants):
    sides = _compared_sides(node)
    reads_parameter = any(isinstance(n, ast.Name) and n.id in params for x in sides for n in ast.walk(x))
    return reads_parameter and any(_from_visible(x, constants) for x in sides)


def _keyed_on_visible(node, params, constants):
    return isinstance(node, ast.Dict) and any(k is not None and _from_visible(k, constants) for k in node.keys)


def _returns_visible(node, params, constants):
    if not isinstance(node, ast.Return) or node.value is None:
        return False
    returned = [node.value, getattr(node.value, "body", None), getattr(node.value, "orelse", None)]
    return any(r is not None and (values := _numbers(r)) and len(values) >= 2 and values in constants[0]
               for r in returned)


_HARD_CODED = ((_compares_input_with_visible, "compares its input with a visible test's example"),
               (_keyed_on_visible, "holds a table keyed on a visible test's inputs"),
               (_returns_visible, "returns a visible test's literal"))
"""The signs of a hard-coded answer in a graded function: ``(rule(node, params, constants), what it says)``."""


def _hard_coded_in(func, constants):
    """``[(line, what)]`` of one function: comparisons of its input with, tables keyed on, returns of visible literals."""
    params = {a.arg for a in [*func.args.args, *func.args.kwonlyargs]}
    return [(node.lineno, f"hard-coded answer: {func.name} {what}")
            for node in ast.walk(func) for rule, what in _HARD_CODED if rule(node, params, constants)]


def hard_coded(source, functions, constants):
    """``[(line, what)]``: graded functions of ``source`` whose result depends on a visible test's example.

    A comparison (``==``, ``in``, ``np.allclose``, ``np.array_equal``) between something read from a parameter
    and a literal taken from the visible tests (its numbers, or its example's shape), a table keyed on those
    literals, or a return of a visible test's literal (its expected answer). ``constants`` is
    :func:`visible_constants` of the visible tests.
    """
    if len(source) > MAX_SOURCE:
        return []
    try:
        tree = _parse(source)[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for func in tree.body:
        if isinstance(func, ast.FunctionDef) and func.name in functions:
            found += _hard_coded_in(func, constants)
    return sorted(set(found))


# -- pairs of students -------------------------------------------------------------------------------------
@dataclass
class Pair:
    """Two students whose versions of some graded cells are near-copies.

    ``score`` is the mean similarity of those cells; ``chance`` the number of pairs of the class expected to have
    as many near-copies that rare if everyone wrote independently (the smaller, the stronger the evidence).
    """

    students: tuple
    score: float
    chance: float
    cells: list = field(default_factory=list)      # [(grade_id, fingerprints shared, similarity, classmates alike)]


def similar_pairs(cells, *, template=None):
    """Pairs of students whose graded cells are near-copies: ``[Pair]``, strongest evidence first.

    Parameters
    ----------
    cells : dict
        ``{student: {grade_id: source}}``, each student's graded cells.
    template : dict, optional
        ``{grade_id: source}`` of the released notebook: what every student was given is never evidence.

    Each cell is reduced to the winnowed fingerprints of its normalised syntax tree, less those of the template;
    versions with fewer than :data:`MIN_PRINTS` are left out. Two versions are near-copies when their
    fingerprints overlap by :data:`PAIR_SIMILARITY` (Jaccard). How much a shared version says depends on how
    rare such a coincidence is in the class: if ``n_c`` of the class's ``P`` pairs have near-copies of cell ``c``,
    a pair has them with a frequency of ``n_c / P``, and a pair with near-copies in ``k`` of the ``m`` compared
    cells is reported when the number of pairs expected to coincide in as many such cells by chance,

        E = C(m, k) x P x prod(n_c / P)  <=  CHANCE

    (an E-value, Bonferroni-style, over the class's own frequencies). One cell alone is never enough (``E >=
    m``); two students who write the same obvious answers, common in the class, are not reported; a submission
    copied cell by cell is, whatever the size of the class. Every pair of the class is compared, cell by cell,
    on sets of a few
    dozen numbers: a class of 300 takes seconds.
    """
    from math import comb, prod

    template = template or {}
    students = sorted(cells)
    n = len(students)
    near, compared = defaultdict(list), 0
    for gid in sorted({g for s in students for g in cells[s]}):
        given = _cell_prints(template.get(gid, ""))
        prints = [(s, p) for s in students if len(p := _cell_prints(cells[s].get(gid, "")) - given) >= MIN_PRINTS]
        if len(prints) < 2:
            continue
        compared += 1
        found, alike = [], Counter()
        for i, (a, pa) in enumerate(prints):
            for b, pb in prints[i + 1:]:
                shared = len(pa & pb)
                if shared < PAIR_SIMILARITY * max(len(pa), len(pb)):
                    continue                   # the Jaccard index is below the threshold whatever the union
                score = shared / len(pa | pb)
                if score >= PAIR_SIMILARITY:
                    found.append((a, b, shared, score))
                    alike[a] += 1
                    alike[b] += 1
        for a, b, shared, score in found:
            near[a, b].append((gid, shared, score, max(alike[a], alike[b]) + 1, len(found)))
    pairs_in_class = n * (n - 1) / 2
    out = []
    for (a, b), found in near.items():
        chance = comb(compared, len(found)) * pairs_in_class * prod(c / pairs_in_class for *_, c in found)
        found = [cell[:4] for cell in found]
        if chance <= CHANCE:
            out.append(Pair((a, b), sum(sc for _, _, sc, _ in found) / len(found), chance, found))
    return sorted(out, key=lambda p: (p.chance, p.students))


@functools.lru_cache(maxsize=4096)
def _cell_prints(source):
    if not source or len(source) > MAX_SOURCE:
        return frozenset()
    try:
        return frozenset(fingerprints(_parse(source)[0]))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()


def _side_by_side(left, right, width=60):
    a, b = left.splitlines() or [""], right.splitlines() or [""]
    rows = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else ""
        y = b[i] if i < len(b) else ""
        rows.append(f"    {shown_name(x)[:width]:<{width}} | {shown_name(y)[:width]}")
    return rows


# -- the class ---------------------------------------------------------------------------------------------
def _graded_cells(folder, assignment, solution_ids):
    """``{grade_id: source}`` of a submission's answer cells (by the release's grade_ids)."""
    path = Path(folder) / f"{assignment}.ipynb"
    cells, _ = _read_notebook(path) if path.is_file() else ([], None)
    return {gid: source for _, gid, source in cells if gid in solution_ids}


@dataclass
class _Facts:
    """What the audit of an assignment compares submissions with, read once from ``source/`` and ``release/``."""

    exercises: set
    trusted: set                 # the instructor's test cells, by their code
    answer_cells: set            # grade_ids of the code cells students write
    template: dict               # {grade_id: the released cell}
    constants: tuple             # the visible tests' literals (visible_constants)
    implementations: dict        # course_lib's functions that solve the exercises (course_lib_implementations)


def _facts(course, assignment):
    from .cells import grade_id, is_solution_cell, is_test_cell, source_of
    from .withhold import withheld_names

    trusted, visible, answer_cells = set(), [], set()
    for nb_path in (course.source_dir / assignment).glob("*.ipynb"):
        trusted |= _trusted(nb_path)
        for cell in json.loads(nb_path.read_text()).get("cells", []):
            if is_test_cell(cell):
                visible.append(source_of(cell).split("### BEGIN HIDDEN TESTS")[0])
            elif is_solution_cell(cell) and cell.get("cell_type") == "code":
                answer_cells.add(grade_id(cell))
    released = course.release_dir / assignment / f"{assignment}.ipynb"
    template = ({gid: source for _, gid, source in _read_notebook(released)[0] if gid in answer_cells}
                if released.is_file() else {})
    return _Facts(_exercise_names(course, assignment), trusted, answer_cells, template, visible_constants(visible),
                  course_lib_implementations(withheld_names(course.source_dir / assignment)))


def _audit_student(folder, assignment, facts, time_limit):
    """``(findings, answers)`` of one submission: what :func:`audit_submission` finds, copies of course_lib and
    hard-coded answers in its answer cells, and those cells (``{grade_id: source}``) for the class's comparison."""
    found = audit_submission(folder, exercises=facts.exercises, trusted=facts.trusted, time_limit=time_limit)
    answers = _graded_cells(folder, assignment, facts.answer_cells)
    for gid, source in answers.items():
        for name, where, score in copies_of_course_lib(source, facts.implementations):
            found.append(_finding(f"{assignment}.ipynb", f"near-copy of course_lib: {name} is {score:.0%} {where}",
                                  gid=gid))
        for line, what in hard_coded(source, facts.exercises, facts.constants):
            found.append(_finding(f"{assignment}.ipynb", what, gid=gid, line=line))
    return found, answers


def _report_lines(assignment, report, pairs, answers):
    lines = [f"Audit of {assignment}: code that looks like tampering or copying (grades are not changed)", ""]
    for student, found in report.items():
        if found:
            lines.append(f"{shown_name(student)}: {len(found)} finding(s)")
            for f in found:
                where = f"cell {f['cell']}" + (f" ({f['grade_id']})" if f["grade_id"] else "") \
                    if f["cell"] is not None else (f"({f['grade_id']})" if f["grade_id"] else "")
                lines.append(f"  {f['notebook']} {where}, line {f['line']}: {f['what']}".replace(" , line", ", line"))
    clean = [s for s, f in report.items() if not f]
    lines += ["", f"{len(report) - len(clean)} of {len(report)} submission(s) with findings; "
                  f"nothing found in {len(clean)}.", ""]
    lines.append(f"Pairs of students with near-copied graded cells: {len(pairs)} (two versions of a cell are near-copies "
                 f"when {PAIR_SIMILARITY:.0%} of their fingerprints coincide; a pair is listed when fewer than "
                 f"{CHANCE:g} pairs of the class would have as many near-copies as rare by chance)")
    for pair in pairs:
        a, b = pair.students
        lines.append(f"{shown_name(a)} and {shown_name(b)}: {len(pair.cells)} cell(s), similarity {pair.score:.0%}, "
                     f"expected by chance in {pair.chance:.1e} pairs of the class")
        for gid, count, score, alike in pair.cells:
            lines.append(f"  {gid}: {score:.0%} ({count} fingerprints shared; {alike} student(s) of the class wrote "
                         "it so)")
            lines.append(f"    {shown_name(a)[:60]:<60} | {shown_name(b)[:60]}")
            lines += _side_by_side(answers[a].get(gid, ""), answers[b].get(gid, ""))
    return lines


def audit(root, assignment, *, echo=print, time_limit=TIME_PER_SUBMISSION):
    """Audit every submission of ``assignment``; return ``{student: findings}`` (an :class:`AuditReport`).

    Every notebook and ``.py`` file of every submission is read; a submission that cannot be
    read, or code that cannot be analysed, is a finding, and the rest of the class is still
    audited. Then the class is compared: near-copies of course_lib's implementations and
    hard-coded answers are findings of their student, and pairs of students with near-copied
    graded cells are listed with their score and the cells side by side. The report
    ``autograded/audit-<assignment>.txt`` is rewritten on every run (first marked unfinished,
    so a report on disk is never an earlier run's).
    """
    course = Course(root)
    course.check_assignment(assignment)
    students = course.submissions(assignment)
    if not students:
        raise CourseError(f"no submissions of {assignment!r} in {course.submitted_dir}")
    course.autograded_dir.mkdir(parents=True, exist_ok=True)
    out = course.autograded_dir / f"audit-{assignment}.txt"
    out.write_text(f"Audit of {assignment}: not finished (the audit was stopped before the end)\n")
    facts = _facts(course, assignment)
    report, answers = {}, {}
    for student in students:
        try:
            report[student], answers[student] = _audit_student(course.submitted_dir / student / assignment,
                                                               assignment, facts, time_limit)
        except Exception as exc:  # one submission never stops the audit of the class
            report[student], answers[student] = [_finding("", f"could not be audited: {type(exc).__name__}: "
                                                              f"{str(exc)[:200]}")], {}
    pairs = similar_pairs(answers, template=facts.template)
    lines = _report_lines(assignment, report, pairs, answers)
    out.write_text("\n".join(lines) + "\n", errors="backslashreplace")
    for line in lines:
        echo(line)
    echo(f"\nwrote {out}")
    return AuditReport(report, pairs=pairs)


class AuditReport(dict):
    """``{student: findings}``, with :attr:`pairs`, the near-copied pairs of the class (:func:`similar_pairs`)."""

    def __init__(self, findings, *, pairs=()):
        super().__init__(findings)
        self.pairs = list(pairs)
