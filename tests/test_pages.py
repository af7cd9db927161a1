"""Formulas drawn as MathML when a page is made (offline, no script), and nothing unsafe let through that way.

The pages themselves are checked in Chromium in tests/test_classrun.py; here the conversion is
checked against its promises: every formula of the course's own notebooks becomes MathML, code
is left alone, and what a student writes between dollars cannot smuggle markup into a page.
"""
import re
import xml.etree.ElementTree as ET

import nbformat
import pytest
from grading_helpers import ROOT

from grading.pages import render_math, tex_to_mathml
from grading.safe_html import clean_html, content_security_policy

SOURCES = sorted((ROOT / "source").glob("*/*.ipynb"))


def _formulas(text):
    return re.findall(r"\$\$(.+?)\$\$|(?<![\\$])\$([^$\n]+?)\$", text, re.S)


@pytest.mark.parametrize("path", SOURCES, ids=[p.parent.name for p in SOURCES])
def test_every_formula_of_the_assignments_becomes_mathml(path):
    nb = nbformat.read(path, as_version=4)
    found = failed = 0
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for display, inline in _formulas(cell.source):
            found += 1
            if tex_to_mathml(display or inline, display=bool(display)) is None:
                failed += 1
    assert found > 0
    assert failed <= found // 50, f"{failed} of {found} formulas of {path.name} stay TeX"


def test_math_in_text_becomes_mathml_and_code_stays_as_written():
    out = render_math("<p>If $E_{\\text{in}}(w) &lt; \\epsilon$ then</p><pre>cost = $5 and $x$</pre>"
                      "<p>$$\\sum_{n=1}^N x_n$$ and \\(a^2\\)</p>")
    root = ET.fromstring(f"<div>{out}</div>")
    maths = [el for el in root.iter() if el.tag.endswith("math")]
    assert len(maths) == 3 and maths[1].get("display") == "block"
    assert "<pre>cost = $5 and $x$</pre>" in out
    assert "$" not in re.sub(r"<pre>.*?</pre>", "", out)


def test_a_formula_cannot_carry_markup_into_the_page():
    for tex in ["\\href{javascript:alert(1)}{x}", "\\style{color:red}{x}", "\\text{<script>alert(1)</script>}",
                "x</math><script>alert(1)</script>", "\\class{a}{b}", "\\unknownmacro{x}"]:
        out = render_math(clean_html(f"<p>${tex}$</p>"))
        root = ET.fromstring(f"<div>{out}</div>")            # well formed: nothing left open
        tags = {el.tag.split("}")[-1] for el in root.iter()}
        attributes = {a.split("}")[-1] for el in root.iter() for a in el.attrib}
        assert not tags & {"script", "a", "style", "iframe"}, out
        assert not attributes & {"href", "style", "class", "src"} - ({"class"} if "code" in tags else set()), out
        assert not any(a.startswith("on") for a in attributes), out


def test_unreadable_tex_is_shown_as_tex():
    out = render_math("<p>$\\frac{1}{$</p>")
    assert "<math" not in out or "<code" in out


def test_pages_load_no_mathjax_and_their_policy_names_no_other_site():
    policy = content_security_policy("abc", "")
    assert "http" not in policy and "'self'" in policy
