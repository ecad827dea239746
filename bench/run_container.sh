#!/bin/sh
# Run the container benchmark without make: install what is missing, then run.
#   bash bench/run_container.sh [--quick] [other container_bench.py options]
set -e
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
$PYTHON -c "import ztensor._core" 2>/dev/null || $PYTHON -m pip install -q . -Cbuild-dir=build/python
$PYTHON -c "import safetensors, torch, ml_dtypes" 2>/dev/null || $PYTHON -m pip install -q -r deps/requirements-test.txt
exec $PYTHON bench/container_bench.py "$@"
