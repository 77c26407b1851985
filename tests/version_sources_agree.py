#!/usr/bin/python3
"""One version source: c_api/p2b.h's P2B_VERSION_* macros drive CMake, the
Python package, the Gradle module (and its AAR) and the Swift package.

Each reader is run against a copy of the header whose version is changed to
one no file holds, and must return that version; a reader with a version of
its own (a literal) would return something else. The Swift package cannot
run here (no toolchain), so its wrapper is checked to spell its version only
from the macros.

usage: version_sources_agree.py <repo root> <CMake PROJECT_VERSION>
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
PROBE = (97, 53, 1)  # a version no file in the tree holds


def header_version(text):
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define P2B_VERSION_%s (\d+)$" % name, text, re.M)
        if m is None:
            raise SystemExit("c_api/p2b.h: no #define P2B_VERSION_%s" % name)
        parts.append(m.group(1))
    return ".".join(parts)


def probe_header(text):
    for name, value in zip(("MAJOR", "MINOR", "PATCH"), PROBE):
        text = re.sub(r"^(#define P2B_VERSION_%s )\d+$" % name, r"\g<1>%d" % value, text, flags=re.M)
    return text


def cmake_reader(root, tmp):
    """cmake/version.cmake, as the top-level CMakeLists.txt includes it."""
    (tmp / "cmake").mkdir()
    shutil.copy(root / "cmake" / "version.cmake", tmp / "cmake")
    script = tmp / "print.cmake"
    script.write_text('include("${CMAKE_CURRENT_LIST_DIR}/cmake/version.cmake")\n'
                      'message(STATUS "version=${P2B_HEADER_VERSION}")\n')
    out = subprocess.run(["cmake", "-P", str(script)], capture_output=True, text=True, check=True)
    m = re.search(r"version=(\S+)", out.stdout + out.stderr)
    return m.group(1) if m else None


def python_reader(root, tmp):
    """pyproject.toml's version: scikit-build-core's regex provider, whose
    input, regex and result are applied to the probe header as it does."""
    import tomllib

    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    settings = pyproject["tool"]["scikit-build"]["metadata"]["version"]
    if settings.get("provider") != "scikit_build_core.metadata.regex":
        return "a provider other than the regex one: %r" % settings.get("provider")
    if settings.get("input") != "c_api/p2b.h":
        return "a version read from %r" % settings.get("input")
    m = re.search(settings["regex"], (tmp / "c_api" / "p2b.h").read_text(), re.MULTILINE)
    if m is None:
        return None
    return settings.get("result", "{value}").format(*m.groups(), **m.groupdict())


def gradle_reader(root, tmp):
    """build.gradle's pattern over the probe header (check_gradle_version.py)."""
    script = root / "bindings" / "android" / "scripts" / "check_gradle_version.py"
    out = subprocess.run([sys.executable, str(script), str(root / "bindings" / "android" / "build.gradle"),
                          str(tmp / "c_api" / "p2b.h")], capture_output=True, text=True)
    return ".".join(map(str, PROBE)) if out.returncode == 0 else "refused: " + out.stdout + out.stderr


def aar_reader(root, tmp):
    """make-aar.py's version: the one aar_common reads from the header."""
    sys.path.insert(0, str(root / "bindings" / "android" / "scripts"))
    import aar_common  # noqa: E402
    return aar_common.header_version((tmp / "c_api" / "p2b.h").read_text())


def swift_problems(root):
    problems = []
    version_swift = (root / "bindings" / "swift" / "Sources" / "P2B" / "Version.swift").read_text()
    want = '"\\(P2B_VERSION_MAJOR).\\(P2B_VERSION_MINOR).\\(P2B_VERSION_PATCH)"'
    if want not in version_swift:
        problems.append("Version.swift: headerVersion is not spelt from the P2B_VERSION_* macros")
    for path in [root / "Package.swift", *sorted((root / "bindings" / "swift").rglob("*.swift"))]:
        for m in re.finditer(r"\b\d+\.\d+\.\d+\b", path.read_text()):
            problems.append("%s: a version literal %s" % (path.relative_to(root), m.group(0)))
    return problems


def main():
    root, cmake_version = Path(sys.argv[1]).resolve(), sys.argv[2]
    header = (root / "c_api" / "p2b.h").read_text()
    version = header_version(header)
    problems = []
    if cmake_version != version:
        problems.append("CMake project version %s != header %s" % (cmake_version, version))
    probe = ".".join(map(str, PROBE))
    if probe == version:
        raise SystemExit("the probe version equals the real one; pick another PROBE")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "c_api").mkdir()
        (tmp / "c_api" / "p2b.h").write_text(probe_header(header))
        readers = {"CMake": cmake_reader, "Python (pyproject)": python_reader,
                   "Gradle (build.gradle)": gradle_reader, "AAR (make-aar.py)": aar_reader}
        for name, reader in readers.items():
            got = reader(root, tmp)
            if got != probe:
                problems.append("%s reads %r from a header saying %s" % (name, got, probe))
            else:
                print("%-22s follows the header (%s)" % (name, probe))
    problems += swift_problems(root)
    if not problems:
        print("Swift                  spells its version from the macros, no literal")
    for p in problems:
        print("version_sources_agree: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
