"""`make install` (cmake --install) into a temporary prefix, used from there only: the CLI, its
man page and bash completion, a C++ program built with find_package(assay) and one built with
pkg-config, and the Python package imported from the installed folder (docs/install.md)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

BUILD = os.environ.get("ASSAY_BUILD_DIR") or os.path.join(ROOT, "build")
EXAMPLE = os.path.join(ROOT, "examples", "install")


def cache_value(name):
    """A value from the build's CMakeCache.txt."""
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    pytest.fail(f"{name} is not in {BUILD}/CMakeCache.txt: reconfigure the build")


def clean_env(**extra):
    """The environment without anything that points into the build or source tree."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "ASSAY_CLI", "CMAKE_PREFIX_PATH",
                        "PKG_CONFIG_PATH")}
    env.update(extra)
    return env


def run(*args, **kwargs):
    kwargs.setdefault("env", clean_env())
    out = subprocess.run(list(map(str, args)), capture_output=True, text=True, timeout=600,
                         **kwargs)
    assert out.returncode == 0, f"{args} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out


def install(prefix):
    return run("cmake", "--install", BUILD, "--prefix", prefix)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not os.path.exists(os.path.join(BUILD, "cmake_install.cmake")):
        pytest.fail(f"no configured build in {BUILD}: run `make build` first")
    root = tmp_path_factory.mktemp("prefix")
    install(root)
    return root


def python_dir(prefix):
    return prefix / cache_value("ASSAY_PYTHON_INSTALL_DIR")


def test_layout(prefix):
    expected = ["bin/assay", "share/man/man1/assay.1.gz",
                "share/bash-completion/completions/assay", "include/assay/core/error.hpp",
                "include/assay/metrics/ranking.hpp", "lib/cmake/assay/assayConfig.cmake",
                "lib/cmake/assay/assayConfigVersion.cmake", "lib/cmake/assay/assayTargets.cmake",
                "lib/pkgconfig/assay.pc"]
    for path in expected:
        assert (prefix / path).is_file(), path
    libraries = sorted(p.name for p in (prefix / "lib").glob("libassay_*"))
    for layer in ("core", "metrics", "learners", "soak", "shift", "count", "report"):
        assert f"libassay_{layer}.so" in libraries
        assert any(re.fullmatch(rf"libassay_{layer}\.so\.\d+\.\d+", n) for n in libraries)
    package = python_dir(prefix) / "assay"
    assert (package / "__init__.py").is_file() and (package / "learners.py").is_file()
    assert (package / "shift" / "segmentation.py").is_file()  # subpackages keep their folders
    assert list(package.glob("_assay*.so"))
    # Nothing installed refers to the build or source tree (RPATHs are relative).
    for binary in [prefix / "bin" / "assay", *package.glob("_assay*.so"),
                   *(prefix / "lib").glob("libassay_*.so.*.*.*")]:
        dynamic = run("readelf", "-d", binary).stdout
        assert ROOT not in dynamic and BUILD not in dynamic, binary
        assert "$ORIGIN" in dynamic, binary


def test_cli_help_and_version(prefix):
    out = run(prefix / "bin" / "assay", "--help", cwd=prefix).stdout
    for sub in ("metrics", "soak", "shift", "count", "cv", "segment"):
        assert re.search(rf"^\s+{sub}\s", out, re.M), sub
    version = run(prefix / "bin" / "assay", "--version").stdout.strip()
    assert version == f"assay {cache_value('CMAKE_PROJECT_VERSION')}"


def test_man_page(prefix):
    page = run("man", "-l", prefix / "share/man/man1/assay.1.gz",
               env=clean_env(MANPAGER="cat", PAGER="cat", MANWIDTH="100", LC_ALL="C.UTF-8"))
    text = re.sub(r".\x08", "", page.stdout)  # no overstrike bold/underline
    for needle in ("NAME", "assay - how good is my model, really?", "SYNOPSIS", "SUBCOMMANDS",
                   "assay metrics", "--label", "assay model info", "EXIT STATUS", "--quiet"):
        assert needle in text, needle


def complete(prefix, *words):
    """COMPREPLY of the installed completion for the command line `words` (last = current)."""
    script = prefix / "share/bash-completion/completions/assay"
    array = " ".join(f"'{w}'" for w in words)
    out = run("bash", "--norc", "-c",
              f"source '{script}'; COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
              "_assay; printf '%s\\n' \"${COMPREPLY[@]}\"")
    return [line for line in out.stdout.splitlines() if line]


def test_bash_completion(prefix):
    assert complete(prefix, "assay", "me") == ["metrics"]
    assert "soak" in complete(prefix, "assay", "")
    assert complete(prefix, "assay", "metrics", "--lab") == ["--label"]
    assert "--learners" in complete(prefix, "assay", "soak", "data.csv", "--")
    assert complete(prefix, "assay", "model", "") == ["info"]
    assert "--help" in complete(prefix, "assay", "model", "info", "--")
    assert complete(prefix, "assay", "metrics", "pre") == []  # files: bash's default


def test_python_package_from_the_install_only(prefix, tmp_path):
    code = ("import assay, numpy as np, pickle; from assay import metrics; "
            "import assay.learners as L; "
            "from assay.shift.segmentation import score_subject; "
            "print(assay.__file__); "
            "print(metrics.roc_auc_score(np.array([0, 0, 1, 1]), np.array([.1, .4, .35, .8]))); "
            "X = np.arange(40.0).reshape(20, 2); y = np.arange(20) % 2; "
            "est = pickle.loads(pickle.dumps(L.Cart().fit(X, y))); print(est.predict(X[:2]))")
    out = run(sys.executable, "-c", code, cwd=tmp_path,
              env=clean_env(PYTHONPATH=str(python_dir(prefix)))).stdout.splitlines()
    assert out[0].startswith(str(python_dir(prefix))), out[0]
    assert out[1] == "0.75"


def test_python_dir_is_on_the_default_path():
    """`make install` (prefix /usr/local) puts the package where this python3 looks without
    PYTHONPATH."""
    folder = os.path.join(cache_value("CMAKE_INSTALL_PREFIX"),
                          cache_value("ASSAY_PYTHON_INSTALL_DIR"))
    path = run(sys.executable, "-c", "import sys; print('\\n'.join(sys.path))",
               cwd="/").stdout.splitlines()
    if cache_value("CMAKE_INSTALL_PREFIX") != "/usr/local":
        pytest.skip("the build is configured for another prefix")
    assert folder in path


def test_cmake_consumer(prefix, tmp_path):
    source = tmp_path / "src"
    shutil.copytree(EXAMPLE, source)
    run("cmake", "-S", source, "-B", tmp_path / "build", "-G", "Ninja",
        f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release")
    run("cmake", "--build", tmp_path / "build")
    assert run(tmp_path / "build" / "roc_auc_demo").stdout == "ROC AUC 0.75\n"
    # A component that does not exist is reported by find_package.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(bad CXX)\n"
        "find_package(assay CONFIG REQUIRED COMPONENTS nosuchlayer)\n")
    out = subprocess.run(["cmake", "-S", bad, "-B", bad / "build", f"-DCMAKE_PREFIX_PATH={prefix}"],
                         capture_output=True, text=True, env=clean_env(), timeout=300)
    assert out.returncode != 0
    message = " ".join(out.stderr.split())  # CMake wraps its messages
    assert ('assay has no component "nosuchlayer"; its components (layers): core, metrics, '
            'learners, soak, shift, count, compare, report') in message, out.stderr


def test_pkg_config_consumer(prefix, tmp_path):
    env = clean_env(PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    assert run("pkg-config", "--modversion", "assay", env=env).stdout.strip() == \
        cache_value("CMAKE_PROJECT_VERSION")
    flags = run("pkg-config", "--cflags", "--libs", "assay", env=env).stdout.split()
    assert f"-I{prefix}/include" in flags and "-lassay_metrics" in flags
    program = tmp_path / "roc_auc_demo"
    run("g++", "-std=c++20", "-O1", os.path.join(EXAMPLE, "main.cpp"), "-o", program, *flags,
        f"-Wl,-rpath,{prefix}/lib")
    assert run(program).stdout == "ROC AUC 0.75\n"


def test_reinstall_replaces_an_older_install(prefix):
    stale = [prefix / "include/assay/core/removed.hpp", python_dir(prefix) / "assay/removed.py",
             prefix / "lib/libassay_removed.so.0.0", prefix / "lib/cmake/assay/old.cmake"]
    for path in stale:
        path.write_text("from an older assay\n")
    install(prefix)
    assert [p for p in stale if p.exists()] == []
    assert (prefix / "include/assay/core/error.hpp").is_file()
