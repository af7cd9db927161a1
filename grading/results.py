"""What grading one submission gives back: typed records of every cell's outcome.

:func:`grading.engine.execute_submission` returns a :class:`SubmissionReport`; each code cell
that ran (or was refused) has a :class:`CellResult`, and each failure a :class:`CellError`,
whose :class:`Outcome` says how the cell ended. These are the only names of the outcomes: a
new way for a cell to fail is one more :class:`Outcome` member and the place that raises it.

Examples
--------
>>> error = CellError("CellTimeoutError", "this cell did not finish", outcome=Outcome.TIMEOUT)
>>> error.outcome.stopped, CellResult(index=3, grade_id="pla", outcome=error.outcome).outcome.value
(True, 'timeout')
>>> report = SubmissionReport(cells=[CellResult(0, None, Outcome.OK)])
>>> report.to_dict()["cells"]
[{'index': 0, 'grade_id': None, 'outcome': 'ok'}]
>>> SubmissionReport.from_dict(report.to_dict()) == report
True
"""
import enum
from dataclasses import dataclass, field

from nbformat import NotebookNode

from . import wire

__all__ = ["Outcome", "CellError", "CellResult", "SubmissionReport", "ENAME_CHARS", "EVALUE_CHARS"]

ENAME_CHARS = 200
"""Characters of an error's name kept in a notebook."""

EVALUE_CHARS = 4_000
"""Characters of an error's message kept in a notebook."""


class Outcome(enum.Enum):
    """How a cell ended."""

    OK = "ok"                # ran to its end (a test cell: every test passed)
    ERROR = "error"          # raised (a test cell: a test failed)
    TIMEOUT = "timeout"      # stopped at its time limit
    DIED = "died"            # the student's process ended (os._exit, memory, a crash)
    PROTOCOL = "protocol"    # the student's process broke the channel (a forged or malformed message)
    SCRATCH = "scratch"      # too many files in the scratch space
    BUDGET = "budget"        # the submission's budget was spent before or while it ran

    @property
    def stopped(self):
        """Whether the student's process was stopped (and started again) for it."""
        return self not in (Outcome.OK, Outcome.ERROR)


@dataclass(frozen=True)
class CellError:
    """One cell's failure: its name, message, traceback (text) and how the cell ended."""

    ename: str
    evalue: str
    traceback: str = ""
    outcome: Outcome = Outcome.ERROR

    @classmethod
    def from_reply(cls, data):
        """A student's error as the worker sent it (a dict that may hold anything), every field capped text."""
        if not isinstance(data, dict):
            return cls("ProtocolError", "the cell's process sent a malformed reply", outcome=Outcome.PROTOCOL)
        return cls(wire.cap(str(data.get("ename", "Error")), ENAME_CHARS),
                   wire.cap(str(data.get("evalue", "")), EVALUE_CHARS),
                   wire.cap(str(data.get("traceback") or ""), wire.MAX_TEXT))

    def capped(self, limit):
        """The same error with its message and traceback cut to ``limit`` characters each."""
        return CellError(self.ename, wire.cap(self.evalue, limit), wire.cap(self.traceback, limit), self.outcome)

    def output(self):
        """The error as a notebook output (nbgrader scores a test cell holding one 0)."""
        ename = wire.cap(self.ename, ENAME_CHARS)
        evalue = wire.cap(self.evalue, EVALUE_CHARS)
        tb = wire.cap(self.traceback or f"{ename}: {evalue}", wire.MAX_TEXT)
        return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=tb.rstrip("\n").split("\n"))


@dataclass(frozen=True)
class CellResult:
    """One code cell of the notebook: its position, its grade_id (None for the student's own) and outcome."""

    index: int
    grade_id: str | None
    outcome: Outcome

    def to_dict(self):
        return {"index": self.index, "grade_id": self.grade_id, "outcome": self.outcome.value}

    @classmethod
    def from_dict(cls, data):
        """The result :meth:`to_dict` made."""
        return cls(data["index"], data["grade_id"], Outcome(data["outcome"]))


@dataclass
class SubmissionReport:
    """What :func:`grading.engine.execute_submission` reports about one submission.

    ``status`` is ``"graded"``, or ``"ungraded"`` when the submission's process could not be
    started at all (``reason`` says why); ``cells`` one :class:`CellResult` per code cell run;
    ``notes`` the files left out; ``elapsed`` wall-clock seconds.
    """

    status: str = "graded"
    reason: str = ""
    cells: list = field(default_factory=list)
    restarts: int = 0
    elapsed: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def graded(self):
        return self.status == "graded"

    def outcomes(self):
        """``[outcome value]`` of the cells, in order (e.g. ``["ok", "timeout", "ok"]``)."""
        return [c.outcome.value for c in self.cells]

    def by_grade_id(self):
        """``{grade_id: CellResult}`` of the cells that have one (the first of each)."""
        out = {}
        for c in self.cells:
            if c.grade_id is not None:
                out.setdefault(c.grade_id, c)
        return out

    def to_dict(self):
        """Plain data (JSON-able)."""
        return {"status": self.status, "reason": self.reason, "cells": [c.to_dict() for c in self.cells],
                "restarts": self.restarts, "elapsed": self.elapsed, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, data):
        """The report :meth:`to_dict` made (what a grading job sends back)."""
        return cls(status=data["status"], reason=data["reason"], cells=[CellResult.from_dict(c) for c in data["cells"]],
                   restarts=data["restarts"], elapsed=data["elapsed"], notes=list(data["notes"]))
