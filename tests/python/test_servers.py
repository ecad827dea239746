"""The loopback servers' request logs (_servers.py) hold every request that
was answered before requests() is called, although a server writes a line
after its response: nginx with a buffered access log (lines up to a second
late) makes that gap long enough to be met every time."""

import urllib.request

from _servers import Nginx

DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def test_nginx_requests_include_lines_the_server_writes_late(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "f").write_bytes(b"x" * 1000)
    (tmp_path / "nginx").mkdir()
    server = Nginx(root, tmp_path / "nginx", late_log=True)
    try:
        for n in range(1, 4):
            DIRECT.open(server.url("f")).read()
            assert [(line, status) for line, _, status, _ in server.requests()] == [("GET /f HTTP/1.1", 200)] * n
        DIRECT.open(server.url("f")).read()
        server.clear_log()  # after the last answered request's line, not before it
        assert server.requests() == []
    finally:
        server.stop()
