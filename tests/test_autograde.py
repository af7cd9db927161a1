"""``make autograde`` refuses a configuration that would grade without the course's engine or record.

Checked before anything is graded (no sandbox, no gradebook needed): nbgrader's own Execute
would run student code unsandboxed, and without the course's record a submission that
cannot be graded would be exported as 0.
"""
import pytest
from grading_helpers import ROOT
from traitlets.config import Config

from grading.autograde import _require_course_engine
from grading.classrun import HOOKS, RecordingExporter, before_autograde
from grading.course import Course, CourseError
from grading.preprocessors import CourseExecute


def _config(**autograde):
    return Config({"Autograde": autograde})


def test_the_course_s_own_configuration_is_accepted_with_names_or_classes():
    _require_course_engine(Course(ROOT).nbgrader_config())
    _require_course_engine(_config(autograde_preprocessors=[CourseExecute], pre_convert_hook=before_autograde,
                                   exporter_class=RecordingExporter))


@pytest.mark.parametrize(("autograde", "named"), [
    ({"autograde_preprocessors": ["nbgrader.preprocessors.Execute"], **HOOKS}, "grading.preprocessors.CourseExecute"),
    ({"autograde_preprocessors": [], **HOOKS}, "unsandboxed"),
    ({"autograde_preprocessors": [CourseExecute], "exporter_class": HOOKS["exporter_class"]}, "pre_convert_hook"),
    ({"autograde_preprocessors": [CourseExecute], "pre_convert_hook": HOOKS["pre_convert_hook"],
      "exporter_class": "nbconvert.exporters.NotebookExporter"}, "exported as 0"),
])
def test_a_configuration_without_the_engine_or_the_record_is_refused(autograde, named):
    with pytest.raises(CourseError, match=named):
        _require_course_engine(_config(**autograde))
