"""Sphinx settings of the course's website (``make site``; scripts/build_site.py runs Sphinx with them).

The pages come from the repository itself: docs/ (landing page, guides, instructor kit),
notebooks/ (the lectures, executed at build time) and release/ (the assignments' student
versions, shown as they are handed out, never executed). scripts/build_site.py lays them out
side by side under build/site/src/ (links, nothing copied) and builds into build/site/html/.
"""
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

import course_site  # noqa: E402

BUILD = Path(os.environ.get("COURSE_SITE_BUILD", ROOT / "build" / "site"))
COURSE = course_site.load_course()

project = "Machine Learning Foundations"
author = "the course's authors"
copyright = "the course's authors"  # the name Sphinx reads (it shadows a builtin)
extensions = ["myst_nb", "course_site"]
root_doc = "index"
exclude_patterns = ["**/.ipynb_checkpoints", "**/course_lib_withheld.txt", "README.md"]
suppress_warnings = []
# Every warning fails the build (scripts/build_site.py passes -W): a broken cross-reference,
# a notebook that is not in the table of contents, a lecture missing from docs/course.yml.

# --- MyST and MyST-NB ------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True   # $$...$$ on its own line inside a paragraph, as JupyterLab reads it
# Lectures run at build time; their outputs are cached by jupyter-cache, keyed on the notebook's
# code (jupyter-cache) and on course_lib, the lock, the widget printer and the data folder (the
# folder's name is the key: course_site.execution_key). A lecture that raises stops the build.
nb_execution_mode = "cache"
nb_execution_cache_path = str(BUILD / "cache" / course_site.execution_key())
nb_execution_excludepatterns = ["assignments/*/*.ipynb"]   # handed out unsolved: they would fail by design
nb_execution_timeout = int(os.environ.get("COURSE_SITE_CELL_TIMEOUT", 600))  # a cell, on a busy machine
nb_execution_raise_on_error = False   # reported as a warning with its traceback: -W fails the build,
nb_execution_show_tb = True           # and every failing lecture is named in one build
nb_execution_in_temp = False
nb_merge_streams = True
# Widgets are shown as pictures (docs/_ext/static_widgets.py): no widget manager, no script
# from elsewhere. A live widget view left in an output would be dropped, and its text shown.
nb_ipywidgets_js = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None),
                              ("html", "application/vnd.jupyter.widget-state+json", None)]
# The hub's launch link of every lecture page: course.yml's launch_url, or COURSE_LAUNCH_URL.
course_launch_url = os.environ.get("COURSE_LAUNCH_URL", COURSE.get("launch_url") or "")
course_ipython_dir = str(BUILD / "ipython")

# --- HTML ------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = "Machine Learning Foundations"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_copy_source = True         # _sources/lectures/x.ipynb: the notebook as committed, to download
html_sourcelink_suffix = ""
html_show_sourcelink = False
html_last_updated_fmt = None
html_favicon = "_static/favicon.svg"
html_context = {"default_mode": "auto"}   # the reader's light or dark setting
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "show_navbar_depth": 1,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_source_button": False,
    "use_edit_page_button": False,
    "use_issues_button": False,
    "navigation_with_keys": False,
}
# MathJax 3 from the site itself (course_site copies what the pages use from the
# django-static-mathjax package, a plain copy of MathJax's release, into _static/mathjax/):
# formulas are typeset without reaching any outside service.
mathjax_path = "mathjax/tex-chtml.js"
# MathJax reads the formulas MyST found (class "math"), and the raw HTML of the lectures' folded
# answers (course_site marks each <details> "tex2jax_process"), where $...$ is left as written.
myst_update_mathjax = False
mathjax3_config = {
    "tex": {"inlineMath": [["\\(", "\\)"], ["$", "$"]], "displayMath": [["\\[", "\\]"], ["$$", "$$"]],
            "processEscapes": True},
    "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area",
                "ignoreHtmlClass": "tex2jax_ignore|mathjax_ignore|document"},
}
