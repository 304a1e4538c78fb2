"""A real local simple index (PEP 691 JSON) on 127.0.0.1:0, serving files from one folder."""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _handler(folder: Path, hashes: dict[str, str]):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:   # keep the test output clean
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = [p for p in self.path.split("/") if p]
            if len(parts) == 2 and parts[0] == "simple":
                project = parts[1]
                files = [{"filename": p.name, "url": f"/files/{p.name}",
                          "hashes": {"sha256": hashes.get(p.name) or
                                     hashlib.sha256(p.read_bytes()).hexdigest()}}
                         for p in sorted(folder.iterdir())
                         if p.name.lower().replace("_", "-").startswith(project + "-")]
                if not files:
                    self._send(404, b"{}", "application/json")
                    return
                body = json.dumps({"meta": {"api-version": "1.0"}, "name": project, "files": files})
                self._send(200, body.encode(), "application/vnd.pypi.simple.v1+json")
            elif len(parts) == 2 and parts[0] == "files" and (folder / parts[1]).is_file():
                self._send(200, (folder / parts[1]).read_bytes(), "application/octet-stream")
            else:
                self._send(404, b"", "text/plain")

    return Handler


@contextmanager
def simple_index(folder: Path, hashes: dict[str, str] | None = None):
    """Serve ``folder`` as ``http://127.0.0.1:<port>/simple``; ``hashes`` may lie on purpose."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(folder, hashes or {}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
