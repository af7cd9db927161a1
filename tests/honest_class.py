"""A class that solved an assignment independently, with a few copiers: for the audit's tests and benchmark.

Every honest student answers each exercise with one of the versions the course knows (the
reference, the right versions written differently, the wrong versions of ``tests/wrong_answers/``)
and writes it in a style of their own: each place where students commonly differ is written one
way or another at random (``X @ w`` or ``np.dot(X, w)``, ``np.asarray(X, dtype=float)`` or
``np.array(X, float)``, ``a.sum(axis=1)`` or ``np.sum(a, axis=1)``, ``s > 0`` or ``0 < s``, a
result returned at once or named first, two independent first lines in either order, names of
their own). A copier takes a classmate's answers and disguises them the way copiers do: other
names, other layout, other comments.

>>> import numpy as np
>>> a = restyle("s = X @ w\\nreturn np.where(s > 0, 1.0, -1.0)", np.random.default_rng(1))
>>> compile(a, "<answer>", "exec", flags=0x400 | 0x2000) is not None  # a body: top-level return allowed
True
"""
import ast
import builtins
import importlib.util
import keyword
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: The corpus's wrong versions that hard-code a visible test's example: no honest student hands them in
#: (the audit reports them).
HARD_CODED = {"ps1_perceptron": ("hard_coded_example",), "ps3_digits": ("looked_up_then_nan",)}


class _Style(ast.NodeTransformer):
    """One student's way of writing the same computation (each choice drawn once per place, from ``rng``)."""

    def __init__(self, rng, p=0.5):
        self.rng, self.p = rng, p

    def coin(self):
        return bool(self.rng.random() < self.p)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 2 \
                and isinstance(node.left, ast.Name) and self.coin():
            return ast.BinOp(left=node.left, op=ast.Mult(), right=ast.Name(node.left.id, ast.Load()))   # x ** 2, x * x
        if isinstance(node.op, ast.MatMult) and self.coin():
            return ast.Call(func=ast.Attribute(value=ast.Name("np", ast.Load()), attr="dot", ctx=ast.Load()),
                            args=[node.left, node.right], keywords=[])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        name = ast.unparse(node.func)
        dtype_float = [k for k in node.keywords if k.arg == "dtype" and ast.unparse(k.value) == "float"]
        if name == "np.sqrt" and len(node.args) == 1 and self.coin():
            return ast.BinOp(left=node.args[0], op=ast.Pow(), right=ast.Constant(0.5))
        if name == "np.abs" and len(node.args) == 1 and self.coin():
            return ast.Call(func=ast.Name("abs", ast.Load()), args=node.args, keywords=[])
        if name == "np.mean" and len(node.args) == 1 and not node.keywords and self.coin():
            return ast.BinOp(left=ast.Call(func=ast.Attribute(value=ast.Name("np", ast.Load()), attr="sum",
                                                              ctx=ast.Load()), args=node.args, keywords=[]),
                             op=ast.Div(), right=ast.Call(func=ast.Name("len", ast.Load()), args=node.args, keywords=[]))
        if len(node.keywords) >= 2 and self.coin():
            node.keywords = node.keywords[::-1]
        if name == "np.asarray" and len(node.args) == 1 and dtype_float and self.coin():
            return ast.Call(func=ast.Attribute(value=ast.Name("np", ast.Load()), attr="array", ctx=ast.Load()),
                            args=[node.args[0], ast.Name("float", ast.Load())], keywords=[])
        if name in ("np.sum", "np.mean", "np.max", "np.min") and len(node.args) == 1 and not node.keywords \
                and self.coin():
            return ast.Call(func=ast.Attribute(value=node.args[0], attr=node.func.attr, ctx=ast.Load()), args=[],
                            keywords=[])
        axis = [k for k in node.keywords if k.arg == "axis"]
        if name.startswith("np.") and axis and len(node.args) == 1 and self.coin():
            node.args.append(axis[0].value)
            node.keywords = [k for k in node.keywords if k.arg != "axis"]
            return node
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("sum", "mean", "max", "min") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id != "np" and not node.args \
                and self.coin():
            return ast.Call(func=ast.Attribute(value=ast.Name("np", ast.Load()), attr=node.func.attr, ctx=ast.Load()),
                            args=[node.func.value], keywords=node.keywords)
        return node

    def visit_Constant(self, node):
        if type(node.value) is float and node.value.is_integer() and abs(node.value) < 100 and self.coin():
            return ast.Constant(int(node.value))             # 1.0 or 1, 0.0 or 0
        return node

    def visit_keyword(self, node):
        self.generic_visit(node)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        # for i in range(len(y))  <->  for i in range(y.shape[0])
        it = node.iter
        if (isinstance(it, ast.Call) and ast.unparse(it.func) == "range" and len(it.args) == 1
                and isinstance(it.args[0], ast.Call) and ast.unparse(it.args[0].func) == "len"
                and len(it.args[0].args) == 1 and self.coin()):
            seq = it.args[0].args[0]
            it.args[0] = ast.Subscript(value=ast.Attribute(value=ast.Call(
                func=ast.Attribute(value=ast.Name("np", ast.Load()), attr="asarray", ctx=ast.Load()), args=[seq],
                keywords=[]), attr="shape", ctx=ast.Load()), slice=ast.Constant(0), ctx=ast.Load())
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        flipped = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}
        if len(node.ops) == 1 and type(node.ops[0]) in flipped and self.coin():
            return ast.Compare(left=node.comparators[0], ops=[flipped[type(node.ops[0])]()], comparators=[node.left])
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if node.value is not None and not isinstance(node.value, (ast.Name, ast.Tuple)) and self.coin():
            name = str(self.rng.choice(["result", "out", "answer", "value"]))
            return [ast.Assign(targets=[ast.Name(name, ast.Store())], value=node.value, lineno=0),
                    ast.Return(value=ast.Name(name, ast.Load()))]
        return node

    def visit_Module(self, node):
        self.generic_visit(node)
        body = node.body
        checked = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in ("X", "y", "w", "K", "images")]
        if checked and self.rng.random() < 0.3:        # some students check their input first
            arg = checked[0].id
            line = str(self.rng.choice([f"assert len({arg}) > 0", f"if len({arg}) == 0:\n    raise ValueError('{arg} is empty')",
                                        f"assert {arg} is not None"]))
            body[:0] = ast.parse(line).body
        if len(body) >= 2 and all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                                  for s in body[:2]):
            first, second = body[0], body[1]
            uses = {n.id for n in ast.walk(second.value) if isinstance(n, ast.Name)}
            if first.targets[0].id not in uses and first.targets[0].id != second.targets[0].id and self.coin():
                body[0], body[1] = second, first
        return node


class _Rename(ast.NodeTransformer):
    """Other names for the local variables (never for parameters, which the tests call by name)."""

    def __init__(self, rng, keep):
        self.rng, self.keep, self.names = rng, set(keep), {}

    def new(self, name):
        if name in self.keep or name.startswith("__") or keyword.iskeyword(name):
            return name
        if name not in self.names:
            self.names[name] = f"{name}_{int(self.rng.integers(10, 99))}" if self.rng.random() < 0.5 else \
                f"my_{name.lower()}"
        return self.names[name]

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store) or node.id in self.names:
            node.id = self.new(node.id)
        return node


def restyle(body, rng, *, keep=(), rename=True):
    """``body`` (a solution cell's body) written in a style drawn from ``rng``; names in ``keep`` are kept."""
    tree = ast.parse(textwrap.dedent(body))
    tree = _Style(rng).visit(tree)
    if rename:
        keep = set(keep) | {"np", "cl", "math"} | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                                                    and isinstance(n.ctx, ast.Load) and n.id in dir(builtins)}
        tree = _Rename(rng, keep).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def disguise(body, rng, *, keep=()):
    """A copier's version of a classmate's ``body``: other names, other layout, a comment of their own."""
    tree = _Rename(rng, set(keep) | {"np", "cl", "math"} | set(dir(builtins))).visit(ast.parse(body))
    ast.fix_missing_locations(tree)
    return f"# {rng.choice(['my solution', 'works now', 'final version', 'checked it'])}\n" + ast.unparse(tree)


def _corpus(assignment):
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{assignment}",
                                                  ROOT / "tests" / "wrong_answers" / f"{assignment}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def versions(assignment):
    """``{grade_id: [bodies]}``: every version of every answer cell the course knows (reference first)."""
    from grading_helpers import reference_bodies

    out = {gid: [body] for gid, body in reference_bodies(assignment).items()}
    module = _corpus(assignment)
    for _, name, answers, _ in module.WRONG:
        if name in HARD_CODED.get(assignment, ()):
            continue
        for gid, body in answers.items():
            if isinstance(body, str) and "cl." not in body and "course_lib" not in body:   # the audit names those
                out[gid].append(body)
    for _, answers in getattr(module, "RIGHT", []):
        for gid, body in answers.items():
            if isinstance(body, str):
                out[gid].append(body)
    return out


def parameters(assignment):
    """Names of every graded function's parameters (a restyled answer keeps them)."""
    import nbformat
    from grading_helpers import ROOT as root
    nb = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.FunctionDef):
                    names |= {a.arg for a in [*node.args.args, *node.args.kwonlyargs]} | {node.name}
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id.startswith("answer"):
                    names.add(node.id)
    return names


def honest_class(assignment, n, *, seed=0, copies=()):
    """``{student: {grade_id: body}}``: ``n`` honest students, then for each ``(copier, source)`` of ``copies``
    (indices into the class) a copier named ``copy_of_<source>`` who disguised student ``source``'s answers."""
    rng = np.random.default_rng(seed)
    known = versions(assignment)
    keep = parameters(assignment)
    students = {}
    for i in range(n):
        answers = {}
        for gid, bodies in known.items():
            if bodies[0].strip().startswith("answer_"):
                answers[gid] = bodies[0]                       # multiple choice: a number, nothing to write
                continue
            pick = int(rng.integers(len(bodies)))
            answers[gid] = restyle(bodies[pick], rng, keep=keep)
        students[f"s{i:04d}"] = answers
    for source in copies:
        victim = f"s{source:04d}"
        students[f"copy_of_{victim}"] = {gid: disguise(body, rng, keep=keep) if not body.startswith("answer_") else body
                                         for gid, body in students[victim].items()}
    return students
