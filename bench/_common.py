"""Shared helpers of the benchmarks: timing statistics, tables, JSON results, and servers
started as subprocesses on free loopback ports (a client must never share a server's GIL)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
PYTHON = sys.executable

# A cheap read (a key lookup) per reference environment: the step every mode repeats. Its
# arguments come from the environment's own EXAMPLE_CALLS, so they stay valid as seeds change.
STEP_TOOLS = {"airline": "get_flight", "github": "get_collaborator_permission",
              "notion": "list_members"}


def step_action(env_id: str) -> dict[str, Any]:
    import importlib

    module = importlib.import_module(f"agentworld.servers.envs.{env_id}")
    name = STEP_TOOLS[env_id]
    arguments = next(args for tool, args in module.EXAMPLE_CALLS if tool == name)
    return {"name": name, "arguments": arguments}


def pct(samples: Sequence[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary_ms(samples: Sequence[float]) -> dict[str, float]:
    """p50/p99/mean in milliseconds of samples given in seconds."""
    return {"n": len(samples), "p50_ms": pct(samples, 50) * 1e3, "p99_ms": pct(samples, 99) * 1e3,
            "mean_ms": (sum(samples) / len(samples) * 1e3) if samples else float("nan")}


def timed(fn, n: int, warmup: int = 5) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "-"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}"
    return str(value)


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [f"\n## {title}", line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    text = "\n".join(out)
    print(text, flush=True)
    return text


def write_result(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, default=str))
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> float:
    """Poll ``url`` until it answers 2xx; returns the seconds it took."""
    start = time.perf_counter()
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 300:
                    return time.perf_counter() - start
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before answering {url}")
        if time.perf_counter() - start > timeout:
            raise TimeoutError(url)
        time.sleep(0.01)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


@contextlib.contextmanager
def server_process(args: Sequence[str], health_path: str = "/healthz",
                   port: int | None = None, tree: Path | None = None
                   ) -> Iterator[tuple[str, subprocess.Popen]]:
    """Run ``python <args> --port P`` and yield (base URL, process) once ``health_path`` answers.
    ``tree``: import agentworld from there (bench/_baseline.py) instead of the working tree."""
    port = port or free_port()
    env = child_env()
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env["PYTHONPATH"]])
    # Run from the tree's folder: ``-m`` puts the working directory first on sys.path.
    proc = subprocess.Popen([PYTHON, *args, "--port", str(port)], cwd=tree or ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + health_path, proc=proc)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def hub_process(max_sessions: int = 2048, extra: Sequence[str] = (), tree: Path | None = None):
    with server_process(["-m", "agentworld", "hub", "--max-sessions", str(max_sessions),
                         "--log-level", "warning", *extra], tree=tree) as (base, proc):
        yield base, proc


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks
