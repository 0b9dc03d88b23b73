"""`pip install --no-build-isolation .` into a virtual environment (docs/install.md, "pip install
."): the package imports from the venv with no build or source folder on the path, computes what
the build tree computes, its binaries find each other there, `pip show` reports the project's
version, `pip install -e` is refused without side effects, `python3 -m build --wheel` works, and
the page's commands run in order, ending with an uninstall that leaves no file behind; the checkout
is left as it was. The wheels are made from the existing build (ASSAY_CMAKE_BUILD_DIR, so nothing
is compiled here); the from-scratch build the page times was run by hand."""
import os
import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import ROOT

BUILD = os.environ.get("ASSAY_BUILD_DIR") or os.path.join(ROOT, "build")
PAGE = os.path.join(ROOT, "docs", "install.md")
SCORES = "np.array([0, 0, 1, 1, 0, 1]), np.array([.1, .4, .35, .8, .7, .2])"


def clean_env(**extra):
    """No path into the build or source tree, no pip configuration from the environment; the
    wheel comes from the existing build."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "ASSAY_CLI") and not k.startswith("PIP_")}
    env.update(ASSAY_CMAKE_BUILD_DIR=BUILD, PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def run(*args, cwd, env=None):
    out = subprocess.run(list(map(str, args)), cwd=cwd, env=env or clean_env(),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{args} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out.stdout


def checkout_state():
    return subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout


def make_venv(folder):
    run(sys.executable, "-m", "venv", "--system-site-packages", folder, cwd=folder.parent)
    return folder


def site_packages(venv):
    return Path(run(venv / "bin" / "python", "-c",
                    "import sysconfig; print(sysconfig.get_path('platlib'))", cwd=venv).strip())


def pip_install(venv):
    return run(venv / "bin" / "pip", "install", "--no-build-isolation", "--no-index", ROOT,
               cwd=venv)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.fail(f"no configured build in {BUILD}: run `make build` first")
    before = checkout_state()
    env = make_venv(tmp_path_factory.mktemp("pip") / "env")
    pip_install(env)
    assert checkout_state() == before, "pip install wrote into the checkout"
    return env


def test_imports_from_the_venv_and_computes_what_the_build_computes(venv, tmp_path):
    code = ("import assay, numpy as np; from assay import metrics; import assay.learners; "
            "from assay.shift.segmentation import score_subject; "
            f"print(assay.__file__); print(repr(metrics.roc_auc_score({SCORES})))")
    here = run(venv / "bin" / "python", "-c", code, cwd=tmp_path).splitlines()
    assert Path(here[0]).parent == site_packages(venv) / "assay"
    tree = run(sys.executable, "-c", code, cwd=tmp_path,
               env=clean_env(PYTHONPATH=os.path.join(BUILD, "python"))).splitlines()
    assert tree[0].startswith(os.path.join(BUILD, "python"))
    assert here[1] == tree[1] == repr(5 / 9)  # 5 of the 9 (positive, negative) pairs in order


def test_pip_show_reports_the_project_version(venv, tmp_path):
    show = run(venv / "bin" / "pip", "show", "assay", cwd=tmp_path)
    cmake = re.search(r"^project\(assay VERSION ([\d.]+)",
                      Path(ROOT, "CMakeLists.txt").read_text(), re.M).group(1)
    assert re.search(rf"^Version: {re.escape(cmake)}$", show, re.M), show
    assert re.search(r"^Requires: numpy$", show, re.M), show
    version = run(venv / "bin" / "python", "-c", "import assay; print(assay.__version__)",
                  cwd=tmp_path).strip()
    assert version == cmake


def test_the_binaries_find_each_other_in_the_venv(venv, tmp_path):
    """The module and the libassay_* libraries it loads sit together, RUNPATH $ORIGIN: no path of
    the build or the source remains, and the loader takes every assay library from the venv."""
    package = site_packages(venv) / "assay"
    libraries = list(package.glob("libassay_*"))
    binaries = [*package.glob("_assay*.so"), *libraries]
    layers = sorted(re.match(r"libassay_(\w+)\.so\.\d+\.\d+$", b.name).group(1)
                    for b in libraries)
    # the nine of docs/install.md: the layers `_assay` links, not batch, mpi or the CLI
    assert layers == ["compare", "core", "count", "learners", "metrics", "overview", "report",
                      "shift", "soak"]
    for binary in binaries:
        dynamic = run("readelf", "-d", binary, cwd=tmp_path)
        assert re.search(r"R(UN)?PATH.*\[\$ORIGIN\]", dynamic), binary
        assert ROOT not in dynamic and BUILD not in dynamic, binary
    ldd = run("ldd", next(package.glob("_assay*.so")), cwd=tmp_path)
    loaded = re.findall(r"(libassay_\w+\.so\S*) => (\S+)", ldd)
    assert loaded and all(Path(path).parent == package for _, path in loaded), ldd
    assert "not found" not in ldd


def test_the_venv_comes_before_installed_copies_on_sys_path(venv, tmp_path):
    """docs/install.md: in the venv, its own copy wins over `make install`'s (/usr/local) and the
    .deb's (/usr/lib/python3.X/dist-packages)."""
    path = run(venv / "bin" / "python", "-c", "import sys; print('\\n'.join(sys.path))",
               cwd=tmp_path).splitlines()
    mine = path.index(str(site_packages(venv)))
    minor = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for system in (f"/usr/local/lib/{minor}/dist-packages", f"/usr/lib/{minor}/dist-packages"):
        assert system in path and mine < path.index(system), path


def test_extras_are_declared_not_installed(venv, tmp_path):
    code = ("from importlib.metadata import metadata; m = metadata('assay'); "
            "print(m.get_all('Provides-Extra')); print(m.get_all('Requires-Dist'))")
    extras, requires = run(venv / "bin" / "python", "-c", code, cwd=tmp_path).splitlines()
    assert extras == "['pandas', 'sklearn', 'plot']"
    assert requires == ("['numpy', 'pandas; extra == \"pandas\"', "
                        "'scikit-learn; extra == \"sklearn\"', 'matplotlib; extra == \"plot\"']")


def test_editable_install_is_refused_cleanly(venv, tmp_path):
    """Without a build_editable hook pip would fall back to `setup.py develop`, which
    guesses a layout and writes an .egg-info into the checkout."""
    site = site_packages(venv)
    before = checkout_state(), sorted(site.iterdir())
    out = subprocess.run([venv / "bin" / "pip", "install", "--no-build-isolation", "--no-index",
                          "-e", ROOT], cwd=tmp_path, env=clean_env(), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode != 0
    assert "assay has no editable install" in out.stdout + out.stderr
    assert (checkout_state(), sorted(site.iterdir())) == before  # no egg-link, no .pth


def test_python_build_makes_the_wheel(tmp_path):
    """docs/install.md: `python3 -m build --no-isolation --wheel --outdir DIR` (Debian's
    python3-build, which scripts/install-deps.sh does not install)."""
    # Asked in a subprocess from a temporary folder: here the build folder (ROOT/build) could
    # pass for a namespace package named `build`.
    if subprocess.run([sys.executable, "-c", "import build.__main__"], cwd=tmp_path,
                      capture_output=True).returncode != 0:
        pytest.skip("python3-build is not installed")
    before = checkout_state()
    run(sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", tmp_path / "dist",
        ROOT, cwd=tmp_path)
    wheels = [p.name for p in (tmp_path / "dist").iterdir()]
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert len(wheels) == 1 and re.fullmatch(rf"assay-[\d.]+-{tag}-{tag}-linux_\w+\.whl",
                                             wheels[0]), wheels
    assert checkout_state() == before


@pytest.fixture
def backend(monkeypatch):
    """python/build_backend.py, imported as pip imports it (backend-path)."""
    monkeypatch.syspath_prepend(os.path.join(ROOT, "python"))
    import build_backend
    return build_backend


def fake_build(folder, version):
    folder.mkdir()
    (folder / "CMakeCache.txt").write_text(f"CMAKE_PROJECT_VERSION:STATIC={version}\n")
    return folder


@pytest.mark.parametrize("case", ["not a build", "another version", "no module"])
def test_a_reused_build_that_does_not_fit_is_refused(backend, tmp_path, monkeypatch, case):
    folder = tmp_path / "build"
    expected = {"not a build": "is not a configured CMake build of assay",
                "another version": "is a build of assay 9.9.9, this source is",
                "no module": "has no _assay"}[case]
    if case == "not a build":
        folder.mkdir()
    else:
        fake_build(folder, "9.9.9" if case == "another version" else backend.project_version())
    monkeypatch.setenv("ASSAY_CMAKE_BUILD_DIR", str(folder))
    with pytest.raises(backend.BuildError, match=expected):
        backend.build_wheel(str(tmp_path))
    assert not list(tmp_path.glob("*.whl"))


def test_the_metadata_hook_matches_the_wheel(backend, venv, tmp_path):
    """pip reads the metadata before building (prepare_metadata_for_build_wheel); the
    installed copy is the wheel's: both must be the same text."""
    name = backend.prepare_metadata_for_build_wheel(str(tmp_path))
    assert name == f"assay-{backend.project_version()}.dist-info"
    installed = site_packages(venv) / name / "METADATA"
    assert (tmp_path / name / "METADATA").read_text() == installed.read_text()


def test_the_system_route_folder_is_make_installs(tmp_path):
    """docs/install.md: as root, pip without a venv writes into the folder `make install`
    (prefix /usr/local) uses, and this pip has the options the page names."""
    folder = sysconfig.get_path("platlib")
    minor = f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert folder == f"/usr/local/lib/{minor}/dist-packages"
    usage = run(sys.executable, "-m", "pip", "install", "--help", cwd=tmp_path)
    for option in ("--break-system-packages", "--no-build-isolation", "--no-index"):
        assert option in usage
    assert "--break-system-packages" in run(sys.executable, "-m", "pip", "uninstall", "--help",
                                            cwd=tmp_path)
    # ... and what it installs there wins over the .deb's copy
    path = run(sys.executable, "-c", "import sys; print('\\n'.join(sys.path))",
               cwd=tmp_path).splitlines()
    assert path.index(folder) < path.index(f"/usr/lib/{minor}/dist-packages")


# --- Every command of the page's "pip install ." section -----------------------------------------

def documented_commands():
    text = Path(PAGE).read_text(encoding="utf-8")
    section = re.search(r"^## `pip install \.`\n(.*?)(?=^## )", text, re.S | re.M).group(1)
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S):
        commands += [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]
    return commands


def as_run_here(command):
    """The command as the test runs it, in a temporary folder instead of the clone's: the source
    `.` is the checkout, $PWD/build the existing build; the venv `env` lands in the temporary
    folder."""
    words = ["$ROOT" if w == "." else w for w in shlex.split(command, comments=True)]
    return " ".join(shlex.quote(w) if w != "$ROOT" else '"$ROOT"' for w in words) \
        .replace("'ASSAY_CMAKE_BUILD_DIR=$PWD/build'", 'ASSAY_CMAKE_BUILD_DIR="$BUILD"')


def test_the_page_has_the_commands():
    commands = documented_commands()
    assert any(c.startswith("/usr/bin/python3 -m venv --system-site-packages env")
               for c in commands)
    assert any("pip install --no-build-isolation" in c for c in commands)
    assert any("pip uninstall -y assay" in c for c in commands)


def test_the_documented_commands_run_in_order(tmp_path):
    before = checkout_state()
    script = "set -euo pipefail\n" + "\n".join(as_run_here(c) for c in documented_commands())
    out = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600, env=clean_env(ROOT=ROOT, BUILD=BUILD))
    assert out.returncode == 0, f"{script}\n{out.stdout}\n{out.stderr}"
    assert re.search(r"^\d+\.\d+\.\d+$", out.stdout, re.M), out.stdout  # assay.__version__
    assert "Successfully uninstalled assay" in out.stdout
    assert checkout_state() == before
    # The page ends with the uninstall: no file of the package, its libraries, its metadata or
    # a command is left.
    venv = tmp_path / "env"
    left = [str(p) for p in [*site_packages(venv).rglob("*"), *(venv / "bin").iterdir()]
            if "assay" in p.name.lower()]
    assert left == []
