"""Sessions of imported environments: a private folder per session, calls run in the pool.

Each session gets its own copy of the environment's data folder (materialized at open, removed
at close). A tool call sends the folder, the code and the arguments to a sandboxed worker, with
the session's deterministic clock value and a seed, so replays give the same ids and times.

The folder is the truth the release's code reads and writes; after a call that succeeded, the
changed collections are copied into the session's SQLite view (inside the runtime's savepoint).
After a call that failed in any way, the folder is put back exactly as it was before the call,
so a failed call changes nothing, as for every other environment.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import ToolContext
from ..errors import ErrorCode, ToolError
from . import view
from .pool import WorkerPool, WorkerReply

__all__ = ["FolderBackend", "Wrapped", "map_release_error", "served", "is_refusal"]

log = logging.getLogger(__name__)
_KEY = "agentworld.imported.folder"

# Release error codes, by pattern, to our stable codes; the original is kept in the details.
_CODE_PATTERNS: tuple[tuple[str, ErrorCode], ...] = (
    (r"NOT_?FOUND|MISSING_RESOURCE|UNKNOWN_(ID|ITEM|RECORD)|^404$", ErrorCode.NOT_FOUND),
    (r"STATE|PRECONDITION|INSUFFICIENT|NOT_ALLOWED|UNAVAILABLE|EXPIRED|CLOSED|LOCKED|"
     r"NOT_ACTIVE|INACTIVE|BUSINESS|RULE", ErrorCode.PRECONDITION_FAILED),
    (r"INVALID|VALIDATION|BAD_REQUEST|MISSING|REQUIRED|FORMAT|TYPE|^400$",
     ErrorCode.VALIDATION_ERROR),
    (r"CONFLICT|ALREADY|DUPLICATE|EXISTS|^409$", ErrorCode.CONFLICT),
    (r"PERMISSION|FORBIDDEN|UNAUTHORI[SZ]ED|ACCESS_DENIED|DENIED|^40[13]$", ErrorCode.FORBIDDEN),
    (r"LIMIT|QUOTA|TOO_MANY|CAPACITY|EXCEEDED|^429$", ErrorCode.LIMIT_EXCEEDED),
)


def map_release_error(error: Any) -> ToolError:
    """A release tool's ``{"error": ...}`` as our ToolError.

    ``code`` is our stable code (mapped by pattern); ``details.release_code`` is the release's
    own code as it gave it (``UNAUTHORIZED`` stays ``UNAUTHORIZED`` there), and
    ``details.release_error`` is its whole error payload, extra fields included.
    """
    if isinstance(error, dict):
        raw_code = str(error.get("code", "") or "")
        message = str(error.get("message") or raw_code or "the tool refused the call")
    else:
        raw_code, message = "", str(error) or "the tool refused the call"
    normalized = re.sub(r"[^A-Z0-9]+", "_", raw_code.upper()).strip("_")
    code = next((c for c in ErrorCode if c.value == normalized), None)
    if code is None or code in (ErrorCode.UNKNOWN_TOOL, ErrorCode.INTERNAL_ERROR):
        code = next((c for pattern, c in _CODE_PATTERNS if re.search(pattern, normalized)),
                    ErrorCode.PRECONDITION_FAILED)
    return ToolError(code, message, release_code=raw_code or None, release_error=error)


class Wrapped(dict):
    """``{"result": value}`` for a value that is not an object; ``original`` is the value, which
    the MCP layer sends as the text content (structured content must be an object)."""

    def __init__(self, value: Any) -> None:
        super().__init__(result=value)
        self.original = value


def served(result: Any) -> dict[str, Any]:
    """What the runtime serves for a release tool's return value: an object as returned; any
    other JSON value wrapped as ``{"result": value}``, as MCP's structured content does."""
    return result if isinstance(result, dict) else Wrapped(result)


def is_refusal(result: Any) -> bool:
    """Whether a return value is the release's error shape, ``{"error": <something>}``."""
    return isinstance(result, dict) and "error" in result and result["error"] not in (
        None, False, "", {}, [])


@dataclass
class _Folder:
    """One session's copy of the data folder, and the bytes of every file as last committed."""

    path: Path
    committed: dict[str, bytes]

    def read(self, name: str) -> bytes | None:
        try:
            return (self.path / name).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def restore(self) -> None:
        """Put every file back as committed and remove anything new (after a failed call)."""
        for entry in self.path.rglob("*"):
            rel = entry.relative_to(self.path).as_posix()
            if entry.is_symlink() or (entry.is_file() and rel not in self.committed):
                entry.unlink()
        for dirpath in sorted((p for p in self.path.rglob("*") if p.is_dir()), reverse=True):
            if not any(name.startswith(dirpath.relative_to(self.path).as_posix() + "/")
                       for name in self.committed):
                shutil.rmtree(dirpath, ignore_errors=True)
        for name, data in self.committed.items():
            if self.read(name) != data:
                target = self.path / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)


class FolderBackend:
    """Session hooks plus tool functions for one imported environment (see module docs)."""

    def __init__(self, *, env_id: str, data_dir: Path, tables: dict[str, str], pool: WorkerPool,
                 sessions_dir: Path | None = None) -> None:
        self.env_id = env_id
        self.data_dir = data_dir
        self.tables = dict(tables)                     # table -> file name in the folder
        self.files = {f: t for t, f in self.tables.items()}
        self.pool = pool
        self.sessions_dir = sessions_dir
        self._template: dict[str, bytes] | None = None

    def template_files(self) -> dict[str, bytes]:
        if self._template is None:
            self._template = {p.relative_to(self.data_dir).as_posix(): p.read_bytes()
                              for p in sorted(self.data_dir.rglob("*"))
                              if p.is_file() and not p.is_symlink()}
        return self._template

    # -- SessionHooks ----------------------------------------------------------------------------
    def open(self, ctx: ToolContext) -> None:
        """Materialize the session's folder from the template."""
        if self.sessions_dir is not None:
            self.sessions_dir.mkdir(parents=True, exist_ok=True)
        path = Path(tempfile.mkdtemp(prefix=f"{self.env_id}-", dir=self.sessions_dir))
        files = self.template_files()
        for name, data in files.items():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        ctx.extra[_KEY] = _Folder(path, dict(files))
        # A session that is never closed still leaves no folder behind once collected.
        weakref.finalize(ctx, shutil.rmtree, str(path), True)

    def close(self, ctx: ToolContext) -> None:
        folder = ctx.extra.pop(_KEY, None)
        if folder is not None:
            shutil.rmtree(folder.path, ignore_errors=True)

    @staticmethod
    def folder(ctx: ToolContext) -> Path:
        """The session's folder (for tests and diagnosis)."""
        return ctx.extra[_KEY].path

    # -- tools -----------------------------------------------------------------------------------
    def tool_fn(self, name: str, function: str, source: str) -> Callable[..., dict[str, Any]]:
        """The ToolSpec ``fn`` of one tool: forwards the call to a sandboxed worker."""

        def call(ctx: ToolContext, **arguments: Any) -> dict[str, Any]:
            folder: _Folder = ctx.extra[_KEY]
            reply = self.pool.call({
                "dir": str(folder.path), "source": source, "function": function,
                "args": arguments, "now": ctx.clock.now().timestamp(),
                "seed": ctx.ids.seed, "call": ctx.clock.calls})
            try:
                data = self._outcome(name, reply)
                self._commit(ctx, folder, reply)
            except BaseException:
                folder.restore()
                raise
            return data

        call.__name__ = name
        return call

    def _outcome(self, name: str, reply: WorkerReply) -> dict[str, Any]:
        if reply.violations:
            raise ToolError(ErrorCode.FORBIDDEN,
                            f"{name} tried something the sandbox refuses; the call changed nothing",
                            refused=list(reply.violations))
        if reply.status == "timeout":
            raise ToolError(ErrorCode.LIMIT_EXCEEDED,
                            f"{name}: {reply.detail}; it was stopped and the call changed nothing",
                            limit="time")
        if reply.status == "limit":
            raise ToolError(ErrorCode.LIMIT_EXCEEDED,
                            f"{name} ran out of {reply.detail or 'resources'}; the call changed "
                            "nothing", limit=reply.detail or "resources")
        if reply.status != "ok":
            what = {"crash": f"crashed ({reply.detail})", "junk": reply.detail,
                    "died": reply.detail}.get(reply.status, f"failed ({reply.status})")
            log.warning("%s.%s: %s", self.env_id, name, what)
            raise ToolError(ErrorCode.INTERNAL_ERROR,
                            f"{name} failed internally: {what}; the call changed nothing")
        if is_refusal(reply.result):
            raise map_release_error(reply.result["error"])
        return served(reply.result)

    def _commit(self, ctx: ToolContext, folder: _Folder, reply: WorkerReply) -> None:
        changed = {}
        for name in reply.touched:
            data = folder.read(name)
            if data != folder.committed.get(name):
                changed[name] = data
        for name, data in changed.items():
            table = self.files.get(name)
            if table is None:
                continue  # not a viewed collection (a new file, or a non-JSON one)
            if data is None:
                view.replace_table(ctx.db, table, [])
                continue
            try:
                rows = view.collection_rows(json.loads(data))
            except ValueError as exc:
                raise ToolError(ErrorCode.INTERNAL_ERROR,
                                f"the call left {name} as invalid JSON; it was undone") from exc
            view.replace_table(ctx.db, table, rows)
        for name, data in changed.items():
            if data is None:
                folder.committed.pop(name, None)
            else:
                folder.committed[name] = data

