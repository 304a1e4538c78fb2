"""The sandboxed worker: runs imported tool code, one call at a time, for a parent pool.

Started as a plain script (``python -P -s -S -B _worker.py CONFIG``) so it imports nothing but
the standard library: no agentworld code and no site-packages live inside the sandbox. The
protocol is one JSON object per line on stdin (requests) and on a private copy of stdout
(replies); the tool's own prints go nowhere.

What it enforces on itself before the first call, in this order (see ``docs`` in the package):

1. a fresh network namespace (``unshare(CLONE_NEWNET)``) when the kernel allows it;
2. resource limits: address space, file size, open files, no core dumps; CPU per call;
3. a fixed clock; seeded ``random``, ``os.urandom``, ``secrets`` and uuids per session and call;
4. an audit hook that refuses sockets, processes, native code, frame and gc introspection,
   threads, and every file operation outside the current call's session folder.

The hook is a speed bump, not a wall (PEP 578 says as much): the parent also enforces the wall
clock by killing the worker, and restores the session folder after any failed call.
"""

import datetime as _dt
import hashlib
import io
import json
import os
import random
import resource
import sys
import time
import uuid

# Preloaded so that tool code never has to read a module from disk once the hook is in place,
# and so that pure modules which import a refused one at load time (``email.utils`` imports
# ``socket``) are usable: the refused module is dropped from sys.modules afterwards, so tool
# code cannot import it, and its functions stay refused by the audit hook.
_PRELOAD = ("collections", "copy", "dataclasses", "decimal", "enum", "fnmatch", "fractions",
            "functools", "glob", "heapq", "itertools", "logging", "math", "operator", "pathlib",
            "re", "shutil", "statistics", "string", "textwrap", "typing", "unicodedata",
            "bisect", "calendar", "zoneinfo", "traceback", "threading", "base64", "difflib",
            "csv", "secrets", "hmac", "html", "ipaddress", "urllib.parse", "quopri", "binascii",
            "struct", "pprint", "numbers", "contextlib", "locale", "email", "email.utils",
            "email.message", "email.parser", "email.policy", "email.generator", "email.header",
            "email.headerregistry", "email.feedparser", "email.charset", "email.encoders",
            "email.contentmanager", "email.iterators", "email.errors", "email.mime.text",
            "email.mime.multipart", "email.mime.base", "email.mime.application",
            "email.mime.nonmultipart", "email._header_value_parser", "mimetypes")
_DENY_MODULES = frozenset({
    "ctypes", "_ctypes", "cffi", "_posixsubprocess", "subprocess", "socket", "_socket", "ssl",
    "_ssl", "select", "selectors", "asyncio", "multiprocessing", "_multiprocessing", "mmap",
    "pty", "fcntl", "resource", "signal", "_signal", "gc", "_xxsubinterpreters", "ftplib",
    "smtplib", "webbrowser"})
_DENY_EVENTS = ("socket.", "subprocess.", "ctypes.", "gc.", "os.fork", "os.exec", "os.posix_spawn",
                "os.spawn", "os.system", "os.kill", "os.killpg", "os.link", "os.symlink",
                "os.chown", "os.setxattr", "os.removexattr", "os.chflags", "os.lchflags", "pty.",
                "resource.", "sys.addaudithook", "sys.settrace", "sys.setprofile",
                "sys._getframe", "sys._current_frames", "sys.remote_exec", "mmap.",
                "sqlite3.enable_load_extension", "sqlite3.load_extension", "builtins.input",
                "signal.", "webbrowser.", "urllib.", "http.", "ftplib.", "smtplib.",
                "cpython.run_", "sandbox.")
_FRAME_ATTRS = frozenset({"tb_frame", "f_back", "gi_frame", "cr_frame", "ag_frame", "f_globals",
                          "f_locals", "f_builtins", "gi_code", "f_code"})
# Events whose first argument is a path, and whether they change the folder.
_PATH_EVENTS = {"os.listdir": False, "os.scandir": False, "glob.glob": False, "os.chdir": False,
                "sqlite3.connect": True, "os.mkdir": True, "os.rmdir": True, "os.remove": True,
                "os.truncate": True, "os.utime": True, "os.chmod": True, "shutil.rmtree": True,
                "shutil.copyfile": True, "shutil.copytree": True, "shutil.move": True,
                "shutil.make_archive": True, "shutil.unpack_archive": True, "os.rename": True}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class SandboxViolation(PermissionError):
    """Raised inside tool code when it reaches for something the sandbox refuses."""


def _unshare_network() -> bool:
    """Move into a fresh, empty network namespace if the kernel lets us (root, or user ns)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for flags in (0x40000000, 0x40000000 | 0x10000000):  # NEWNET, then NEWNET|NEWUSER
            if libc.unshare(flags) == 0:
                return True
    except Exception:
        pass
    finally:
        for name in ("ctypes", "ctypes._endian", "_ctypes"):
            sys.modules.pop(name, None)
    return False


def _set_limits(config: dict) -> None:
    def cap(kind: int, value: int) -> None:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))

    cap(resource.RLIMIT_AS, config["memory_bytes"])
    cap(resource.RLIMIT_FSIZE, config["max_file_bytes"])
    cap(resource.RLIMIT_NOFILE, 64)
    cap(resource.RLIMIT_CORE, 0)


def _cpu_budget(seconds: int) -> None:
    # RLIMIT_CPU counts the whole process life, so each call gets "used so far + budget".
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime) + seconds
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class _Call:
    """What the patched clock and ids read. Not security state: that lives in the hook."""

    now: float = 0.0
    seed: str = ""
    uuids: int = 0
    random_draws: int = 0


def _install_determinism(call: type) -> None:
    real_datetime, real_date = _dt.datetime, _dt.date

    class FixedDatetime(real_datetime):
        @classmethod
        def now(cls, tz=None):
            return cls.fromtimestamp(call.now, tz)

        @classmethod
        def utcnow(cls):
            return cls.fromtimestamp(call.now, _dt.UTC).replace(tzinfo=None)

        @classmethod
        def today(cls):
            return cls.fromtimestamp(call.now)

    class FixedDate(real_date):
        @classmethod
        def today(cls):
            return real_datetime.fromtimestamp(call.now).date()

    def uuid4() -> uuid.UUID:
        call.uuids += 1
        digest = hashlib.blake2b(f"{call.seed}:{call.uuids}".encode(), digest_size=16).digest()
        return uuid.UUID(bytes=digest, version=4)

    def urandom(size: int) -> bytes:
        # ``secrets`` draws through random.SystemRandom, which reads random._urandom.
        call.random_draws += 1
        out, block = b"", 0
        while len(out) < size:
            block += 1
            out += hashlib.blake2b(f"{call.seed}:urandom:{call.random_draws}:{block}".encode(),
                                   digest_size=64).digest()
        return out[:size]

    import random as random_module

    os.urandom = urandom
    random_module._urandom = urandom
    os.getpid = lambda: 4242  # email.utils.make_msgid mixes the pid into ids
    real_localtime, real_gmtime = time.localtime, time.gmtime
    time.time = lambda: call.now
    time.time_ns = lambda: int(call.now * 1e9)
    # Elapsed-time measurements inside one call read 0, as the clock stands still.
    time.perf_counter = time.monotonic = lambda: call.now
    time.perf_counter_ns = time.monotonic_ns = lambda: int(call.now * 1e9)
    time.localtime = lambda secs=None: real_localtime(call.now if secs is None else secs)
    time.gmtime = lambda secs=None: real_gmtime(call.now if secs is None else secs)
    _dt.datetime, _dt.date = FixedDatetime, FixedDate
    uuid.uuid4 = uuid4
    uuid.uuid1 = lambda node=None, clock_seq=None: uuid4()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def _install_hook(secret: str, readable: tuple, protocol_fds: frozenset) -> None:
    """Install the audit hook. Its state (the session folder, what was touched, what was
    refused) lives only in this closure, which tool code cannot reach: hooks are not listable,
    and frames and gc are refused. The harness drives it with ``agentworld.*`` events that
    carry ``secret``."""
    state: dict = {"root": None, "touched": set(), "violations": []}

    def refuse(event: str, what: str):
        if state["root"] is not None:
            state["violations"].append(f"{event}: {what}"[:300])
        raise SandboxViolation(f"sandbox: {event} is not allowed ({what})"[:300])

    def check_path(event: str, path, write: bool) -> None:
        if isinstance(path, int):
            if path in protocol_fds:
                refuse(event, f"fd {path}")
            return
        try:
            real = os.path.realpath(os.fsdecode(path))
        except Exception:
            refuse(event, "unreadable path")
        root = state["root"]
        if root is not None and _inside(real, root):
            if write:
                state["touched"].add(os.path.relpath(real, root))
            return
        if not write and any(_inside(real, d) for d in readable) and "-packages" not in real:
            return
        refuse(event, real)

    def control(event: str, args: tuple) -> None:
        if len(args) != 2 or args[0] != secret:
            refuse(event, "forged control event")
        if event == "agentworld.begin":
            state.update(root=args[1], touched=set(), violations=[])
        else:  # agentworld.end: hand over what this call did
            args[1].update(touched=sorted(state["touched"]), violations=state["violations"][:20])
            state["root"] = None

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            write = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            check_path(event, path, write)
        elif event in _PATH_EVENTS:
            two = event in ("os.rename", "shutil.move", "shutil.copyfile", "shutil.copytree")
            for path in args[:2] if two else args[:1]:
                check_path(event, path, _PATH_EVENTS[event])
        elif event.startswith("agentworld."):
            control(event, args)
        elif event == "import":
            if args[0].partition(".")[0] in _DENY_MODULES:
                refuse(event, args[0])
        elif event == "object.__getattr__":
            if args[1] in _FRAME_ATTRS:
                refuse(event, args[1])
        elif event == "resource.setrlimit" and state["root"] is None:
            return  # the harness sets the next call's CPU budget between calls
        elif event.startswith(_DENY_EVENTS):
            refuse(event, event)

    sys.addaudithook(hook)


class _NoNetwork:
    """What ``email.utils`` may still ask of ``socket``: a fixed host name, nothing else."""

    @staticmethod
    def getfqdn(name: str = "") -> str:
        return "localhost"

    @staticmethod
    def gethostname() -> str:
        return "localhost"


def _stub_hostname() -> None:
    sys.modules["email.utils"].socket = _NoNetwork
    sys.modules["mimetypes"].init()  # reads the system's type maps now, before the hook


def _harden_runtime() -> None:
    import _thread
    import logging
    import threading

    def no_threads(*_a, **_k):
        sys.audit("sandbox.thread_start")  # refused by the hook, and recorded as a violation
        raise SandboxViolation("sandbox: threads are not allowed")

    _thread.start_new_thread = no_threads
    threading._start_new_thread = no_threads
    logging.currentframe = lambda: None  # logging would otherwise need sys._getframe
    for name in list(sys.modules):
        if name.partition(".")[0] in _DENY_MODULES:
            del sys.modules[name]


_CODE_CACHE: dict = {}


def _function(source: str, name: str):
    key = hashlib.blake2b(source.encode(), digest_size=16).hexdigest()
    code = _CODE_CACHE.get(key)
    if code is None:
        code = _CODE_CACHE[key] = compile(source, f"<tool {name}>", "exec")
    # A fresh namespace per call: module-level state never carries from one session to another.
    namespace = {"__name__": "agentworld_tool", "__builtins__": __builtins__}
    exec(code, namespace)
    fn = namespace.get(name)
    if not callable(fn):
        raise LookupError(f"the implementation defines no function {name!r}")
    return fn


def _run(secret: str, request: dict, cpu_seconds: int) -> dict:
    root = os.path.realpath(request["dir"])
    _Call.now, _Call.uuids, _Call.random_draws = float(request["now"]), 0, 0
    _Call.seed = f"{request['seed']}:{request['call']}"
    random.seed(_Call.seed)
    os.environ["MCP_DB_DIR"] = root
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    reply: dict = {"id": request["id"]}
    _cpu_budget(cpu_seconds)
    sys.audit("agentworld.begin", secret, root)
    try:
        os.chdir(root)
        result = _function(request["source"], request["function"])(**request["args"])
        reply.update(_encode(result))
    except MemoryError:
        reply.update(status="limit", detail="memory")
    except BaseException as exc:  # the tool's own failure, whatever it is
        reply.update(status="crash", detail=type(exc).__name__)
    finally:
        sys.audit("agentworld.end", secret, reply)
        os.environ.pop("MCP_DB_DIR", None)
    return reply


def _encode(result) -> dict:
    """Any JSON value is served as returned (lists and scalars too). Values JSON lacks
    (datetimes, sets) become their ``str``, as the release's harness writes them."""
    try:
        text = json.dumps(result, allow_nan=False, ensure_ascii=False, default=str)
    except (TypeError, ValueError) as exc:
        return {"status": "junk", "detail": f"returned a value that is not JSON ({exc})"[:200]}
    return {"status": "ok", "result": json.loads(text)}


def main() -> None:
    config = json.loads(sys.argv[1])
    netns = config["network_namespace"] and _unshare_network()
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdin = io.StringIO()
    for name in _PRELOAD:
        __import__(name)
    _stub_hostname()
    # Drawn before os.urandom is made deterministic: tool code must not be able to guess it.
    secret = os.urandom(16).hex()
    _set_limits(config)
    _install_determinism(_Call)
    _harden_runtime()
    # Read-only: the standard library, and the zone database that zoneinfo reads.
    import zoneinfo

    readable = tuple(os.path.realpath(p) for p in config["stdlib"]) + tuple(
        os.path.realpath(d) for d in zoneinfo.TZPATH if os.path.isdir(d))
    _install_hook(secret, readable, frozenset({proto_in.fileno(), proto_out}))
    os.write(proto_out, json.dumps({"ready": True, "netns": netns}).encode() + b"\n")
    for line in proto_in:
        request = json.loads(line)
        reply = _run(secret, request, config["cpu_seconds"])
        os.write(proto_out, json.dumps(reply, ensure_ascii=False).encode() + b"\n")


if __name__ == "__main__":
    main()
