"""Drives the reference implementation (PyPI `ztensor` 1.2.x) inside its own
virtual environment; test_interop.py runs it as a subprocess and reads the
JSON it prints on stdout.

    python ref_driver.py write OUTDIR      files the reference writes + expected entries
    python ref_driver.py read FILE         what the reference reads from FILE
    python ref_driver.py version           the reference's version
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "golden")


def write(outdir):
    sys.path.insert(0, GOLDEN)
    import make_golden

    return make_golden.ref_zt12(outdir)


def read(path):
    """Per object: the reference's view of the manifest and the sha256 of
    each component's bytes, or the error it raised."""
    import ztensor

    out = {}
    r = ztensor.open(path)
    for name in r.keys():
        entry = {}
        try:
            m = r.metadata(name)
            entry.update(format=m.format, shape=list(m.shape), dtype=str(m.dtype), type=m.type,
                         attributes=m.attributes,
                         manifest={role: {k: v for k, v in c.items() if k in ("dtype", "type", "encoding")}
                                   for role, c in (m.components or {}).items()})
            t = r.read(name, copy=True)
            comps = {}
            for role, arr in t.components.items():
                a = np.ascontiguousarray(arr)
                comps[role] = {"sha256": hashlib.sha256(a.tobytes()).hexdigest(), "nbytes": int(a.nbytes),
                               "np_dtype": str(a.dtype)}
            entry["components"] = comps
            if m.format == "dense":
                a = np.ascontiguousarray(r.read_numpy(name, copy=True))
                entry["dense"] = {"shape": list(a.shape), "np_dtype": str(a.dtype),
                                  "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
        except BaseException as e:  # noqa: BLE001 (report every failure, panics included)
            entry["error"] = f"{type(e).__name__}: {e}"
        out[name] = entry
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        result = write(sys.argv[2])
    elif cmd == "read":
        result = read(sys.argv[2])
    elif cmd == "version":
        from importlib.metadata import version

        result = {"ztensor": version("ztensor")}
    else:
        raise SystemExit(f"unknown command {cmd}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
