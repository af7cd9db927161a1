"""The pinned environment: one lock made by uv (uv.lock), the files generated from it in
agreement (environment.yml, deploy/requirements.txt), and a virtual environment that is
exactly the locked set."""
import re
import subprocess
import sys
import sysconfig

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# What `make test` installs (scripts/ensure-venv.sh test): every extra except the deployment's.
TEST_SET = ["--all-extras", "--no-extra", "deploy"]


def uv(*args):
    out = subprocess.run(["sh", "scripts/uv.sh", *args], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, f"uv {' '.join(args)} failed:\n{out.stderr}"
    return out.stdout


def exported(*extras):
    """Requirement lines 'name==version[ ; marker]' that uv exports from uv.lock for these extras."""
    text = uv("export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header", "--no-annotate", *extras)
    return requirement_lines(text)


def requirement_lines(text):
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def lock_entries(lines):
    """{(name, version, marker)} from requirement lines 'name==version[ ; marker]'."""
    entries = set()
    for line in lines:
        req = Requirement(line)
        (spec,) = req.specifier  # exactly one pin per line
        assert spec.operator == "==", f"not pinned exactly: {line!r}"
        entries.add((canonicalize_name(req.name), spec.version, str(req.marker) if req.marker else ""))
    return entries


def locked_packages():
    """{name: {versions}} of every package in uv.lock."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    versions = {}
    for package in lock["package"]:
        versions.setdefault(canonicalize_name(package["name"]), set()).add(package.get("version"))
    return versions


def test_lock_is_current_with_pyproject():
    """uv.lock resolves what pyproject.toml asks for: nobody edited one without 'make lock'."""
    uv("lock", "--locked", "--quiet")


def test_every_dependency_is_pinned_in_the_lock():
    wanted = list(PROJECT["dependencies"])
    for extra in PROJECT["optional-dependencies"].values():
        wanted += extra
    locked = locked_packages()
    for dep in wanted:
        req = Requirement(dep)
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is in pyproject.toml but not in uv.lock: run 'make lock'"
        assert any(req.specifier.contains(v) for v in locked[name]), \
            f"uv.lock pins {name} at {sorted(locked[name])}, outside {req.specifier}: run 'make lock'"


def test_import_time_dead_weight_stays_out_of_the_lock():
    """rfc3987-syntax builds 39 parsers whenever jsonschema (hence nbformat) is imported."""
    assert not {"rfc3987-syntax", "isoduration", "arrow"} & set(locked_packages())


def test_students_set_leaves_out_the_test_and_deployment_tools():
    names = {name for name, _, _ in lock_entries(exported("--extra", "lab"))}
    assert {"jupyterlab", "nbgrader", "numpy", "ipywidgets", "matplotlib"} <= names
    tools = {"pytest", "hypothesis", "playwright", "nbval", "ruff", "jupyterhub", "psycopg"}
    assert not names & tools, f"make lab would install {sorted(names & tools)}"


def test_environment_yml_names_the_students_packages_at_the_locked_versions():
    text = (ROOT / "environment.yml").read_text()
    pip_lines = re.findall(r'^\s+- "([^"]+)"\s*$', text, flags=re.M)
    pinned = [ln for ln in pip_lines if not ln.startswith("-e")]
    assert "-e ." in pip_lines, "environment.yml must install course_lib itself"
    assert lock_entries(pinned) == lock_entries(exported("--extra", "lab")), \
        "environment.yml disagrees with uv.lock: run 'make lock'"


def test_deployment_requirements_are_the_locked_ones():
    lines = requirement_lines((ROOT / "deploy" / "requirements.txt").read_text())
    assert lock_entries(lines) == lock_entries(exported("--extra", "lab", "--extra", "deploy")), \
        "deploy/requirements.txt disagrees with uv.lock: run 'make lock'"


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="not running inside the course's virtual environment")
def test_installed_packages_are_exactly_the_locked_set():
    """The running environment is the locked one: nothing missing, nothing stale, nothing extra."""
    wanted = {}
    for name, version, marker in lock_entries(exported(*TEST_SET)):
        if not marker or Marker(marker).evaluate():
            wanted[name] = version
    # what is installed in the environment itself (setuptools puts its vendored copies on sys.path)
    site = sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions(path=site)}
    installed.pop("course-lib", None)
    problems = [f"{n}: not installed (lock: {v})" for n, v in wanted.items() if n not in installed]
    problems += [f"{n}: {installed[n]} installed, lock says {v}" for n, v in wanted.items()
                 if n in installed and installed[n] != v]
    problems += [f"{n}=={v}: installed but not locked" for n, v in installed.items() if n not in wanted]
    assert not problems, "\n".join(sorted(problems)) + "\n(run 'make setup-test')"


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="not running inside the course's virtual environment")
def test_setup_is_idempotent_when_nothing_changed():
    out = subprocess.run(["sh", "scripts/ensure-venv.sh", "test"], cwd=ROOT, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHON": _base_python(),
                              "VENV": sys.prefix, "HOME": str(Path.home())})
    assert out.returncode == 0, out.stderr
    assert "Setting up" not in out.stdout, "the environment was rebuilt although nothing changed"


def _base_python():
    """The interpreter the virtual environment was built from (same version string)."""
    cfg = (Path(sys.prefix) / "pyvenv.cfg").read_text()
    home = re.search(r"^home\s*=\s*(.+)$", cfg, flags=re.M).group(1).strip()
    for name in (f"python{sys.version_info[0]}.{sys.version_info[1]}", "python3"):
        if (Path(home) / name).exists():
            return str(Path(home) / name)
    pytest.skip(f"cannot find the base interpreter in {home}")
