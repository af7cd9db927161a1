"""Cell execution for grading: nbgrader's Execute preprocessor, made fair.

:class:`GradingExecute` is a drop-in subclass of ``nbgrader.preprocessors.Execute``
(it is what ``make autograde`` and ``make check`` run). On top of nbgrader it

* turns text that a cell writes to **stderr** into ordinary output, so a correct answer
  that prints a warning keeps its points (nbgrader gives 0 to any grade cell with
  stderr output);
* stops a cell that runs longer than ``timeout`` seconds. nbgrader only interrupts the
  kernel; when the cell swallows ``KeyboardInterrupt`` the notebook is abandoned. Here
  the kernel is then killed and restarted, the cells above that define things (all but
  test cells) are run again silently, the stuck cell is marked with an error (0 points)
  and grading goes on with the next cell;
* reports a kernel that dies (``os._exit``, a crash) as :class:`KernelDied`, naming the
  cell, so the pipeline can list the submission as ungraded instead of scoring it 0.
"""
import asyncio
import time

from jupyter_core.utils import ensure_async
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Integer

__all__ = ["GradingExecute", "KernelDied", "describe_cell"]


class KernelDied(RuntimeError):
    """The kernel died while a cell of the submission was running."""


def describe_cell(cell, index):
    """A short human name for a cell: its index and nbgrader grade_id, if any.

    Examples
    --------
    >>> describe_cell({"metadata": {"nbgrader": {"grade_id": "pla-solution"}}}, 7)
    "cell 7 ('pla-solution')"
    """
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"cell {index} ({grade_id!r})" if grade_id else f"cell {index}"


def _is_test_cell(cell):
    return utils.is_grade(cell) and not utils.is_solution(cell)


def _is_setup_cell(cell):
    """A read-only cell the instructor wrote (imports, data): not the student's code."""
    nbg = cell.get("metadata", {}).get("nbgrader", {})
    return bool(nbg.get("locked")) and not nbg.get("grade") and not nbg.get("solution")


class GradingExecute(Execute):
    """nbgrader's Execute with stderr tolerance, hard per-cell timeouts and kernel-death reports."""

    timeout = Integer(
        10,
        help="Seconds a cell may run before it is stopped (it then earns 0 points).",
    ).tag(config=True)

    setup_timeout = Integer(
        120,
        help="Seconds allowed for the instructor's read-only cells (imports, data loading).",
    ).tag(config=True)

    iopub_timeout = Integer(
        2,
        help="Seconds to wait for a cell's last outputs after its reply (and after an interrupt).",
    ).tag(config=True)

    replay_timeout = Integer(
        60,
        help="Seconds allowed to re-run the cells above a stuck cell in a fresh kernel.",
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.error_on_timeout = {
            "ename": "CellTimeoutError",
            "evalue": f"this cell did not finish within {self.timeout} s and was stopped",
            "traceback": [f"CellTimeoutError: this cell did not finish within {self.timeout} s and was "
                          "stopped; it earns no points. Does every loop end?"],
        }
        self._output_task = None
        self._stuck = set()

    # -- timeouts -----------------------------------------------------------------
    def _get_timeout(self, cell):
        if cell is not None and _is_setup_cell(cell):
            return max(self.timeout, self.setup_timeout)
        return self.timeout

    async def _async_poll_output_msg(self, parent_msg_id, cell, cell_index):
        # remember the task, so that a restart can cancel it (it reads the kernel's iopub)
        self._output_task = asyncio.current_task()
        return await super()._async_poll_output_msg(parent_msg_id, cell, cell_index)

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        try:
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except CellTimeoutError:
            # The interrupt did not stop the cell (it caught KeyboardInterrupt, or a C loop
            # ignores signals): kill the kernel, restore the definitions above, go on.
            self.log.warning("%s ignored the interrupt: restarting the kernel", describe_cell(cell, cell_index))
            await self._restart_and_replay(cell, cell_index)
            return cell
        except DeadKernelError:
            raise KernelDied(f"the kernel died while running {describe_cell(cell, cell_index)}") from None

    execute_cell = run_sync(async_execute_cell)

    async def _restart_and_replay(self, cell, cell_index):
        self._stuck.add(cell_index)
        if self._output_task is not None:
            self._output_task.cancel()
        if not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            cell.setdefault("outputs", []).append(NotebookNode(
                output_type="error", ename=self.error_on_timeout["ename"],
                evalue=self.error_on_timeout["evalue"] + " (the kernel had to be restarted)",
                traceback=self.error_on_timeout["traceback"]))
        await ensure_async(self.km.restart_kernel(now=True))
        await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        deadline = time.monotonic() + self.replay_timeout
        for index, earlier in enumerate(self.nb.cells[:cell_index]):
            if earlier.cell_type != "code" or index in self._stuck or _is_test_cell(earlier):
                continue
            if not earlier.source.strip():
                continue
            msg_id = self.kc.execute(earlier.source, store_history=False, allow_stdin=False)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise KernelDied(
                        f"after {describe_cell(cell, cell_index)} was stopped, the cells above it could not be "
                        f"run again in a fresh kernel within {self.replay_timeout} s")
                try:
                    reply = await ensure_async(self.kc.shell_channel.get_msg(timeout=remaining))
                except Exception:
                    if not await ensure_async(self.kc.is_alive()):
                        raise KernelDied(f"the kernel died while re-running {describe_cell(earlier, index)}") from None
                    continue
                if reply.get("parent_header", {}).get("msg_id") == msg_id:
                    break

    # -- stderr -------------------------------------------------------------------
    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        for output in kwargs["cell"].get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                output["name"] = "stdout"
