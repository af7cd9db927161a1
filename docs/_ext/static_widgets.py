"""The course's widgets on a static page: their figure in the starting state, and a line on what moving them shows.

The website's build (``make site``) starts every lecture's kernel with this printer registered
for ``course_lib.widgets._FigureWidget`` (IPython's display formatter, through a startup file in
the build's own IPython folder): a widget displayed by a cell is published as its PNG figure,
its status line and one sentence naming its controls and what they change, instead of a live
view that needs a kernel. JupyterLab, where the kernel is there, is not affected.

A widget class may say itself what moving it shows with a ``moving_shows`` attribute; otherwise
the first paragraph of its docstring is used.
"""
import re

WIDGET_BASE = ("course_lib.widgets", "_FigureWidget")


def _controls(widget):
    """Descriptions of the sliders, buttons and menus inside an ipywidgets box, in order."""
    found = []
    children = getattr(widget, "children", None)
    if children is not None:
        for child in children:
            found.extend(_controls(child))
        return found
    description = (getattr(widget, "description", "") or "").strip()
    if description and widget.__class__.__name__ not in {"HTML", "Label", "Image", "Output"}:
        found.append(description)
    return found


def caption(figure_widget):
    """One sentence: what the widget's controls are and what moving them shows."""
    cls = type(figure_widget)
    shows = getattr(cls, "moving_shows", None)
    if not shows:
        shows = re.sub(r"\s+", " ", (cls.__doc__ or "").strip().split("\n\n")[0])
    controls = _controls(figure_widget.widget)
    named = ", ".join(f"*{re.sub(r'[*_`$]', '', c)}*" for c in controls)
    first = "In the notebook this picture is interactive" + (f" ({named}): " if named else ": ")
    shows = shows.replace("*", "").replace("_", "\\_")
    return f"{first}{shows[0].lower() + shows[1:] if shows else ''} Shown here as it starts."


def show(figure_widget):
    """Publish a widget as its figure, its status line and the caption (the printer registered here)."""
    from IPython.display import HTML, Image, Markdown, display

    width = getattr(getattr(figure_widget.image, "layout", None), "width", None)
    pixels = int(width[:-2]) if isinstance(width, str) and width.endswith("px") else None
    display(Image(data=figure_widget.image.value, format="png", width=pixels))
    status = (figure_widget.status.value or "").strip()
    if status:
        display(HTML(f'<div class="course-widget-status">{status}</div>'))
    display(Markdown(caption(figure_widget)))


def register(shell):
    """Register :func:`show` for every course widget in this IPython shell (nothing is imported now)."""
    shell.display_formatter.ipython_display_formatter.for_type_by_name(*WIDGET_BASE, show)


__all__ = ["caption", "register", "show"]
