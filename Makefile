# Machine Learning Foundations — course commands.  `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
export PYTHON VENV

# A data folder given by a relative path (COURSE_DATA_DIR=../data make lab) means the folder
# seen from where make runs; kernels start elsewhere (my-lectures/, notebooks/), so it is
# passed on absolute.
ifneq ($(strip $(COURSE_DATA_DIR)),)
ifeq ($(filter /% ~%,$(COURSE_DATA_DIR)),)
export COURSE_DATA_DIR := $(abspath $(CURDIR)/$(COURSE_DATA_DIR))
endif
endif

# Jupyter refuses to start as root unless told; containers often run as root.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
LAB_PORT  ?= 8888

.DEFAULT_GOAL := help
.PHONY: help setup setup-test lab lab-instructor test test-fast test-under-load lint benchmark lock clean site labextension

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

setup:  ## create or refresh the virtual environment (.venv): what students need, exactly as uv.lock pins it
	@sh scripts/ensure-venv.sh lab

setup-test:  ## the same with every tool of the test suite and the benchmarks (make test does it)
	@sh scripts/ensure-venv.sh test

# Two views of the course. jupyter/<mode>/ holds the Jupyter settings of each (which nbgrader
# parts are on); it is put first on Jupyter's config search path for this command only, so
# the user's own Jupyter settings are never changed. Its lab-settings/ holds JupyterLab's
# defaults for the course (a saved notebook keeps its widgets' state, so it reopens with
# its pictures). jupyter/labextensions/ holds the course's own prebuilt JupyterLab extension
# (the Validate button; source in jupyter/validate/).
LAB_CMD = JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter/$(1)$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	$(BIN)/jupyter lab --notebook-dir="$(CURDIR)" --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) $(ROOT_FLAG) \
	--LabApp.app_settings_dir="$(CURDIR)/jupyter/$(1)/lab-settings" \
	--LabApp.extra_labextensions_path="$(CURDIR)/jupyter/labextensions" $(LAB_ARGS)

lab: setup  ## set up, then start JupyterLab on the course (students: your copies in my-lectures/, my-assignments/; Validate)
	@$(BIN)/python scripts/lecture_copies.py
	$(call LAB_CMD,student)

lab-instructor: setup  ## the same with nbgrader's instructor tools (Formgrader, Create Assignment)
	$(call LAB_CMD,instructor)

# What `make test NB=notebooks/x.ipynb` checks besides running it (tests/test_notebooks.py)
LECTURE_CHECKS := test_lecture_notebooks_are_thin_and_seeded test_every_lecture_has_a_widget_and_questions_with_their_answers \
	test_a_lecture_opens_with_its_roadmap test_sections_are_numbered_in_order_with_the_questions_and_then_the_summary_last \
	test_the_summary_is_last_and_ends_with_its_references test_a_text_that_announces_the_cell_below_stands_right_above_it

test: setup-test  ## set up, then lint and run every test (unit, grading, the website with every lecture); NB=notebooks/x.ipynb: one notebook's checks
ifdef NB
	$(BIN)/python -m pytest -n 0 "$(NB)" "tests/test_notebooks.py::test_committed_without_outputs[$(NB)]" \
	    $(if $(filter notebooks/%,$(NB)),$(foreach t,$(LECTURE_CHECKS),"tests/test_notebooks.py::$(t)[$(NB)]")) $(PYTEST_ARGS)
else
	@sh scripts/system-deps.sh
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)
endif

test-fast: setup-test  ## every test but the slow ones (autograde, browser, JupyterLab, deployment, notebook runs)
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

test-under-load: setup-test  ## make test while two CPU-bound processes keep both cores busy (long: for releases)
	@$(BIN)/python -m benchmarks.load $(MAKE) --no-print-directory test

lint: setup-test  ## ruff over the code and notebooks (rules in pyproject.toml); FIX=1 applies the safe fixes
	$(BIN)/ruff check $(if $(FIX),--fix) .

benchmark: setup-test  ## speed of course_lib against plain loops; widget response times in the browser
	$(BIN)/python -m benchmarks

site: setup-test  ## the course's website in build/site/html/ (lectures executed, with a cache); CLEAN=1 from scratch
	$(BIN)/python scripts/build_site.py $(if $(filter 1 yes true,$(CLEAN)),--clean)

labextension: setup  ## maintainers: rebuild the Validate button (jupyter/validate/) into jupyter/labextensions/ (npm)
	cd jupyter/validate && npm ci --no-audit --no-fund && COURSE_PYTHON="$(abspath $(BIN))/python" npm run build

lock:  ## re-resolve uv.lock (uv) and write environment.yml, deploy/requirements.txt after editing pyproject.toml
	@sh scripts/lock.sh

clean:  ## remove the virtual environment and caches (the website's build and execution cache too)
	rm -rf $(VENV) .pytest_cache .hypothesis build/site

# --- Instructors (nbgrader) ---------------------------------------------------------
# The course directory is this folder (nbgrader_config.py). See docs/guides/instructors.md.
ASSIGNMENT ?= ps1_perceptron
GRADING    := $(BIN)/python -m grading
.PHONY: release autograde feedback grades audit check regrade-check collect-lms extension reviewed \
	grading-scheduler grading-worker

release: setup  ## instructors: student versions of every assignment (or of ASSIGNMENT=...) into release/
	$(GRADING) release $(if $(filter command line environment override,$(origin ASSIGNMENT)),$(ASSIGNMENT))

# make autograde grades what is new or changed; STUDENT=<id> one student, FORCE=1 everyone;
# JOBS=<n> submissions at once (default: one per core); DASK_SCHEDULER=tcp://host:port on Dask.
STUDENT        ?=
FORCE          ?=
JOBS           ?=
DASK_SCHEDULER ?=
autograde: setup  ## instructors: grade new/changed submissions of ASSIGNMENT (STUDENT=, FORCE=1, JOBS=, DASK_SCHEDULER=, PROGRESS=bar|lines)
	@sh scripts/system-deps.sh sandbox
	$(GRADING) autograde $(ASSIGNMENT) $(if $(STUDENT),--student "$(STUDENT)") $(if $(filter 1 yes true,$(FORCE)),--force) \
		$(if $(JOBS),--jobs "$(JOBS)") $(if $(DASK_SCHEDULER),--dask-scheduler "$(DASK_SCHEDULER)") \
		$(if $(PROGRESS),--progress "$(PROGRESS)")

feedback: setup  ## instructors: HTML feedback (no hidden tests shown) of what was graded since (STUDENT=, FORCE=1)
	$(GRADING) feedback $(ASSIGNMENT) $(if $(STUDENT),--student "$(STUDENT)") $(if $(filter 1 yes true,$(FORCE)),--force)

FORMAT ?= csv
PROVISIONAL ?=
ROSTER ?=
grades: setup  ## instructors: grades-ASSIGNMENT.csv, summary, pictures, grades.csv (FORMAT=canvas|moodle: LMS file, ROSTER=, PROVISIONAL=1)
	$(GRADING) grades $(ASSIGNMENT) --format $(FORMAT) $(if $(filter 1 yes true,$(PROVISIONAL)),--provisional) \
		$(if $(ROSTER),--roster "$(ROSTER)")

FROM  ?=
TIMES ?=
collect-lms: setup  ## instructors: FROM=submissions.zip (Canvas) or Moodle's download into submitted/ (ROSTER=, TIMES=)
	@test -n "$(FROM)" || { echo "usage: make collect-lms FROM=path/to/download ASSIGNMENT=... [ROSTER=roster.csv] [TIMES=...]" >&2; exit 2; }
	$(GRADING) collect-lms $(ASSIGNMENT) "$(FROM)" $(if $(ROSTER),--roster "$(ROSTER)") $(if $(TIMES),--times "$(TIMES)")

extension: setup  ## instructors: STUDENT=... DUE="2026-11-24 23:59 UTC" [REASON=...]: a later due date (DUE= shows, DUE=none removes)
	@test -n "$(STUDENT)" || { echo 'usage: make extension ASSIGNMENT=... STUDENT=... DUE="2026-11-24 23:59 UTC" [REASON=...]' >&2; exit 2; }
	$(GRADING) extension $(ASSIGNMENT) "$(STUDENT)" $(if $(filter none,$(DUE)),--due "",$(if $(DUE),--due "$(DUE)")) \
		$(if $(REASON),--reason "$(REASON)")

reviewed: setup  ## instructors: STUDENT=... [CELL=grade_id]: answers changed since a grade were looked at again
	@test -n "$(STUDENT)" || { echo "usage: make reviewed ASSIGNMENT=... STUDENT=... [CELL=grade_id]" >&2; exit 2; }
	$(GRADING) reviewed $(ASSIGNMENT) "$(STUDENT)" $(if $(CELL),"$(CELL)")

# Grading on several machines (see "Grading a large class" in README.md).
SCHEDULER      ?=
SCHEDULER_PORT ?= 8786
grading-scheduler: setup-test  ## instructors: a Dask scheduler for grading machines (port SCHEDULER_PORT=8786)
	$(BIN)/dask scheduler --host 0.0.0.0 --port $(SCHEDULER_PORT) --no-dashboard --preload grading.workers

grading-worker:  ## grading machines: install what grading needs, check the course matches SCHEDULER=tcp://host:port, start workers
	@test -n "$(SCHEDULER)" || { echo "usage: make grading-worker SCHEDULER=tcp://host:8786" >&2; exit 2; }
	@sh scripts/grading-worker.sh "$(SCHEDULER)"

regrade-check: setup  ## instructors: STUDENT=... [CELL=grade_id]: run a student's tests again, same seeds as graded
	@test -n "$(STUDENT)" || { echo "usage: make regrade-check ASSIGNMENT=... STUDENT=... [CELL=grade_id]" >&2; exit 2; }
	@sh scripts/system-deps.sh sandbox
	$(GRADING) regrade-check $(ASSIGNMENT) "$(STUDENT)" $(if $(CELL),"$(CELL)")

audit: setup  ## instructors: list code in the submissions that looks like tampering or copying (grades unchanged)
	$(GRADING) audit $(ASSIGNMENT)

# --- Students ---------------------------------------------------------------------
check: setup  ## students: run the visible tests of NB=path/to/notebook.ipynb (fails if one fails)
	@test -n "$(NB)" || { echo "usage: make check NB=my-assignments/$(ASSIGNMENT)/$(ASSIGNMENT).ipynb" >&2; exit 2; }
	$(GRADING) check "$(NB)"
