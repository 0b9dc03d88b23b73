"""`make package`: the Debian package built by CPack. Its control data and files are checked with
dpkg-deb; the package is unpacked into a temporary folder and used from there (`assay metrics`,
`import assay`), and apt-get checks, without installing, that its Depends resolve on this
machine. Installing it into /usr for real (apt-get install, use, purge, nothing left behind) runs
only with ASSAY_TEST_SYSTEM_INSTALL=1, as root, where no assay package is installed yet: the
default run never writes outside temporary folders."""
import os
import re
import subprocess
import sys

import pytest

from test_install import BUILD, cache_value, clean_env, run

APT_LOCK = ["-o", "DPkg::Lock::Timeout=300"]  # other apt runs on the machine finish first


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    if not os.path.exists(os.path.join(BUILD, "CPackConfig.cmake")):
        pytest.fail(f"no configured build in {BUILD}: run `make build` first")
    out_dir = tmp_path_factory.mktemp("deb")
    run("cpack", "-G", "DEB", "-B", out_dir, "--config", os.path.join(BUILD, "CPackConfig.cmake"),
        cwd=BUILD)
    debs = list(out_dir.glob("assay_*.deb"))
    assert len(debs) == 1, debs
    return debs[0]


def control(deb):
    """{field: value} of the package's control file."""
    fields = {}
    for line in run("dpkg-deb", "--field", deb).stdout.splitlines():
        if ":" in line and not line.startswith(" "):
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def contents(deb):
    """The package's paths (files and links, not folders), absolute."""
    paths = []
    for line in run("dpkg-deb", "--contents", deb).stdout.splitlines():
        if line.startswith("d"):
            continue
        path = line.split(None, 5)[5].split(" -> ")[0]
        paths.append(path[1:] if path.startswith("./") else path)
    return ["/" + p.lstrip("/") for p in paths]


def test_control_fields(deb):
    fields = control(deb)
    version = cache_value("CMAKE_PROJECT_VERSION")
    assert fields["Package"] == "assay" and fields["Version"] == version
    assert deb.name == f"assay_{version}_{fields['Architecture']}.deb"
    depends = [d.strip() for d in fields["Depends"].split(",")]
    names = {re.split(r"[\s(]", d)[0] for d in depends}
    # Computed by dpkg-shlibdeps from the ELF files: the libraries the CLI and the layers load.
    for package in ("libc6", "libstdc++6", "libfmt9", "libxgboost0", "libgmp10", "libopenblas0",
                    "zlib1g", "libdeflate0"):
        assert package in names, (package, depends)
    assert [n for n in names if n.startswith("libcryptominisat5-")], depends  # count
    assert not [n for n in names if n.endswith("-dev")], depends
    assert "assay" not in names  # its own libraries are inside
    minor = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert f"python3 (>= {minor})" in depends and "python3-numpy" in names
    info = run("dpkg-deb", "--info", deb).stdout
    assert "shlibs" in info and "prerm" in info


def test_files(deb):
    paths = contents(deb)
    python = "/usr/" + cache_value("ASSAY_PYTHON_INSTALL_DIR") + "/assay/"
    for path in ("/usr/bin/assay", "/usr/share/man/man1/assay.1.gz",
                 "/usr/share/bash-completion/completions/assay",
                 "/usr/include/assay/metrics/ranking.hpp", "/usr/lib/cmake/assay/assayConfig.cmake",
                 "/usr/lib/pkgconfig/assay.pc", python + "__init__.py"):
        assert path in paths, path
    assert any(p.startswith(python + "_assay") and p.endswith(".so") for p in paths)
    assert any(re.fullmatch(r"/usr/lib/libassay_core\.so\.\d+\.\d+", p) for p in paths)
    assert not [p for p in paths if "__pycache__" in p or not p.startswith("/usr/")]


SAMPLE = "y,p\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n"
ROC_AUC_CODE = ("import assay, numpy as np; from assay import metrics; print(assay.__file__); "
                "print(metrics.roc_auc_score(np.array([0, 0, 1, 1]), "
                "np.array([.1, .4, .35, .8])))")


def metrics_json(cli, folder):
    sample = folder / "preds.csv"
    sample.write_text(SAMPLE)
    return run(cli, "metrics", sample, "--label", "y", "--score", "p", "--json",
               cwd=folder).stdout


def test_unpacked_package_runs(deb, tmp_path):
    """The packaged files work together on their own (relative RPATHs, nothing from the build)."""
    root = tmp_path / "root"
    run("dpkg-deb", "--extract", deb, root)
    out = metrics_json(root / "usr/bin/assay", tmp_path)
    assert re.search(r'"roc_auc": 0\.75\b', out), out
    python = root / "usr" / cache_value("ASSAY_PYTHON_INSTALL_DIR")
    lines = run(sys.executable, "-c", ROC_AUC_CODE, cwd=tmp_path,
                env=clean_env(PYTHONPATH=str(python))).stdout.splitlines()
    assert lines[0].startswith(str(python)) and lines[1] == "0.75", lines


def test_depends_resolve(deb):
    """apt-get accepts the package here: every Depends is installed or installable (simulated:
    nothing is installed)."""
    out = run("apt-get", "install", "--simulate", "-q", "--no-install-recommends", *APT_LOCK,
              deb, env=clean_env(DEBIAN_FRONTEND="noninteractive")).stdout
    assert re.search(r"^(Inst|Conf) assay ", out, re.M), out


def system_install_possible():
    if not os.environ.get("ASSAY_TEST_SYSTEM_INSTALL"):
        return "installs into /usr: set ASSAY_TEST_SYSTEM_INSTALL=1 to run it"
    if os.geteuid() != 0:
        return "not root: apt-get cannot install the package"
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "assay"], capture_output=True,
                            text=True)
    if "installed" in status.stdout and "not-installed" not in status.stdout:
        return "an assay package is already installed on this machine: left alone"
    return None


def test_install_use_purge(deb, tmp_path):
    reason = system_install_possible()
    if reason:
        pytest.skip(reason)
    env = clean_env(DEBIAN_FRONTEND="noninteractive")
    files = contents(deb)
    run("apt-get", "install", "-y", "-q", "--no-install-recommends", *APT_LOCK, deb, env=env)
    try:
        out = metrics_json("/usr/bin/assay", tmp_path)
        assert re.search(r'"roc_auc": 0\.75\b', out), out
        lines = run("/usr/bin/python3", "-c", ROC_AUC_CODE, cwd=tmp_path,
                    env=env).stdout.splitlines()
        assert lines[0].startswith("/usr/lib/") and lines[1] == "0.75", lines
        assert run("man", "-w", "assay", env=env).stdout.strip() == "/usr/share/man/man1/assay.1.gz"
    finally:
        run("apt-get", "purge", "-y", "-q", *APT_LOCK, "assay", env=env)
    left = [p for p in files if os.path.lexists(p)]
    python = "/usr/" + cache_value("ASSAY_PYTHON_INSTALL_DIR") + "/assay"
    assert left == [] and not os.path.exists(python), left
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "assay"], capture_output=True,
                            text=True)
    assert status.returncode != 0 or "not-installed" in status.stdout
