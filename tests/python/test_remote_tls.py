"""https:// reads find a CA bundle: ZT_CA_BUNDLE, then CURL_CA_BUNDLE, then SSL_CERT_FILE, name one
explicitly (src/remote/ca_bundle.cc), which is how a user of the manylinux wheel on a distribution
whose CA file is elsewhere than Debian's points it at theirs. nginx serves a .zt over TLS on loopback
with a certificate from a throwaway CA that only the named bundle trusts; `zt info URL` runs in a
fresh process with exactly the variables each test sets."""

import os
import shlex
import subprocess

import numpy as np
import pytest

import ztensor.numpy

from _cli import ZT, needs_zt
from _servers import Nginx, make_tls_cert


CA_VARIABLES = ("ZT_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE")


@pytest.fixture
def tls_server(tmp_path):
    ca, cert, key = make_tls_cert(tmp_path)
    root = tmp_path / "www"
    root.mkdir()
    ztensor.numpy.save_file({"tls.weight": np.arange(64, dtype=np.float32)}, str(root / "m.zt"))
    server = Nginx(root, tmp_path, tls=(cert, key))
    try:
        yield server.url("m.zt"), ca
    finally:
        server.stop()


def zt_info(url, **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in CA_VARIABLES}
    env.update({k: str(v) for k, v in env_vars.items()})
    return subprocess.run([ZT, "info", url], capture_output=True, text=True, env=env)


@needs_zt
def test_untrusted_certificate_is_refused(tls_server):
    url, _ = tls_server
    out = zt_info(url)
    assert out.returncode != 0
    assert "certificate" in out.stderr.lower(), out.stderr


@needs_zt
def test_ssl_cert_file_names_the_bundle(tls_server):
    url, cert = tls_server
    out = zt_info(url, SSL_CERT_FILE=cert)
    assert out.returncode == 0, out.stderr
    assert "tls.weight" in out.stdout


@needs_zt
def test_curl_ca_bundle_comes_first(tls_server, tmp_path):
    url, cert = tls_server
    out = zt_info(url, CURL_CA_BUNDLE=cert, SSL_CERT_FILE=tmp_path / "missing.pem")
    assert out.returncode == 0, out.stderr
    out = zt_info(url, CURL_CA_BUNDLE=tmp_path / "missing.pem", SSL_CERT_FILE=cert)
    assert out.returncode != 0


@needs_zt
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root for a private mount namespace")
def test_distribution_bundle_found_when_the_default_is_absent(tls_server, tmp_path):
    """libcurl's compiled-in bundle (Debian's /etc/ssl/certs/ca-certificates.crt) is missing, as on
    Alpine or Arch: an empty tmpfs over /etc/ssl in a private mount namespace, with only
    /etc/ssl/cert.pem (that layout's bundle, here our certificate) in it."""
    url, cert = tls_server
    script = (f"mount -t tmpfs zt-test /etc/ssl && cp {shlex.quote(str(cert))} /etc/ssl/cert.pem && "
              f"exec {shlex.quote(ZT)} info {shlex.quote(url)}")
    env = {k: v for k, v in os.environ.items() if k not in CA_VARIABLES}
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "tls.weight" in out.stdout
