#!/usr/bin/env bash
# Virtual environments for the peers (idempotent). PyPI z4ai and ztensor share our
# module names and zipnn pulls torch, so none goes into the main Python. They live under
# build/peers in the repository unless ZT_PEER_VENVS names another folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venvs=${ZT_PEER_VENVS:-$root/build/peers}
mkdir -p "$venvs"
make_venv() {
  local name=$1; shift
  if [ ! -x "$venvs/$name/bin/python" ]; then
    python3 -m venv "$venvs/$name"
  fi
  "$venvs/$name/bin/pip" install -q "$@"
}
make_venv bench-z4ai "z4ai==0.2.0" numpy
make_venv bench-zipnn zipnn numpy zstandard "torch==2.13.0"
make_venv zt212 "ztensor==2.1.2" numpy  # the previous major release, a peer of bench/formats_bench.py
echo "peer venvs ready in $venvs"
