"""A hub in its own process for one training or evaluation run.

``python -m agentworld.trainer.hub_process --envs ID|module:NAME ... [--task-dir DIR]`` builds
the run's catalog (the shipped, synthesized and imported environments, the generated task sets,
and any ``package.module:NAME`` definition), serves it on a free loopback port, and prints
``AGENTWORLD_HUB_URL=http://127.0.0.1:PORT`` on its first line of output once it answers.
:func:`spawn_hub` starts it and reads that line: the trainer then talks to the hub over HTTP,
and the hub's event loop never competes with the trainer for the interpreter.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import LaunchError

__all__ = ["build_catalog", "spawn_hub", "main"]

_PREFIX = "AGENTWORLD_HUB_URL="


def build_catalog(env_refs: Sequence[str], *, task_dir: str | Path | None = None):
    """``(catalog, ids)``: every environment the catalog knows plus the ``module:NAME``
    definitions among ``env_refs``; ``ids`` are the environments ``env_refs`` name.

    Raises:
        LaunchError: a ``module:NAME`` reference is not an environment definition.
    """
    from agentworld.servers import EnvironmentDefinition
    from agentworld.servers.catalog import Catalog
    from agentworld.servers.paths import task_dir as default_task_dir
    from agentworld.servers.paths import template_dir

    tasks = Path(task_dir) if task_dir else default_task_dir()
    # Generated task sets are made on first use and cached there, as the CLI's catalog does:
    # a fresh machine has no cache yet, and its catalog environments still have tasks.
    catalog = Catalog(world=True, cache_dir=template_dir(), task_dir=tasks)
    ids = []
    for ref in env_refs:
        if ":" not in ref:
            ids.append(ref)
            continue
        module_name, _, attr = ref.partition(":")
        definition = getattr(importlib.import_module(module_name), attr, None)
        if not isinstance(definition, EnvironmentDefinition):
            raise LaunchError(f"{ref} is not an EnvironmentDefinition")
        catalog.add(definition)
        ids.append(definition.manifest.id)
    return catalog, ids


def _child_env() -> dict[str, str]:
    # The child must import the same `module:NAME` definitions: give it this process's path.
    paths = [p for p in sys.path if p] + [os.getcwd()]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


@contextlib.contextmanager
def spawn_hub(env_refs: Sequence[str], *, task_dir: str | Path | None = None,
              max_sessions: int = 1024, timeout: float = 120.0) -> Iterator[str]:
    """Start a hub process for ``env_refs`` and yield its URL; stop it on exit.

    Raises:
        LaunchError: the hub exited, or did not answer within ``timeout`` seconds.
    """
    cmd = [sys.executable, "-m", "agentworld.trainer.hub_process", "--max-sessions",
           str(max_sessions), "--envs", *env_refs]
    if task_dir:
        cmd += ["--task-dir", str(task_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=_child_env())
    try:
        yield _read_url(proc, timeout)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _read_url(proc: subprocess.Popen, timeout: float) -> str:
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    text = line[0].strip() if line else ""
    if not text.startswith(_PREFIX):
        raise LaunchError(f"the hub process did not start (exit status {proc.poll()}; "
                          f"said {text!r})")
    return text.removeprefix(_PREFIX)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentworld.trainer.hub_process")
    parser.add_argument("--envs", nargs="+", default=[])
    parser.add_argument("--task-dir")
    parser.add_argument("--max-sessions", type=int, default=1024)
    args = parser.parse_args(argv)
    from .hub_runner import serve_hub

    try:
        catalog, _ = build_catalog(args.envs, task_dir=args.task_dir)
    except (LaunchError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    with serve_hub(catalog, max_sessions=args.max_sessions) as url:
        print(_PREFIX + url, flush=True)
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass
    return 0


def _interrupt(*_args) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    import signal

    # terminate() sends SIGTERM: leave through the context managers, so the server shuts down.
    signal.signal(signal.SIGTERM, _interrupt)
    sys.exit(main())
