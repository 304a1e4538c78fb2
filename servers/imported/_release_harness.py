"""Run one release tool the way the release's own harness does, in a throwaway process.

Started by :mod:`.verify` as ``python -I -S _release_harness.py`` with one JSON job on stdin:
``{"tools": [{name, implementation}], "tool": name, "args": {...}, "home": DIR}``, where
``DIR/database`` is a fresh copy of the environment's data folder. Like the release's harness,
it sets ``MCP_DB_DIR`` to that copy, moves into ``DIR``, executes every implementation of the
environment into one shared namespace, calls the tool's function with the arguments and takes
its return value as is, on the real clock and real randomness. It prints one JSON line:
``{"status": "ok", "result": ...}`` or ``{"status": "exception", "detail": <type name>}``.

Sandboxing, which the release's harness does not do but which running foreign code here needs:
resource limits, a fresh network namespace when the kernel allows it, and an audit hook that
refuses sockets and new processes. Files are not fenced (the harness does not fence them
either); the process only ever sees a temporary copy, which the parent deletes.
"""

import json
import os
import re
import resource
import sys

_REFUSED = ("socket.", "subprocess.", "os.system", "os.exec", "os.fork", "os.posix_spawn",
            "os.spawn", "os.kill", "ctypes.", "pty.")
# Reading the host's name is not networking (email.utils.make_msgid asks for it).
_ALLOWED = frozenset({"socket.gethostname"})


def _limits() -> None:
    for kind, value in ((resource.RLIMIT_AS, 1 << 30), (resource.RLIMIT_CPU, 20),
                        (resource.RLIMIT_FSIZE, 64 << 20), (resource.RLIMIT_CORE, 0)):
        hard = resource.getrlimit(kind)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))


def _no_network() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for flags in (0x40000000, 0x40000000 | 0x10000000):  # NEWNET, then NEWNET|NEWUSER
            if libc.unshare(flags) == 0:
                return
    except Exception:
        pass


def _hook(event: str, args: tuple) -> None:
    if event.startswith(_REFUSED) and event not in _ALLOWED:
        raise PermissionError(f"harness sandbox: {event} is not allowed")


def main() -> None:
    job = json.loads(sys.stdin.read())
    out = os.dup(1)
    _no_network()
    _limits()
    home = job["home"]
    os.environ["MCP_DB_DIR"] = os.path.join(home, "database")
    os.chdir(home)
    sys.addaudithook(_hook)
    namespace = {"__name__": "chainenv"}
    for tool in job["tools"]:
        try:
            exec(tool["implementation"], namespace)
        except Exception:
            continue
    fn = namespace.get(re.sub(r"[^0-9A-Za-z_]", "_", job["tool"]))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the tool's own prints must not mix with the reply
    try:
        if not callable(fn):
            raise LookupError("no function for the tool")
        reply = {"status": "ok", "result": fn(**job["args"])}
        text = json.dumps(reply, ensure_ascii=False, default=str)
    except BaseException as exc:
        text = json.dumps({"status": "exception", "detail": type(exc).__name__})
    os.write(out, text.encode() + b"\n")


if __name__ == "__main__":
    main()
