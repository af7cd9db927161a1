/*
 * The course's Validate button in JupyterLab: the self-check of `make check`, shown in a dialog.
 *
 * A button in every notebook's toolbar saves the notebook and asks the course's server
 * extension (grading/validate_service.py, POST <base_url>/course/validate) to check it. The
 * server runs `python -m grading check --json` on it: the released visible tests, with the
 * grading engine, limits and withheld functions of autograding. The dialog says what that
 * checked, in the words `make check` prints:
 *
 *   - a failing notebook: each failing test's message first (what was expected, what the
 *     code returned), then the summary line; each test's code and traceback are one click
 *     away;
 *   - a passing one: "12 of 12 visible test cells passed; 12 more tests and 1 question are
 *     graded later" (never "all the tests");
 *   - a lecture: there is nothing to check.
 *
 * Everything in the reply comes from a student's notebook (messages, code, tracebacks) and is
 * put on the page as text (textContent), never as HTML.
 *
 * It takes the place of nbgrader's own Validate button: package.json lists nbgrader's plugin
 * under jupyterlab.disabledExtensions, so wherever this extension is installed that one is off.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

const ROUTE = 'course/validate';
const TITLE = 'Validation Results';

/** Ask the server to check the notebook at `path` (relative to the server's root); return its report. */
export async function requestCheck(path) {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, ROUTE);
  const init = { method: 'POST', body: JSON.stringify({ path }) };
  const response = await ServerConnection.makeRequest(url, init, settings);
  let reply = null;
  try {
    reply = await response.json();
  } catch (err) {
    reply = null;
  }
  if (!response.ok) {
    const why = reply && reply.message ? reply.message : `${response.status} ${response.statusText}`;
    if (response.status === 404) {
      throw new Error(
        `this server has no course Validate service (${why}): start JupyterLab with make lab, ` +
          'or enable the server extension grading.validate_service'
      );
    }
    throw new Error(why);
  }
  return reply;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  return node;
}

function textList(items, className) {
  const list = element('ul', className);
  for (const item of items) {
    list.appendChild(element('li', null, item));
  }
  return list;
}

/** One failing test: its message first, then which test it is, then its code and traceback (folded). */
function failureItem(failure) {
  const item = element('li', 'course-validate-failure');
  item.appendChild(element('div', 'course-validate-message', failure.message));
  item.appendChild(element('div', 'course-validate-test', `test cell ${failure.grade_id}`));
  if (failure.test || failure.traceback) {
    const details = element('details', 'course-validate-details');
    details.appendChild(element('summary', null, 'The test and its traceback'));
    if (failure.test) {
      details.appendChild(element('pre', 'course-validate-code', failure.test));
    }
    if (failure.traceback) {
      details.appendChild(element('pre', 'course-validate-traceback', failure.traceback));
    }
    item.appendChild(details);
  }
  return item;
}

/**
 * The dialog's body for a report of the server (see grading/validate_service.py):
 * {status: "failed"|"passed"|"nothing"|"error", headline, failures: [{grade_id, message, test,
 * traceback}], problems: [text], notes: [text], error}.
 */
export function renderReport(report) {
  const body = element('div', 'course-validate');
  body.id = 'validation-message';
  const status = report && report.status ? String(report.status) : 'error';
  body.classList.add(`validation-${status}`);
  if (status === 'error') {
    body.appendChild(element('p', 'course-validate-lead', 'Validate could not check this notebook:'));
    body.appendChild(element('pre', 'course-validate-error', (report && report.error) || 'no answer'));
    return body;
  }
  const failures = Array.isArray(report.failures) ? report.failures : [];
  const problems = Array.isArray(report.problems) ? report.problems : [];
  if (failures.length) {
    const list = element('ol', 'course-validate-failures');
    failures.forEach(f => list.appendChild(failureItem(f)));
    body.appendChild(list);
  }
  if (problems.length) {
    body.appendChild(textList(problems, 'course-validate-problems'));
  }
  body.appendChild(element('p', 'course-validate-headline', report.headline));
  const notes = Array.isArray(report.notes) ? report.notes : [];
  if (notes.length) {
    body.appendChild(textList(notes, 'course-validate-notes'));
  }
  return body;
}

function showReport(report) {
  const failed = !report || report.status === 'failed' || report.status === 'error';
  const dialog = new Dialog({
    title: TITLE,
    body: new Widget({ node: renderReport(report) }),
    buttons: [Dialog.okButton()]
  });
  dialog.addClass(failed ? 'course-validate-dialog-failed' : 'course-validate-dialog');
  return dialog.launch();
}

function showProblem(title, text) {
  return showDialog({
    title,
    body: new Widget({ node: element('pre', 'course-validate-error', text) }),
    buttons: [Dialog.okButton()]
  });
}

/** The toolbar button: a plain button whose label says what is going on (saving, checking). */
class ValidateButton extends Widget {
  constructor(panel) {
    super({ node: document.createElement('div') });
    this.addClass('validate-button');
    this.addClass('course-validate-button');
    this._panel = panel;
    this._busy = false;
    const button = element('button', 'jp-ToolbarButtonComponent course-validate-control');
    button.type = 'button';
    button.title =
      'Run the released visible tests on this notebook, as the autograder will ' +
      '(hidden tests and answers graded by hand are graded later)';
    this._label = element('span', 'jp-ToolbarButtonComponent-label', 'Validate');
    button.appendChild(this._label);
    button.addEventListener('click', () => {
      void this.validate();
    });
    this._button = button;
    this.node.appendChild(button);
  }

  _state(label, busy) {
    this._label.textContent = label;
    this._busy = busy;
    this._button.disabled = busy;
  }

  async validate() {
    if (this._busy || !this._panel) {
      return;
    }
    const context = this._panel.context;
    try {
      this._state('Saving…', true);
      await context.save();
    } catch (err) {
      this._state('Validate', false);
      await showProblem('Validation failed', `The notebook could not be saved, so it was not checked: ${err}`);
      return;
    }
    this._state('Validating…', true);
    let report = null;
    try {
      report = await requestCheck(context.path);
    } catch (err) {
      report = { status: 'error', error: `${err && err.message ? err.message : err}` };
    } finally {
      this._state('Validate', false);
    }
    await showReport(report);
  }

  dispose() {
    this._panel = null;
    super.dispose();
  }
}

/** Adds the button to each notebook's toolbar, before the spacer (where nbgrader's was). */
class ValidateButtonExtension {
  createNew(panel) {
    const button = new ValidateButton(panel);
    let index = 0;
    for (const item of panel.toolbar.children()) {
      if (!item || item.node.classList.contains('jp-Toolbar-spacer')) {
        break;
      }
      index++;
    }
    panel.toolbar.insertItem(index, 'course-validate', button);
    return button;
  }
}

const plugin = {
  id: 'ml-foundations-validate:plugin',
  description: 'The Validate button: the released visible tests run as make check runs them, and what that checked',
  autoStart: true,
  activate: app => {
    app.docRegistry.addWidgetExtension('Notebook', new ValidateButtonExtension());
  }
};

export default plugin;
