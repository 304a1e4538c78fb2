"""The hub killed with SIGKILL mid-load restarts and serves, with its templates intact.

A real ``python -m agentworld hub`` subprocess serves a load of resets and writing steps; it is
killed without warning, started again, and must answer with the same template and content
hashes for every environment. The hub writes no files (sessions are in-memory copies), so the
working directory stays empty and the environments' data files are byte-identical.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENVS_DIR = ROOT / "servers" / "envs"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


REFERENCE = ["airline", "github", "notion"]


def _get(url: str, timeout: float = 60) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _start(cwd: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentworld", "hub", "--port", str(port),
                             "--log-level", "warning"], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            _get(base + "/healthz", timeout=1)
            return proc, base
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the hub did not start") from None
            time.sleep(0.05)


def _hashes(base: str, env_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Per environment: its content hash, and the database hash a fresh session starts from."""
    out = {}
    for env_id in env_ids:
        described = _get(f"{base}/v1/envs/{env_id}")
        sid = _post(f"{base}/v1/sessions", {"env_id": env_id})["session_id"]
        out[env_id] = (described["content_hash"], _get(f"{base}/v1/sessions/{sid}")["db_hash"])
    return out


def _data_files() -> dict[str, str]:
    return {str(p.relative_to(ENVS_DIR)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(ENVS_DIR.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _load(base: str, stop: threading.Event, served: list[int]) -> None:
    write = {"name": "create_issue", "arguments": {"repo": "harborline/web-app",
                                                   "title": "load", "body": "x"}}
    while not stop.is_set():
        try:
            sid = _post(f"{base}/v1/sessions", {"env_id": "github"})["session_id"]
            _post(f"{base}/v1/sessions/{sid}/step", {"action": write})
            served.append(1)
        except (OSError, http.client.HTTPException, ValueError):
            # The hub is gone: refused, reset, or killed mid-response (a cut status line or
            # body raises HTTPException, a cut JSON body ValueError).
            return


def test_sigkill_mid_load_then_restart_serves_identical_templates(tmp_path):
    files_before = _data_files()
    proc, base = _start(tmp_path)
    try:
        # The reference environments and one synthesized one: describing an environment builds
        # its template and its tasks (seconds each for synthesized ones), so not the whole page.
        world = [e["id"] for e in _get(f"{base}/v1/envs?limit=10")["envs"]
                 if e["id"] not in REFERENCE][:1]
        env_ids = [*REFERENCE, *world]
        before = _hashes(base, env_ids)
        stop, served = threading.Event(), []
        workers = [threading.Thread(target=_load, args=(base, stop, served)) for _ in range(4)]
        for worker in workers:
            worker.start()
        deadline = time.monotonic() + 20
        while len(served) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served, "the load never got through"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        stop.set()
        for worker in workers:
            worker.join(10)
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    proc, base = _start(tmp_path)
    try:
        after = _hashes(base, env_ids)
        assert _get(base + "/healthz")["sessions"] == len(env_ids)  # only _hashes' sessions
    finally:
        proc.terminate()
        proc.wait(10)
    assert after == before
    assert _data_files() == files_before
    assert list(tmp_path.iterdir()) == []  # nothing was written, so nothing can be corrupt
