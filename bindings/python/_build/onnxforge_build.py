"""The in-tree PEP 517 build backend of the onnxforge Python package (standard library only).

`pip install ./bindings/python` calls build_wheel here: it builds libonnxforge with CMake from
the checkout this folder belongs to (into its folder `build-python/`, kept so a second install
only rebuilds what changed) and writes a wheel holding the Python package with the library inside
it, so the installed package needs no environment variable to find it. Nothing is downloaded: the
backend needs no setuptools or wheel, only CMake, a C++17 compiler, protoc and onnx.proto (the
same as the C library's build; Debian: cmake g++ protobuf-compiler libprotobuf-dev libonnx-dev).

config_settings (pip: --config-settings KEY=VALUE):
  library=PATH   bundle this already built libonnxforge.so instead of building one
  jobs=N         parallel build jobs (default: the machine's cores)

The version is the one of include_c/onnxforge.h (OFG_VERSION_*), the single place it is kept.
Editable installs (pip install -e) are not supported: the library must be built into the package.
"""

import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

PACKAGE = "onnxforge"
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)                       # bindings/python
ROOT = os.path.dirname(os.path.dirname(PYTHON_DIR))      # the checkout


def _fail(message):
    raise RuntimeError("onnxforge build: " + message)


def _project_version():
    path = os.path.join(ROOT, "include_c", "onnxforge.h")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        _fail("no include_c/onnxforge.h under %s: build the package from a checkout of onnxforge "
              "(pip install PATH/bindings/python; a pip older than 21.3 copies the folder elsewhere first: "
              "upgrade pip or use --use-feature=in-tree-build)" % ROOT)
    parts = [re.search(r"^#define OFG_VERSION_%s (\d+)$" % p, text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        _fail("cannot read the version from %s" % path)
    return ".".join(m.group(1) for m in parts)


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _run(cmd, log):
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    log.write(proc.stdout)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-30:])
        _fail("%s failed (exit %d):\n%s" % (" ".join(cmd[:3]), proc.returncode, tail))


def _build_library(config_settings):
    given = (config_settings or {}).get("library")
    if given:
        if not os.path.isfile(given):
            _fail("library=%s: no such file" % given)
        return os.path.realpath(given)
    if shutil.which("cmake") is None:
        _fail("cmake is needed to build libonnxforge (Debian: apt-get install cmake g++ protobuf-compiler "
              "libprotobuf-dev libonnx-dev)")
    build = os.path.join(ROOT, "build-python")
    jobs = str((config_settings or {}).get("jobs") or os.cpu_count() or 2)
    os.makedirs(build, exist_ok=True)
    with open(os.path.join(build, "pip-build.log"), "a") as log:
        sys.stderr.write("onnxforge: building libonnxforge in %s (a few minutes the first time)\n" % build)
        _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DOFG_BUILD_TESTS=OFF",
              "-DOFG_BUILD_BENCH=OFF"], log)
        _run(["cmake", "--build", build, "--target", "onnxforge", "-j", jobs], log)
    lib = os.path.join(build, "libonnxforge.so")
    if not os.path.exists(lib):
        _fail("the build made no %s" % lib)
    return os.path.realpath(lib)


def _metadata(version):
    readme = ""
    try:
        with open(os.path.join(PYTHON_DIR, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        pass
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + PACKAGE,
        "Version: " + version,
        "Summary: Load, optimize, verify by execution and save ONNX models (libonnxforge inside)",
        "License: Apache-2.0",
        "Requires-Python: >=3.9",
        "Provides-Extra: run",
        'Requires-Dist: numpy; extra == "run"',
        "Provides-Extra: onnx",
        'Requires-Dist: onnx; extra == "onnx"',
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + readme


def _dist_info(version):
    return "%s-%s.dist-info" % (PACKAGE, version)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, "sha256=" + digest, str(len(data))]


# -- PEP 517 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _project_version()
    info = os.path.join(metadata_directory, _dist_info(version))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    return os.path.basename(info)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _project_version()
    library = _build_library(config_settings)
    tag = "py3-none-" + _platform_tag()
    name = "%s-%s-%s.whl" % (PACKAGE, version, tag)
    files = []  # (archive name, bytes)
    package_dir = os.path.join(PYTHON_DIR, PACKAGE)
    for entry in sorted(os.listdir(package_dir)):
        if entry.endswith(".py") or entry == "py.typed":
            with open(os.path.join(package_dir, entry), "rb") as f:
                files.append(("%s/%s" % (PACKAGE, entry), f.read()))
    with open(library, "rb") as f:
        files.append(("%s/libonnxforge.so" % PACKAGE, f.read()))
    info = _dist_info(version)
    files.append((info + "/METADATA", _metadata(version).encode("utf-8")))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: onnxforge_build\nRoot-Is-Purelib: false\n"
                                    "Tag: %s\n" % tag).encode()))
    files.append((info + "/entry_points.txt", b"[console_scripts]\nonnxforge-py = onnxforge.__main__:main\n"))
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data in files:
        writer.writerow(_record_line(arcname, data))
    writer.writerow([info + "/RECORD", "", ""])
    files.append((info + "/RECORD", record.getvalue().encode()))
    os.makedirs(wheel_directory, exist_ok=True)
    path = os.path.join(wheel_directory, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arcname.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def build_sdist(sdist_directory, config_settings=None):
    _fail("no source distribution: install from a checkout (pip install PATH/bindings/python), "
          "which builds the library from the whole source tree")
