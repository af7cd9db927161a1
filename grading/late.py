"""The course's late-submission policy, as an nbgrader plugin.

nbgrader measures how late a submission is from the assignment's due date (set in the
Formgrader's *Manage Assignments* page, or ``nbgrader db assignment add <assignment>
--duedate=...``) and the submission's ``timestamp.txt`` (written by ``nbgrader collect``),
then asks the plugin of ``AssignLatePenalties`` for each notebook's penalty.
``nbgrader_config.py`` selects :class:`LatePenalty`; its options are documented there.
"""
import math

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

__all__ = ["LatePenalty", "penalty_for"]

DAY = 86400.0


def penalty_for(score, seconds_late, *, percent_per_day, grace_seconds=0.0):
    """Points taken off ``score`` for a submission ``seconds_late`` seconds after the due date.

    Every started day (24 h) after ``grace_seconds`` costs ``percent_per_day`` percent of the
    score earned, never more than the score itself.

    Examples
    --------
    >>> penalty_for(17, 122460, percent_per_day=10)   # 1.4 days late: two started days
    3.4
    >>> penalty_for(17, 0, percent_per_day=10)
    0.0
    >>> penalty_for(17, 30 * 86400, percent_per_day=10)
    17.0
    """
    if score is None or seconds_late is None or seconds_late <= grace_seconds:
        return 0.0
    days = math.ceil((seconds_late - grace_seconds) / DAY)
    return round(min(float(score), float(score) * percent_per_day * days / 100.0), 6)


class LatePenalty(LateSubmissionPlugin):
    """A percentage of the notebook's score per started day late (see :func:`penalty_for`)."""

    percent_per_day = Float(10.0, min=0.0, max=100.0,
                            help="percent of the earned score taken off per started day late").tag(config=True)
    grace_minutes = Float(0.0, min=0.0, help="minutes after the due date that cost nothing").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        penalty = penalty_for(score, total_seconds_late, percent_per_day=self.percent_per_day,
                              grace_seconds=60.0 * self.grace_minutes)
        self.log.info("%s: %.0f s late, penalty %g of %g", student_id, total_seconds_late, penalty, score or 0)
        return penalty
