"""Builds p2b._p2b with the project's CMake (pyproject.toml has the metadata).

The version is read from c_api/p2b.h, the single version source, as
cmake/version.cmake reads it. Environment:
  P2B_PYTHON_BUILD_DIR   CMake build directory to (re)use [the setuptools temp dir]
  P2B_PYTHON_BUILD_TYPE  CMAKE_BUILD_TYPE [Release]
  P2B_BUILD_JOBS         parallel build jobs [2]
"""

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def header_version() -> str:
    text = (ROOT / "c_api" / "p2b.h").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"#define P2B_VERSION_%s (\d+)" % part, text)
        if m is None:
            raise RuntimeError("c_api/p2b.h has no P2B_VERSION_%s" % part)
        parts.append(m.group(1))
    return ".".join(parts)


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = os.environ.get("P2B_PYTHON_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake"
        )
        build_type = os.environ.get("P2B_PYTHON_BUILD_TYPE", "Release")
        jobs = os.environ.get("P2B_BUILD_JOBS", "2")
        subprocess.check_call(
            [
                "cmake", "-S", str(ROOT), "-B", build_dir, "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=" + build_type,
                "-DP2B_BUILD_PYTHON=ON", "-DP2B_BUILD_TESTS=OFF", "-DP2B_BUILD_BENCH=OFF",
                "-DPython3_EXECUTABLE=" + sys.executable,
            ]
        )
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_p2b", "-j", jobs])
        built = glob.glob(os.path.join(build_dir, "bindings", "python", "module", "_p2b*.so"))
        if len(built) != 1:
            raise RuntimeError("expected one _p2b module in the build tree, found %r" % built)
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


setup(
    version=header_version(),
    ext_modules=[CMakeExtension("p2b._p2b")],
    cmdclass={"build_ext": CMakeBuild},
)
