#!/usr/bin/python3
"""The Gradle module must take its version from c_api/p2b.h, the single
version source: build.gradle's pattern must find all three P2B_VERSION_*
macros in the header, and no version may be written in build.gradle.

usage: check_gradle_version.py bindings/android/build.gradle c_api/p2b.h
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aar_common as common  # noqa: E402


def main():
    gradle_path, header_path = sys.argv[1], sys.argv[2]
    with open(gradle_path, encoding="utf-8") as f:
        gradle = f.read()
    with open(header_path, encoding="utf-8") as f:
        header = f.read()
    problems = []
    # The Groovy pattern, e.g. /(?m)^#define P2B_VERSION_${name} (\d+)$/, in Python's syntax.
    m = re.search(r"=~ /(.*P2B_VERSION_)\$\{name\}(.*)/\)", gradle)
    if m is None:
        problems.append("build.gradle: no pattern reading P2B_VERSION_${name} from the header")
    else:
        parts = []
        for name in ("MAJOR", "MINOR", "PATCH"):
            found = re.search(m.group(1) + name + m.group(2), header)
            if found is None:
                problems.append("build.gradle's pattern finds no P2B_VERSION_%s" % name)
            else:
                parts.append(found.group(1))
        if len(parts) == 3 and ".".join(parts) != common.header_version(header):
            problems.append("build.gradle reads %s, the header says %s"
                            % (".".join(parts), common.header_version(header)))
    for literal in re.findall(r"""(?:version|versionName)\s*[=(]?\s*['"][0-9.]+['"]""", gradle):
        problems.append("build.gradle writes a version: %s" % literal)
    for p in problems:
        print("check_gradle_version: %s" % p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("check_gradle_version: build.gradle reads %s from the header"
          % common.header_version(header))


if __name__ == "__main__":
    main()
