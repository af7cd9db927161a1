"""Hostile HTML a student can put into a submission, and how to tell whether any of it ran.

Every payload calls :func:`script` with its own tag: the script sets ``window.__pwned``,
logs ``PWNED <tag>`` to the console and tries to write ``pwned-<tag>.txt`` into the
Jupyter server's root folder through the contents API (as a logged-in instructor's
browser would allow). Used by tests/test_safe_html.py and tests/test_browser.py.
"""
import base64

import nbformat

PNG_1x1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def write_file(tag):
    """A JavaScript expression: the promise of writing ``pwned-<tag>.txt`` through the contents API."""
    return ("fetch('/api/contents/pwned-" + tag + ".txt',{method:'PUT',credentials:'include',"
            "headers:{'Content-Type':'application/json','X-XSRFToken':"
            "((document.cookie.match(/_xsrf=([^;]+)/)||[])[1]||'')},"
            "body:JSON.stringify({type:'file',format:'text',content:'" + tag + "'})})")


def script(tag):
    """JavaScript (without double quotes) that leaves every trace the tests look for."""
    return ("window.__pwned=(window.__pwned||[]).concat(['" + tag + "']);console.log('PWNED " + tag + "');"
            + write_file(tag))


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def html_vectors():
    """``{tag: html}``: one attempt per way HTML can run script or navigate."""
    s = script
    return {
        "img-onerror": f'<img src="x-missing" onerror="{s("img-onerror")}">',
        "script": f"<script>{s('script')}</script>",
        "js-link": f'<a class="click-me" href="javascript:{s("js-link")}">click me</a>',
        "svg-onload": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{s("svg-onload")}"><circle r="4"/></svg>',
        "svg-script": f"<svg><script>{s('svg-script')}</script></svg>",
        "svg-link": (f'<svg><a xlink:href="javascript:{s("svg-link")}"><text x="0" y="15">click me</text></a>'
                     "</svg>"),
        "style-attr": f'<div style="background-image:url(javascript:{s("style-attr")})">styled</div>',
        "style-tag": "<style>body{background:url(https://attacker.invalid/x.png)}</style>",
        "iframe-srcdoc": f'<iframe srcdoc="<img src=x onerror=&quot;{s("iframe-srcdoc")}&quot;>"></iframe>',
        "iframe-js": f'<iframe src="javascript:{s("iframe-js")}"></iframe>',
        "object": f'<object data="data:text/html;base64,{_b64("<script>" + s("object") + "</script>")}"></object>',
        "embed": f'<embed src="data:text/html;base64,{_b64("<script>" + s("embed") + "</script>")}">',
        "meta-refresh": f'<meta http-equiv="refresh" content="0;url=javascript:{s("meta-refresh")}">',
        "data-link": ('<a class="click-me" href="data:text/html;base64,'
                      f'{_b64("<script>" + s("data-link") + "</script>")}">click me</a>'),
        "form-action": (f'<form action="javascript:{s("form-action")}"><button class="click-me" type="submit">'
                        "click me</button></form>"),
        "details-ontoggle": f'<details open ontoggle="{s("details-ontoggle")}"><summary>more</summary>x</details>',
        "input-onfocus": f'<input autofocus onfocus="{s("input-onfocus")}">',
        "body-onload": f'<body onload="{s("body-onload")}">',
        "base-href": '<base href="https://attacker.invalid/">',
        "submitted-file-link": '<a class="click-me" href="helper.html">click me</a>',
        "math-mxss": f'<math><mtext><table><mglyph><style><img src=x onerror="{s("math-mxss")}">',
    }


def markdown_vectors():
    """``{tag: markdown}``: attempts through Markdown syntax rather than raw HTML."""
    s = script
    return {
        "md-js-link": f"[click me](javascript:{s('md-js-link').replace(' ', '%20')})",
        "md-data-link": f"[click me](data:text/html;base64,{_b64('<script>' + s('md-data-link') + '</script>')})",
        "md-img-onerror": f'![x](x-missing"onerror="{s("md-img-onerror")})',
    }


# What a student may legitimately write, and what must still be shown.
LEGIT_MARKDOWN = (
    "## Legitimate work\n\n"
    "The in-sample error $E_{\\text{in}}(w) = \\frac{1}{N}\\sum_n [\\![ y_n \\ne h(x_n) ]\\!]$.\n\n"
    "| update | mistakes |\n|---|---|\n| 1 | 7 |\n| 2 | 3 |\n\n"
    f'<img alt="one pixel" src="data:image/png;base64,{PNG_1x1}">\n\n'
    "<table><tr><th>n</th><td>42</td></tr></table>\n\n"
    "A [reference](https://work.caltech.edu/telecourse) and `code`.\n"
)


def hostile_cells():
    """Markdown and raw cells carrying every vector, and one of legitimate content."""
    cells = [nbformat.v4.new_markdown_cell(f"### vector {tag}\n\n{html}\n") for tag, html in html_vectors().items()]
    cells += [nbformat.v4.new_markdown_cell(f"### vector {tag}\n\n{md}\n") for tag, md in markdown_vectors().items()]
    raw = nbformat.v4.new_raw_cell(f"<img src=x-missing onerror=\"{script('raw-cell')}\">")
    raw.metadata["raw_mimetype"] = "text/html"
    cells.append(raw)
    cells.append(nbformat.v4.new_markdown_cell(LEGIT_MARKDOWN))
    return cells


def hostile_outputs_cell():
    """A code cell whose (submitted) outputs carry HTML, SVG, Markdown and JavaScript vectors."""
    s = script
    cell = nbformat.v4.new_code_cell("print('outputs')")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "x"})
        for html in html_vectors().values()
    ] + [
        nbformat.v4.new_output("display_data", data={
            "image/svg+xml": (f'<svg xmlns="http://www.w3.org/2000/svg" onload="{s("svg-output")}">'
                              f'<script>{s("svg-output-script")}</script><rect width="3" height="3"/></svg>'),
            "text/plain": "<SVG>"}),
        nbformat.v4.new_output("display_data", data={"text/markdown": f"<img src=x onerror=\"{s('md-output')}\">",
                                                     "text/plain": "md"}),
        nbformat.v4.new_output("display_data", data={"application/javascript": s("js-output"), "text/plain": "js"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>kept-table-cell</td></tr></table>",
                                                     "text/plain": "table"}),
        nbformat.v4.new_output("display_data", data={"image/png": PNG_1x1, "text/plain": "png"}),
    ]
    return cell


ALL_TAGS = (list(html_vectors()) + list(markdown_vectors())
            + ["raw-cell", "svg-output", "svg-output-script", "md-output", "js-output"])
