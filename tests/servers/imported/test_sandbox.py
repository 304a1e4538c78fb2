"""The sandboxed workers: limits, refusals, determinism and warm reuse, at the pool level."""

from __future__ import annotations

import json
import statistics
import time

import pytest

from agentworld.servers.imported import SandboxLimits, WorkerPool

SOURCE = '''
import json, os, random, time, uuid
from datetime import date, datetime


def stamp(**_extra):
    return {"time": time.time(), "now": datetime.now().isoformat(),
            "utc": datetime.utcnow().isoformat(), "today": date.today().isoformat(),
            "uuids": [str(uuid.uuid4()) for _ in range(2)], "random": random.random(),
            "dir": os.environ["MCP_DB_DIR"], "cwd": os.getcwd()}


def write(name, **_extra):
    with open(os.path.join(os.environ["MCP_DB_DIR"], name), "w") as f:
        f.write("x")
    return {"ok": True}


def attempt(what, **_extra):
    if what == "subprocess":
        import subprocess
        subprocess.run(["true"])
    elif what == "system":
        os.system("true")
    elif what == "ctypes":
        import ctypes
        ctypes.CDLL(None)
    elif what == "write_outside":
        open("/tmp/agentworld-sandbox-escape", "w").write("x")
    elif what == "listdir":
        os.listdir("/")
    elif what == "frames":
        import sys
        sys._getframe(1)
    elif what == "thread":
        import threading
        threading.Thread(target=print).start()
    elif what == "forge":
        import sys
        sys.audit("agentworld.begin", "guess", "/")
    elif what == "symlink":
        os.symlink("/etc/passwd", "p")
    return {"done": what}


def spin(**_extra):
    while True:
        pass


def hog(**_extra):
    return {"n": len(bytearray(4 << 30))}
'''


def _request(folder, function, **args):
    return {"dir": str(folder), "source": SOURCE, "function": function, "args": args,
            "now": 1_772_442_000.0, "seed": 3, "call": 1}


def test_clock_ids_and_random_are_fixed_per_session_and_call(pool, tmp_path):
    first = pool.call(_request(tmp_path, "stamp"))
    again = pool.call(_request(tmp_path, "stamp"))
    assert first.status == "ok" and first.result == again.result
    out = first.result
    assert out["time"] == 1_772_442_000.0 and out["now"].startswith("2026-03-02T09:00")
    assert out["utc"] == out["now"] and out["today"] == "2026-03-02"
    assert out["uuids"][0] != out["uuids"][1]
    assert out["dir"] == str(tmp_path.resolve()) == out["cwd"]
    other = pool.call({**_request(tmp_path, "stamp"), "call": 2}).result
    assert other["uuids"] != out["uuids"] and other["random"] != out["random"]


def test_writes_inside_the_folder_are_reported(pool, tmp_path):
    reply = pool.call(_request(tmp_path, "write", name="notes.json"))
    assert reply.status == "ok" and reply.touched == ("notes.json",)
    assert (tmp_path / "notes.json").read_text() == "x"


@pytest.mark.parametrize("what, refused", [
    ("subprocess", "import: subprocess"),
    ("system", "os.system"),
    ("ctypes", "import: ctypes"),
    ("write_outside", "open: /tmp/agentworld-sandbox-escape"),
    ("listdir", "os.listdir: /"),
    ("frames", "sys._getframe"),
    ("thread", "sandbox.thread_start"),
    ("forge", "forged control event"),
    ("symlink", "os.symlink"),
])
def test_escapes_are_refused(pool, tmp_path, what, refused):
    reply = pool.call(_request(tmp_path, "attempt", what=what))
    assert reply.status == "crash" and reply.detail in ("SandboxViolation", "PermissionError")
    assert refused in " ".join(reply.violations)
    assert not (tmp_path / "p").exists()
    assert pool.call(_request(tmp_path, "stamp")).status == "ok"   # the worker still serves


def test_infinite_loop_is_killed_and_the_pool_keeps_serving(pool, tmp_path):
    started = time.monotonic()
    reply = pool.call(_request(tmp_path, "spin"), timeout=0.5)
    assert reply.status == "timeout" and reply.worker_replaced
    assert time.monotonic() - started < 3
    assert pool.call(_request(tmp_path, "stamp")).status == "ok"


def test_memory_limit_is_a_limit_not_a_crash(tmp_path):
    with WorkerPool(size=1, limits=SandboxLimits(memory_bytes=512 << 20)) as small:
        reply = small.call(_request(tmp_path, "hog"))
        assert reply.status == "limit" and reply.detail == "memory"
        assert small.call(_request(tmp_path, "stamp")).status == "ok"


def test_warm_calls_are_much_cheaper_than_a_cold_spawn(tmp_path):
    with WorkerPool(size=1) as fresh:
        started = time.perf_counter()
        fresh.call(_request(tmp_path, "stamp"))      # spawns the worker
        cold = time.perf_counter() - started
        warm = []
        for _ in range(50):
            started = time.perf_counter()
            fresh.call(_request(tmp_path, "stamp"))
            warm.append(time.perf_counter() - started)
        assert fresh.stats.spawned == 1
    median = statistics.median(warm)
    print(json.dumps({"cold_ms": round(cold * 1e3, 2), "warm_median_ms": round(median * 1e3, 3)}))
    assert median * 10 < cold


STDLIB_SOURCE = '''
import os


def stdlib(**_extra):
    import csv, email, io, json, re, secrets
    from datetime import datetime, timezone
    from email.utils import make_msgid, parsedate_to_datetime
    from zoneinfo import ZoneInfo
    rows = list(csv.reader(io.StringIO("a,b\\n1,2\\n")))
    msg = email.message_from_string("Subject: hi\\nDate: Tue, 03 Mar 2026 09:15:00 +0000\\n\\nx")
    paris = datetime(2026, 7, 1, 12, tzinfo=timezone.utc).astimezone(ZoneInfo("Europe/Paris"))
    return [rows, msg["Subject"], parsedate_to_datetime(msg["Date"]).isoformat(),
            paris.isoformat(), make_msgid(), secrets.token_hex(4), os.urandom(2).hex(),
            bool(re.match(r"\\d+", "42")), json.dumps({"a": 1})]


def escape(what, **_extra):
    if what == "socket":
        import socket
        socket.socket()
    elif what == "email_socket":
        import email.utils
        email.utils.socket.socket()
    elif what == "zone_write":
        from zoneinfo import TZPATH
        open(TZPATH[0] + "/agentworld-test", "w").write("x")
    elif what == "read_outside":
        open("/etc/hostname").read()
    return {"done": what}
'''


def _stdlib_request(folder, function, call=1, **args):
    return {"dir": str(folder), "source": STDLIB_SOURCE, "function": function, "args": args,
            "now": 1_772_442_000.0, "seed": 3, "call": call}


def test_pure_standard_library_works_and_lists_come_back_as_lists(pool, tmp_path):
    reply = pool.call(_stdlib_request(tmp_path, "stdlib"))
    assert reply.status == "ok" and not reply.violations, reply
    rows, subject, date, paris, msgid, token, salt, matched, text = reply.result
    assert rows == [["a", "b"], ["1", "2"]] and subject == "hi"
    assert date == "2026-03-03T09:15:00+00:00" and paris == "2026-07-01T14:00:00+02:00"
    assert msgid.endswith("@localhost>") and matched and text == '{"a": 1}'
    again = pool.call(_stdlib_request(tmp_path, "stdlib"))
    assert again.result == reply.result                    # secrets and urandom are seeded
    other = pool.call(_stdlib_request(tmp_path, "stdlib", call=2)).result
    assert (other[5], other[6]) != (token, salt)


@pytest.mark.parametrize("what, refused", [
    ("socket", "import: socket"),
    ("zone_write", "open: "),
    ("read_outside", "open: /etc/hostname"),
])
def test_sockets_and_outside_paths_are_still_refused(pool, tmp_path, what, refused):
    reply = pool.call(_stdlib_request(tmp_path, "escape", what=what))
    assert reply.status == "crash" and refused in " ".join(reply.violations)


def test_email_keeps_no_way_to_the_network(pool, tmp_path):
    reply = pool.call(_stdlib_request(tmp_path, "escape", what="email_socket"))
    assert reply.status == "crash" and reply.detail == "AttributeError"


def test_mimetypes_work_without_reading_outside(pool, tmp_path):
    source = "def kind(**_extra):\n    import mimetypes\n    return mimetypes.guess_type('a.csv')\n"
    reply = pool.call({"dir": str(tmp_path), "source": source, "function": "kind", "args": {},
                       "now": 1_772_442_000.0, "seed": 3, "call": 1})
    assert reply.status == "ok" and reply.result == ["text/csv", None]
