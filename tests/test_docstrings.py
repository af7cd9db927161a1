"""course_lib's public docstrings hold to numpydoc's rules (numpydoc.validate), as scikit-learn's do.

Public: every function and class a module of course_lib lists in ``__all__`` (the modules whose
names start with "_" are internal). Checked, with numpydoc's codes:

* GL08  there is a docstring;
* SS01, SS03, SS04  a one-line summary, ending with a period, without leading whitespace;
* PR01, PR02, PR03  every parameter documented, none documented that does not exist, in the
  signature's order (a shared entry such as ``degree, gamma, coef0 : ...`` counts for each);
* PR06, PR10  types written as numpydoc writes them (``int``, not ``integer``; ``x : int``);
* EX01  an Examples section, for every public function (the doctests run them:
  ``pytest --doctest-modules course_lib``).

Deliberately not checked:

* Records (dataclasses and named tuples such as ``PLAResult``) document each field by an
  attribute docstring under it, which Sphinx shows and numpydoc cannot read; so PR01/PR03 are
  replaced for them by a check of their own here (every field has its docstring, or is in the
  class's Parameters or Attributes section), and EX01 by the examples of the functions that
  return them.
* Other classes (widgets, errors) need no Examples section: a widget is shown by its
  lecture, an error by the functions that raise it.
* SS02 (capital first letter): a summary may begin with the formula it defines
  (``rho = min_n ...``, ``m_H(N) ...``); SS05/SS06 (imperative mood, one line): the course's
  summaries say what a function gives ("The Gram matrix of ..."), as the lectures speak;
  PR07/PR08/RT03 (a description under every parameter and return value): a name and a type
  such as ``assignment : str`` or ``ax : matplotlib Axes or None`` say enough; SA01/ES01
  (See Also, extended summary): optional in numpydoc's own standard.
"""
import ast
import dataclasses
import importlib
import inspect
import pkgutil
import textwrap

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

from numpydoc.docscrape import NumpyDocString  # noqa: E402 - after the skip, as the line above

import course_lib  # noqa: E402 - after the skip: without numpydoc there is nothing to check

CHECKED = {"GL08", "SS01", "SS03", "SS04", "PR01", "PR02", "PR03", "PR06", "PR10", "EX01"}


def _public():
    found = {}
    for info in pkgutil.iter_modules(course_lib.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"course_lib.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                found[f"{module.__name__}.{obj.__qualname__}"] = obj
    return found


PUBLIC = _public()


def _is_record(obj):
    return inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or hasattr(obj, "_fields"))


def _expected(obj):
    """The numpydoc codes that apply to ``obj`` (see the module's docstring)."""
    codes = set(CHECKED)
    if inspect.isclass(obj):
        codes.discard("EX01")
    if _is_record(obj):
        codes -= {"PR01", "PR03"}
    return codes


def test_the_public_api_is_found():
    # a guard against checking nothing: the names the course's notebooks use most are here
    names = {q.rsplit(".", 1)[1] for q in PUBLIC}
    assert {"pla", "pocket", "fit_svm", "kernel_matrix", "vc_bound", "PLAResult", "plot_data"} <= names
    assert len(PUBLIC) > 150


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_docstring_follows_numpydoc(qualname):
    obj = PUBLIC[qualname]
    result = numpydoc_validate.validate(qualname)
    wanted = _expected(obj)
    errors = [f"{code}: {message}" for code, message in result["errors"] if code in wanted]
    assert not errors, f"{qualname} ({result['file']}:{result['file_line']}):\n  " + "\n  ".join(errors)


def _attribute_docstrings(cls):
    """The fields of ``cls``'s body followed by a string (Sphinx's attribute docstrings)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    return {stmt.target.id for stmt, following in zip(body, body[1:], strict=False)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            and isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)}


@pytest.mark.parametrize("qualname", sorted(q for q, obj in PUBLIC.items() if _is_record(obj)))
def test_every_field_of_a_record_is_documented(qualname):
    cls = PUBLIC[qualname]
    fields = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(cls._fields)
    doc = NumpyDocString(inspect.getdoc(cls) or "")
    in_sections = {name.strip() for section in ("Parameters", "Attributes") for entry in doc[section]
                   for name in entry.name.split(",")}
    missing = [f for f in fields if f not in _attribute_docstrings(cls) and f not in in_sections]
    assert not missing, f"{qualname}: fields without a docstring: {', '.join(missing)}"
