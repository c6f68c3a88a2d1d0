"""The local server lets in only its own pages (issue #31, item 6): a request whose Host is
another site's name (DNS rebinding) is 403, a POST whose Origin is another site is 403, and
the API takes ``application/json`` only (415), so a page of another website that the user
visits cannot make ``chancekit serve`` compute. Raw sockets, so every header is ours."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from bench_web import server as _server
from chancekit.web.app import host_allowed, origin_allowed

BODY = json.dumps({"expressions": ["3d6"]}).encode()


def _send(url: str, method: str, path: str, headers: dict[str, str],
          body: bytes = b"") -> tuple[int, dict]:
    u = urlsplit(url)
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in
                                                   headers.items())
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with socket.create_connection((u.hostname, u.port), timeout=60) as sock:
        sock.sendall(head.encode("latin-1") + body)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    status = int(raw.split(b" ", 2)[1])
    text = raw.split(b"\r\n\r\n", 1)[1]
    return status, (json.loads(text) if text.strip().startswith(b"{") else {})


def test_the_pages_own_requests_are_answered(server_url: str) -> None:
    host = urlsplit(server_url).netloc
    status, body = _send(server_url, "POST", "/api/dist",
                         {"Host": host, "Origin": f"http://{host}",
                          "Content-Type": "application/json; charset=utf-8"}, BODY)
    assert status == 200 and body["series"][0]["mean"] == "21/2"
    # curl and scripts send no Origin: answered
    assert _send(server_url, "POST", "/api/dist", {"Host": host,
                                                   "Content-Type": "application/json"},
                 BODY)[0] == 200
    assert _send(server_url, "GET", "/", {"Host": f"localhost:{urlsplit(server_url).port}"}
                 )[0] == 200


@pytest.mark.parametrize("method, path, extra", [
    ("GET", "/", {}),
    ("GET", "/api/version", {}),
    ("POST", "/api/dist", {"Content-Type": "application/json"}),
    ("POST", "/api/tune", {"Content-Type": "application/json"}),
])
def test_a_foreign_host_is_refused(server_url: str, method: str, path: str,
                                   extra: dict[str, str]) -> None:
    port = urlsplit(server_url).port
    for host in (f"attacker.example:{port}", "rebind.127.0.0.1.nip.io", "LOCALHOST.evil"):
        status, body = _send(server_url, method, path, {"Host": host, **extra},
                             BODY if method == "POST" else b"")
        assert status == 403, (host, path)
        assert body["error"]["type"] == "Forbidden"
        assert "allow-host" in body["error"]["message"]


@pytest.mark.parametrize("origin", ["https://evil.example", "null",
                                    "http://127.0.0.1:1", "http://localhost.evil"])
def test_a_foreign_origin_is_refused(server_url: str, origin: str) -> None:
    host = urlsplit(server_url).netloc
    for path, ctype in (("/api/dist", "application/json"), ("/api/tune", "text/plain")):
        status, body = _send(server_url, "POST", path,
                             {"Host": host, "Origin": origin, "Content-Type": ctype}, BODY)
        assert status == 403, (origin, path)
        assert body["error"]["type"] == "Forbidden"
    assert _send(server_url, "DELETE", "/api/jobs/x", {"Host": host, "Origin": origin}
                 )[0] == 403


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded",
                                   "multipart/form-data; boundary=x", None])
def test_the_api_takes_json_only(server_url: str, ctype: str | None) -> None:
    host = urlsplit(server_url).netloc
    headers = {"Host": host} | ({"Content-Type": ctype} if ctype else {})
    for path in ("/api/dist", "/api/anydice", "/api/tune"):
        status, body = _send(server_url, "POST", path, headers, BODY)
        assert status == 415, (ctype, path)
        assert "application/json" in body["error"]["message"]


def test_allow_host_lets_a_name_in() -> None:
    with _server("--workers", "1", "--allow-host", "dice.lan") as url:
        port = urlsplit(url).port
        status, _ = _send(url, "POST", "/api/dist", {
            "Host": f"dice.lan:{port}", "Origin": f"http://dice.lan:{port}",
            "Content-Type": "application/json"}, BODY)
        assert status == 200
        assert _send(url, "GET", "/", {"Host": f"other.lan:{port}"})[0] == 403


def test_the_checks_themselves() -> None:
    allowed = frozenset({"dice.lan"})
    assert host_allowed("DICE.LAN:80", allowed) and host_allowed("10.0.0.5", allowed)
    assert not host_allowed("dice.lan.evil:80", allowed)
    assert not host_allowed("[::1", allowed) and not host_allowed(":80", allowed)
    assert origin_allowed("http://[::1]:8000", "[::1]:8000")
    assert not origin_allowed("http://[::1]:8001", "[::1]:8000")
    assert not origin_allowed("http://[bad", "x")
