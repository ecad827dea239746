"""Loopback HTTP servers for the remote-read tests.

nginx: the real range server (Debian nginx-light), started on a free port
with a config written to a temp dir, its access log recording each request's
Range header, status and bytes sent. FaultServer: a tiny threaded
http.server handler that serves ranges but can ignore Range, answer 503 a
given number of times, or change the ETag after some requests.

A server writes a request's log line after it has sent the response, so a
test that reads the log at once can miss the last lines. Nginx and MotoS3
read their logs behind a sentinel: a request to a path of their own, made
after the requests under test, whose line is waited for (bounded); every
line before it is then written. Sentinel lines are left out of requests().
"""

import http.client
import http.server
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from _waits import EVENT_SECONDS, wait_until

# How long a server may take to accept connections before the fixture fails:
# moto's imports alone took 10-20 s on a loaded 2-core machine.
STARTUP_SECONDS = EVENT_SECONDS
# Starts of a server on ports picked by free_port(): another process may take
# a port between the pick and the server's bind (any outgoing connection can
# be given it), and then the server fails or another one answers there.
START_ATTEMPTS = 3

NGINX_CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 64; }}
http {{
    log_format ranges '$request|$http_range|$status|$bytes_sent';
    access_log {tmp}/access.log ranges{log_buffer};
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    types {{ }}
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{port}{tls};
        listen 127.0.0.1:{control_port};
        root {root};
        location ^~ {sentinel} {{ return 204; }}
    }}
}}
"""
# Requests to this path prefix mark a point in a server's log (see above).
SENTINEL_PATH = "/.zt-log-sentinel/"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc=None):
    def listening():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    try:
        wait_until(listening, f"listening on 127.0.0.1:{port}", STARTUP_SECONDS, proc)
    except AssertionError as e:
        raise RuntimeError(str(e)) from None


def start_listening(launch, what):
    """launch() starts a server on fresh ports and returns (process, port,
    its stderr log, a callable that requests a sentinel and waits for its log
    line). Returns the process once it listens and has logged that request,
    so the port is its own and not another server's; otherwise starts it
    again on other ports, START_ATTEMPTS times in all."""
    for attempt in range(1, START_ATTEMPTS + 1):
        proc, port, log, mark = launch()
        try:
            wait_listening(port, proc)
            mark(proc)
            return proc
        except (RuntimeError, AssertionError, OSError, http.client.HTTPException) as e:
            stop_process(proc, signal.SIGTERM)
            if attempt == START_ATTEMPTS:
                text = log.read_text(errors="replace") if log.exists() else ""
                raise RuntimeError(f"{what} did not start ({e}): {text}") from None


def stop_process(proc, signo):
    if proc.poll() is None:
        proc.send_signal(signo)
        try:
            proc.wait(timeout=STARTUP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def mark_log(url, log_path, proc=None, seconds=STARTUP_SECONDS):
    """Requests `url` (a sentinel path of the server), then waits until its
    line is in the log at `log_path` (or `proc` exits): the server has
    written every line of the requests answered before it."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
    try:
        direct.open(url, timeout=seconds).close()
    except urllib.error.HTTPError:
        pass  # an error status is logged too
    tag = urllib.request.urlparse(url).path + " "

    def logged():
        return log_path.exists() and tag in log_path.read_text(errors="replace")

    wait_until(logged, f"the sentinel request {tag.strip()} in {log_path}", seconds, proc)


def sentinel_tag():
    return SENTINEL_PATH + uuid.uuid4().hex


def make_tls_cert(tmp: Path):
    """A throwaway CA and a certificate for 127.0.0.1 signed by it, made with
    the openssl command (Debian). Returns (ca.pem, cert.pem, key.pem)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ca, ca_key, cert, key, csr = (tmp / n for n in ("ca.pem", "ca.key", "cert.pem", "key.pem", "cert.csr"))
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=zTensor test CA")
    run("req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1")
    ext = tmp / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
        "-extfile", ext)
    return ca, cert, key


class Nginx:
    """nginx serving `root` on 127.0.0.1 (over TLS when given `tls=(cert,
    key)`); `requests()` parses its access log. Its one worker also listens
    on a plain-HTTP control port for the sentinel requests, so they need
    no certificate. `late_log` buffers the log (lines written up to a second
    late): the tests of requests() itself use it."""

    def __init__(self, root: Path, tmp: Path, tls=None, late_log=False):
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        self.root, self.tmp = root, tmp
        self.scheme = "https" if tls else "http"
        tls_conf = f" ssl;\n        ssl_certificate {tls[0]};\n        ssl_certificate_key {tls[1]}" if tls else ""
        conf = tmp / "nginx.conf"

        def launch():
            self.port = free_port()
            self.control_port = next(p for p in iter(free_port, None) if p != self.port)
            conf.write_text(NGINX_CONF.format(tmp=tmp, root=root, port=self.port, tls=tls_conf,
                                              control_port=self.control_port, sentinel=SENTINEL_PATH,
                                              log_buffer=" buffer=4k flush=1s" if late_log else ""))
            with open(tmp / "stderr.log", "wb") as err:  # nginx keeps its own descriptor
                proc = subprocess.Popen([exe, "-c", str(conf), "-p", str(tmp), "-e", str(tmp / "startup.log")],
                                        stdout=subprocess.DEVNULL, stderr=err)
            return proc, self.port, tmp / "stderr.log", self._mark_log

        self.proc = start_listening(launch, "nginx")

    def url(self, name):
        return f"{self.scheme}://127.0.0.1:{self.port}/{name}"

    def _mark_log(self, proc=None):
        mark_log(f"http://127.0.0.1:{self.control_port}{sentinel_tag()}", self.tmp / "access.log", proc)

    def requests(self):
        """[(request line, Range header, status, bytes sent)] of every request
        answered so far, in order."""
        self._mark_log()
        out = []
        for line in (self.tmp / "access.log").read_text().splitlines():
            request, rng, status, sent = line.rsplit("|", 3)
            if SENTINEL_PATH not in request:
                out.append((request, rng, int(status), int(sent)))
        return out

    def clear_log(self):
        # The lines of requests answered so far first, or they would land
        # after the cut. nginx keeps the file open (O_APPEND): truncate it in place.
        self._mark_log()
        with open(self.tmp / "access.log", "r+") as f:
            f.truncate(0)

    def stop(self):
        stop_process(self.proc, signal.SIGQUIT)


RANGE = re.compile(r"bytes=(\d+)-(\d+)$")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


class FaultServer:
    """Serves one in-memory file at /<name> with faults set by attributes:
    ignore_range (always 200 with the whole body), fail_first (answer 503
    this many times first), drop_first (send half the body of this many
    replies, then close the connection), change_etag_after (serve a new ETag
    from that request on), shift_range (answer ranges starting this many
    bytes late, with a truthful Content-Range), grow_after (from that
    request on, the file has grown by one byte), fail_status (the status of
    the fail_first replies, 503 by default) with retry_after (their
    Retry-After header), validators (False: no ETag, no Last-Modified),
    swap_after/swapped (from that request on, serve `swapped` instead),
    trickle (send bodies at this many bytes per second). /moved answers 302
    with Location `moved_to` (default: the file). `served` counts requests.
    Listens on `host` (port `port`, 0: any free one), over TLS with
    `tls=(cert, key)`."""

    def __init__(self, name, data, host="127.0.0.1", port=0, tls=None):
        self.name, self.data = name, data
        self.ignore_range = False
        self.fail_first = 0
        self.fail_status = 503
        self.retry_after = None
        self.validators = True
        self.swap_after = None
        self.swapped = None
        self.trickle = None
        self.drop_first = 0
        self.change_etag_after = None
        self.shift_range = 0
        self.grow_after = None
        self.moved_to = None
        self.served = 0
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                with server.lock:
                    server.served += 1
                    n = server.served
                    fail = server.fail_first > 0
                    if fail:
                        server.fail_first -= 1
                if fail:
                    self.send_response(server.fail_status)
                    if server.retry_after is not None:
                        self.send_header("Retry-After", str(server.retry_after))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path.split("?")[0] == "/moved":
                    self.send_response(302)
                    self.send_header("Location", server.moved_to or "/" + server.name)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path != "/" + server.name:
                    self.send_error(404)
                    return
                changed = server.change_etag_after is not None and n > server.change_etag_after
                etag = '"v2"' if changed else '"v1"'
                data = server.data
                if server.swap_after is not None and n > server.swap_after:
                    data = server.swapped
                if server.grow_after is not None and n > server.grow_after:
                    data = data + b"\0"
                m = RANGE.match(self.headers.get("Range", ""))
                if server.ignore_range or not m:
                    self.send_response(200)
                    body = data
                else:
                    a = min(int(m.group(1)) + server.shift_range, len(data) - 1)
                    b = min(int(m.group(2)) + server.shift_range, len(data) - 1)
                    body = data[a:b + 1]
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {a}-{b}/{len(data)}")
                if server.validators:
                    self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with server.lock:
                    drop = server.drop_first > 0 and len(body) > 1
                    if drop:
                        server.drop_first -= 1
                if drop:
                    self.wfile.write(body[:len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                try:
                    if server.trickle:
                        server._send_slowly(self.wfile, body)
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading a body it did not ask for

        self.httpd = http.server.ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        if tls:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls else "http"
        self.host = host
        self.port = self.httpd.server_address[1]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def _send_slowly(self, out, body):
        """`body` at `trickle` bytes per second, in 256-byte writes, until done or stopped."""
        step = 256
        for i in range(0, len(body), step):
            out.write(body[i:i + step])
            out.flush()
            if self.stopping.wait(step / self.trickle):
                return

    def url(self, path=None):
        return f"{self.scheme}://{self.host}:{self.port}/{self.name if path is None else path}"

    def stop(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class SilentServer:
    """A TCP listener on 127.0.0.1 that never answers. accept=True: it
    accepts each connection and holds it open, reading nothing (a server
    hung after accept). accept=False: its one-slot accept queue is filled
    at start and never drained, so the kernel drops every later SYN and a
    client's connect hangs (a host that does not answer)."""

    def __init__(self, accept=True):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.accepted = threading.Event()
        self.sock.listen(0 if not accept else 16)
        if accept:
            self.thread = threading.Thread(target=self._accept, daemon=True)
            self.thread.start()
        else:
            filler = socket.create_connection(("127.0.0.1", self.port), timeout=STARTUP_SECONDS)
            self.held.append(filler)

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed by stop()
            self.held.append(conn)
            self.accepted.set()

    def url(self, name="m.zt"):
        return f"http://127.0.0.1:{self.port}/{name}"

    def stop(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        for conn in self.held:
            conn.close()


class MotoS3:
    """moto's S3 server on 127.0.0.1 (moto[server]); its stderr log records
    each request line and status, so ranged GETs can be checked. `env`: extra
    environment for the server (INITIAL_NO_AUTH_ACTION_COUNT=N makes it check
    credentials after N requests, as S3 does)."""

    # Credentials the tests hand over explicitly (moto accepts any until it checks).
    KEY, SECRET, REGION = "zt-test-key", "zt-test-secret", "us-east-1"

    def __init__(self, tmp: Path, env=None):
        import sys

        self.log_path = tmp / "moto.log"

        def launch():
            self.port = free_port()
            with open(self.log_path, "wb") as log:  # the server keeps its own descriptor
                proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=log, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(env or {})})
            return proc, self.port, self.log_path, lambda proc: mark_log(self.endpoint + sentinel_tag(),
                                                                          self.log_path, proc)

        self.proc = start_listening(launch, "moto")

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def storage_options(self, **extra):
        """s3fs options reaching this server with explicit credentials (no environment needed)."""
        return {"key": self.KEY, "secret": self.SECRET, "endpoint_url": self.endpoint,
                "client_kwargs": {"region_name": self.REGION}, **extra}

    def client(self):
        """A boto3 S3 client for this server with the same credentials."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.KEY,
                            aws_secret_access_key=self.SECRET, region_name=self.REGION)

    def bucket(self, name, versioned=False):
        """Create bucket `name` (with versioning when asked); returns the client."""
        s3 = self.client()
        s3.create_bucket(Bucket=name)
        if versioned:
            s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        return s3

    def requests(self):
        """[(request line, status)] of the access log, every request answered
        so far included (sentinel: a GET of a bucket that does not exist)."""
        mark_log(self.endpoint + sentinel_tag(), self.log_path)
        out = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            # werkzeug colours some request lines (ANSI escapes) depending on its version and the
            # packages beside it; the project venv's set does.
            line = ANSI_ESCAPE.sub("", line)
            m = re.search(r'"((?:GET|HEAD|PUT|POST) [^"]*)" (\d{3})', line)
            if m and SENTINEL_PATH not in m.group(1):
                out.append((m.group(1), int(m.group(2))))
        return out

    def stop(self):
        stop_process(self.proc, signal.SIGTERM)
