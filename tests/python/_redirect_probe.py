"""Run by test_redirects.py inside a network namespace that has only
loopback (and the test's addresses on it), so no packet can leave even when
a redirect is followed.

Serves a small .zt on 127.0.0.1 (over TLS when asked) whose /moved answers
302 to the spec's target, and a trap server at the target's address serving
the same file there, so a redirect that is followed succeeds. Then opens
/moved from Python (ztensor.open), the CLI (zt info) and the C API
(zt_reader_open_url), and prints one JSON line: what each front end got
and how many requests reached the trap after each.

Usage: python _redirect_probe.py SPEC_JSON, SPEC_JSON holding tmp (a
directory), target (the Location, "{origin}" standing for the origin's
scheme://host:port), trap ([host, port, path] or null), tls (bool),
options (remote options for every front end, given to the CLI as
ZT_HTTP_*), zt and lib (the zt binary and libztensor.so).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import ztensor  # noqa: E402
import ztensor.numpy  # noqa: E402
from _capi import CApi  # noqa: E402
from _servers import FaultServer, make_tls_cert  # noqa: E402

# The CLI's answer within this long, or the probe reports a hang.
CLI_SECONDS = 60


def outcome_of_python(url, options):
    try:
        with ztensor.open(url, storage_options=options or None) as r:
            return {"code": "ok", "message": "", "count": len(r.keys())}
    except ztensor.ZTensorError as e:
        return {"code": e.code, "message": str(e), "count": 0}


def outcome_of_cli(zt, url, options, env):
    for key, value in (options or {}).items():
        env["ZT_HTTP_" + key.upper()] = str(value)
    out = subprocess.run([zt, "info", url], capture_output=True, text=True, env=env, timeout=CLI_SECONDS)
    return {"code": "ok" if out.returncode == 0 else "exit %d" % out.returncode, "message": out.stderr.strip()}


def main():
    spec = json.loads(sys.argv[1])
    tmp = Path(spec["tmp"])
    path = tmp / "f.zt"
    ztensor.numpy.save_file({"small": np.arange(10, dtype=np.int16)}, str(path))
    data = path.read_bytes()
    tls = None
    env = dict(os.environ)
    if spec.get("tls"):
        ca, cert, key = make_tls_cert(tmp)
        tls = (str(cert), str(key))
        env["ZT_CA_BUNDLE"] = os.environ["ZT_CA_BUNDLE"] = str(ca)
    origin = FaultServer("f.zt", data, tls=tls)
    trap = FaultServer(spec["trap"][2], data, host=spec["trap"][0], port=spec["trap"][1]) if spec["trap"] else None
    origin.moved_to = spec["target"].replace("{origin}", f"{origin.scheme}://127.0.0.1:{origin.port}")
    moved = origin.url("moved")
    options = spec.get("options") or {}
    report = {}
    try:
        for front, run in (("python", lambda: outcome_of_python(moved, options)),
                           ("cli", lambda: outcome_of_cli(spec["zt"], moved, options, dict(env))),
                           ("capi", lambda: dict(zip(("code", "message", "count"),
                                                     CApi(spec["lib"]).open_url(moved, options))))):
            report[front] = run()
            report[front]["trap_hits"] = trap.served if trap else 0
    finally:
        origin.stop()
        if trap:
            trap.stop()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
