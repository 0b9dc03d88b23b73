"""The PEP 517 build backend behind `pip install .` (pyproject.toml, docs/install.md).

It builds the Python package with the project's own CMake: configure a temporary build folder
(Release, Ninja when present, ccache when on PATH, all cores), build the `_assay` target, and write
the wheel with the `wheel` package's WheelFile. The wheel holds python/assay/**.py from this source
tree, the compiled `_assay` module and the assay shared libraries it loads (libassay_<layer>.so.X.Y,
whose RUNPATH is rewritten to $ORIGIN: they sit beside the module). Nothing is written into the
checkout: no build/, no *.egg-info, no dist/.

ASSAY_CMAKE_BUILD_DIR=<folder> packs the module an existing build made (`make build`) instead of
compiling; that folder is only read.

Not setuptools: its build_meta writes <name>.egg-info and build/ into the source tree, and a CMake
extension would need a hand-written build_ext anyway. This file needs only the standard library,
the `wheel` package, CMake and the compiler.
"""
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import tomllib
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent
PACKAGE = SOURCE / "python" / "assay"
REUSE_VARIABLE = "ASSAY_CMAKE_BUILD_DIR"


class BuildError(RuntimeError):
    """A build step failed; the message says which and what to do."""


# --- Metadata: pyproject.toml's [project] table, the version from CMakeLists.txt ---------------

def project_version():
    """The version of project(assay VERSION x.y.z) in CMakeLists.txt (the one source of truth:
    the CLI, the libraries' SONAME, the .deb and assay.__version__ take it from there too)."""
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"^project\(\s*assay\s+VERSION\s+([0-9][0-9.]*)", text, re.M)
    if not match:
        raise BuildError("CMakeLists.txt has no `project(assay VERSION x.y.z)` line")
    return match.group(1)


def project_table():
    with open(SOURCE / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def metadata_text():
    """Core metadata 2.1 (the METADATA / PKG-INFO file) from the [project] table."""
    project = project_table()
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project_version()}",
             f"Summary: {project['description']}",
             f"Requires-Python: {project['requires-python']}"]
    lines += [f"Keywords: {','.join(project['keywords'])}"] if "keywords" in project else []
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    readme = project.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + (SOURCE / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


def dist_name():
    return f"{project_table()['name']}-{project_version()}"


def wheel_tag():
    """cpXY-cpXY-<platform>: the compiled module is for this interpreter only."""
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{python}-{python}{sys.abiflags}-{platform}"


def wheel_text():
    return ("Wheel-Version: 1.0\nGenerator: assay python/build_backend.py\n"
            f"Root-Is-Purelib: false\nTag: {wheel_tag()}\n")


# --- PEP 517 hooks -------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = Path(metadata_directory) / f"{dist_name()}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(metadata_text(), encoding="utf-8")
    (dist_info / "WHEEL").write_text(wheel_text(), encoding="utf-8")
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    reuse = os.environ.get(REUSE_VARIABLE)
    with tempfile.TemporaryDirectory(prefix="assay-wheel-") as scratch:
        scratch = Path(scratch)
        if reuse:
            module = reused_module(Path(reuse).resolve())
        else:
            module = build_module(scratch / "cmake-build")
        staged = stage_binaries(module, scratch / "binaries")
        return write_wheel(Path(wheel_directory), staged)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # Defined so that pip reports this instead of falling back to `setup.py develop`, which
    # setuptools would run on a guessed layout and which writes an .egg-info into the checkout.
    raise BuildError("assay has no editable install (pip install -e): the compiled module lives "
                     "in a CMake build. Use `pip install --no-build-isolation .` again after a "
                     "change, or PYTHONPATH=<build>/python as `make test` does (docs/install.md)")


def build_sdist(sdist_directory, config_settings=None):
    """A .tar.gz of the files git tracks (or of the tree, outside git) plus PKG-INFO. Building
    from it needs what a clone needs: Debian's packages and the chart library (install-deps)."""
    name = dist_name()
    path = Path(sdist_directory) / f"{name}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for relative in source_files():
            tar.add(SOURCE / relative, arcname=f"{name}/{relative}", recursive=False)
        info = metadata_text().encode("utf-8")
        entry = tarfile.TarInfo(f"{name}/PKG-INFO")
        entry.size = len(info)
        tar.addfile(entry, io.BytesIO(info))
    return path.name


def source_files():
    try:
        listed = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z"], check=True,
                                capture_output=True).stdout.decode().split("\0")
        return sorted(f for f in listed if f and (SOURCE / f).is_file())
    except (OSError, subprocess.CalledProcessError):
        skip = re.compile(r"(^|/)(\.git|__pycache__|node_modules)(/|$)|^build[^/]*/")
        return sorted(str(p.relative_to(SOURCE)) for p in SOURCE.rglob("*")
                      if p.is_file() and not skip.search(str(p.relative_to(SOURCE))))


# --- The compiled module: built here, or taken from an existing build ---------------------------

def run(argv, what):
    print("+", " ".join(map(str, argv)), flush=True)
    if subprocess.run(list(map(str, argv))).returncode != 0:
        raise BuildError(f"{what} failed (command above); see its output")


def module_name():
    return "_assay" + sysconfig.get_config_var("EXT_SUFFIX")


def build_module(build_dir):
    """Configures the project in build_dir and builds the `_assay` target only (the module and
    the layer libraries it links: not the CLI, tests or benches). The caller's CMAKE_GENERATOR,
    CMAKE_CXX_COMPILER_LAUNCHER and CMAKE_BUILD_PARALLEL_LEVEL take precedence."""
    if not shutil.which("cmake"):
        raise BuildError("cmake is not on PATH: install Debian's build dependencies first "
                         "(scripts/install-deps.sh, docs/install.md)")
    configure = ["cmake", "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                 f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja") and "CMAKE_GENERATOR" not in os.environ:
        configure += ["-G", "Ninja"]
    if shutil.which("ccache") and "CMAKE_CXX_COMPILER_LAUNCHER" not in os.environ:
        configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    run(configure, "configuring assay with CMake")
    build = ["cmake", "--build", build_dir, "--target", "_assay"]
    if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
        build += ["-j", str(os.cpu_count() or 1)]
    run(build, "building the _assay module")
    return build_dir / "python" / "assay" / module_name()


def cache_value(build_dir, name):
    with open(build_dir / "CMakeCache.txt", encoding="utf-8") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return None


def reused_module(build_dir):
    """The module of an existing build, after checking it is one of this version for this
    Python. Nothing is built: the folder may be in use by other processes."""
    if not (build_dir / "CMakeCache.txt").is_file():
        raise BuildError(f"{REUSE_VARIABLE}={build_dir} is not a configured CMake build of assay "
                         "(no CMakeCache.txt)")
    version = cache_value(build_dir, "CMAKE_PROJECT_VERSION")
    if version != project_version():
        raise BuildError(f"{REUSE_VARIABLE}={build_dir} is a build of assay {version}, this "
                         f"source is {project_version()}: rebuild it or unset {REUSE_VARIABLE}")
    module = build_dir / "python" / "assay" / module_name()
    if not module.is_file():
        raise BuildError(f"{REUSE_VARIABLE}={build_dir} has no {module.name} (built for this "
                         f"Python, {sys.version.split()[0]}): run `make build` or "
                         f"`cmake --build {build_dir} --target _assay` first")
    built_from = cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    if built_from and Path(built_from).resolve() != SOURCE:
        print(f"note: {REUSE_VARIABLE}: the module was built from {built_from}; the Python files "
              f"come from {SOURCE}", flush=True)
    return module


# --- Staging: the module and the assay libraries it loads, RUNPATH $ORIGIN ----------------------

def dynamic_section(path):
    """(NEEDED names, RUNPATH/RPATH folders with $ORIGIN expanded) of an ELF file."""
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out.stdout)
    folders = []
    for paths in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r\w*path: \[(.*?)\]", out.stdout):
        folders += [Path(p.replace("$ORIGIN", str(path.parent))) for p in paths.split(":") if p]
    return needed, folders


def assay_libraries(module):
    """{name: path} of every libassay_* library the module loads, directly or through another,
    found where the build's RUNPATH points (the build folder)."""
    found, pending = {}, [module]
    while pending:
        needed, folders = dynamic_section(pending.pop())
        for name in needed:
            if not name.startswith("libassay_") or name in found:
                continue
            candidates = [folder / name for folder in folders if (folder / name).is_file()]
            if not candidates:
                raise BuildError(f"{name}, which {module.name} loads, is not in its build "
                                 f"folders {[str(f) for f in folders]}")
            found[name] = candidates[0].resolve()
            pending.append(found[name])
    return found


def stage_binaries(module, folder):
    """Copies the module and its assay libraries into folder; each finds the others beside it
    ($ORIGIN), so the wheel works wherever pip puts it and no path of the build remains."""
    folder.mkdir(parents=True)
    libraries = assay_libraries(module)
    staged = []
    for name, path in [(module.name, module), *sorted(libraries.items())]:
        shutil.copy2(path, folder / name)
        staged.append(folder / name)
    script = folder.parent / "runpath.cmake"
    # CMake edits RUNPATHs in place; "$ORIGIN" fits, since CMake reserves room for the install
    # RUNPATH ($ORIGIN/...) in every build-tree one.
    script.write_text("".join(
        f"file(RPATH_SET FILE [[{p}]] NEW_RPATH [[$ORIGIN]])\n" if libraries
        else f"file(RPATH_REMOVE FILE [[{p}]])\n" for p in staged), encoding="utf-8")
    run(["cmake", "-P", script], "setting the libraries' RUNPATH to $ORIGIN")
    return staged


# --- The wheel -----------------------------------------------------------------------------------

def python_files():
    """(path in the wheel, file) for python/assay/**.py of this source tree."""
    return sorted((f"assay/{p.relative_to(PACKAGE).as_posix()}", p) for p in PACKAGE.rglob("*.py")
                  if "__pycache__" not in p.parts)


def write_wheel(wheel_directory, binaries):
    from wheel.wheelfile import WheelFile  # writes RECORD (hashes, sizes) on close

    dist_info = f"{dist_name()}.dist-info"
    path = wheel_directory / f"{dist_name()}-{wheel_tag()}.whl"
    with WheelFile(path, "w") as wheel:
        for arcname, source in python_files():
            wheel.write(source, arcname)
        for binary in binaries:
            wheel.write(binary, f"assay/{binary.name}")
        wheel.writestr(f"{dist_info}/METADATA", metadata_text())
        wheel.writestr(f"{dist_info}/WHEEL", wheel_text())
    return path.name
