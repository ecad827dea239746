"""The redirect policy (docs/remote.md "Redirects") against real servers in a
network namespace that has only loopback (`unshare --net`), so nothing can
leave the machine even when a redirect is followed: the cloud-metadata
address, a private address and a public one are put on the namespace's
loopback, each with a trap server that would serve the file. A redirect is
judged the same way by ztensor.open, `zt info` and the C API
(tests/python/_redirect_probe.py runs all three inside the namespace).
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _capi import find_libztensor
from _cli import ZT, needs_zt

PROBE = Path(__file__).resolve().parent / "_redirect_probe.py"
# Addresses the namespace's loopback carries besides 127.0.0.1: the metadata
# service, a private host and a public host (never reached outside).
METADATA, PRIVATE, PUBLIC = "169.254.169.254", "10.0.0.5", "1.2.3.4"
# The probe runs three front ends, each bounded well inside this.
PROBE_SECONDS = 180


def netns_works():
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(["unshare", "--net", "--mount", "--map-root-user", "true"], capture_output=True)
    return probe.returncode == 0


pytestmark = [
    needs_zt,
    pytest.mark.skipif(find_libztensor() is None, reason="libztensor.so not built (or set ZT_LIB)"),
    pytest.mark.skipif(not netns_works(), reason="cannot make a network namespace (unshare --net --map-root-user)"),
]


def probe(tmp_path, target, trap, options=None, tls=False, hosts=None):
    """Runs _redirect_probe.py in a fresh network and mount namespace;
    returns its report {front end: {code, message, trap_hits}}."""
    setup = ["ip link set lo up"] + [f"ip addr add {a}/32 dev lo" for a in (METADATA, PRIVATE, PUBLIC)]
    if hosts:  # names resolving to the test's addresses, for this namespace only
        hosts_file = tmp_path / "hosts"
        hosts_file.write_text("127.0.0.1 localhost\n" + "".join(f"{ip} {name}\n" for name, ip in hosts.items()))
        setup.append(f"mount --bind {hosts_file} /etc/hosts")
    spec = {"tmp": str(tmp_path), "target": target, "trap": trap, "tls": tls, "options": options or {},
            "zt": ZT, "lib": find_libztensor()}
    cmd = ["unshare", "--net", "--mount", "--map-root-user", "sh", "-ec", " && ".join(setup) + ' && exec "$@"', "sh",
           sys.executable, str(PROBE), json.dumps(spec)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=PROBE_SECONDS)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_refused(report, *words):
    for front, got in report.items():
        assert got["code"] in ("io_error", "exit 1"), (front, got)
        assert "refused" in got["message"] and all(w in got["message"] for w in words), (front, got["message"])
        assert "\n" not in got["message"], (front, got["message"])
        assert got["trap_hits"] == 0, (front, got)


def test_redirect_to_the_metadata_service_is_refused(tmp_path):
    report = probe(tmp_path, f"http://{METADATA}/latest/meta-data/", [METADATA, 80, "latest/meta-data/"])
    assert_refused(report, f"http://{METADATA}/latest/meta-data/", "cloud metadata", "policy 'public'")


def test_redirect_to_another_host_on_a_private_address_is_refused(tmp_path):
    report = probe(tmp_path, f"http://{PRIVATE}:8080/f.zt", [PRIVATE, 8080, "f.zt"])
    assert_refused(report, f"http://{PRIVATE}:8080/f.zt", "private-network")


def test_a_name_resolving_to_a_private_address_is_refused_when_it_connects(tmp_path):
    report = probe(tmp_path, "http://models.internal:8080/f.zt", [PRIVATE, 8080, "f.zt"],
                   hosts={"models.internal": PRIVATE})
    assert_refused(report, "http://models.internal:8080/f.zt", f"private-network address ({PRIVATE})")


def test_https_to_http_is_refused_even_to_a_public_host(tmp_path):
    report = probe(tmp_path, f"http://{PUBLIC}:8080/f.zt", [PUBLIC, 8080, "f.zt"], tls=True)
    assert_refused(report, f"http://{PUBLIC}:8080/f.zt", "downgrade from https to http")


def test_cross_host_redirect_to_a_public_address_is_followed(tmp_path):
    report = probe(tmp_path, f"http://{PUBLIC}:8080/f.zt", [PUBLIC, 8080, "f.zt"])
    hits = 0
    for front, got in report.items():
        assert got["code"] == "ok", (front, got)
        assert got["trap_hits"] > hits, (front, got)  # read from the public host
        hits = got["trap_hits"]


def test_same_origin_redirects_are_followed_and_none_refuses_them(tmp_path):
    report = probe(tmp_path, "{origin}/f.zt", None)
    assert all(got["code"] == "ok" for got in report.values()), report
    report = probe(tmp_path, "{origin}/f.zt", None, options={"redirects": "none"})
    assert_refused(report, "redirects are not followed", "policy 'none'")


def test_policy_any_follows_what_public_refuses(tmp_path):
    # Per call for Python and C, ZT_HTTP_REDIRECTS for the CLI: the policy is the caller's choice.
    report = probe(tmp_path, f"http://{METADATA}/latest/meta-data/", [METADATA, 80, "latest/meta-data/"],
                   options={"redirects": "any"})
    hits = 0
    for front, got in report.items():
        assert got["code"] == "ok" and got["trap_hits"] > hits, (front, got)
        hits = got["trap_hits"]


def test_same_origin_policy_refuses_a_public_host(tmp_path):
    report = probe(tmp_path, f"http://{PUBLIC}:8080/f.zt", [PUBLIC, 8080, "f.zt"],
                   options={"redirects": "same-origin"})
    assert_refused(report, "another origin")
