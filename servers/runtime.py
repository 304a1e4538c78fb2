"""The tool runtime: one session, one private database, atomic validated tool calls.

Every call goes through the same steps: check the tool exists, bound and validate the arguments
against the tool's JSON Schema, run the implementation inside a SAVEPOINT, validate its output,
and either release the savepoint or roll back to it. A failed call leaves the database exactly as
it was (same hash), and whatever went wrong comes back as a :class:`ToolResult` with a stable code.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from .context import DeterministicClock, IdGenerator, ToolContext, parse_epoch
from .database import database_hash
from .environment import Environment
from .errors import ErrorCode, SessionClosedError, ToolError

__all__ = ["ToolResult", "Session", "WouldBlock", "MAX_ARGUMENT_CHARS"]

log = logging.getLogger(__name__)

# The most characters of string data one call's arguments may carry, all strings together.
MAX_ARGUMENT_CHARS = 64_000
_MAX_DEPTH = 16


class WouldBlock(Exception):
    """A non-blocking call found its session busy: nothing ran; call again from a thread.

    Not a fault (so not under :class:`RuntimeFault`): the caller only changes where it runs."""


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: ``data`` on success, ``error`` ({code, message}) on failure."""

    tool: str
    data: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def code(self) -> str | None:
        return None if self.error is None else self.error["code"]

    def payload(self) -> dict[str, Any]:
        """What the agent reads: the data, or ``{"error": {...}}``."""
        return self.data if self.error is None else {"error": self.error}


def _scan(value: Any, depth: int = 0) -> int:
    """Count string characters in a JSON value, refusing NUL bytes and absurd nesting."""
    if depth > _MAX_DEPTH:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "arguments are nested too deeply")
    if isinstance(value, str):
        if "\x00" in value:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "strings may not contain NUL characters")
        return len(value)
    if isinstance(value, dict):
        return sum(len(str(k)) + _scan(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return sum(_scan(v, depth + 1) for v in value)
    return 0


# id(validator) -> (a weak reference to it, its compiled jsonschema-rs twin or None when that
# library refuses the schema). Validators are unhashable; the weak reference guards against a
# reused id.
_fast_checks: dict[int, tuple[weakref.ref, Any]] = {}


def _compiled(validator) -> Any:
    entry = _fast_checks.get(id(validator))
    if entry is None or entry[0]() is not validator:
        key = id(validator)
        try:
            fast = jsonschema_rs.Draft202012Validator(validator.schema)
        except Exception:  # a schema the Rust validator cannot compile: jsonschema alone
            fast = None
        entry = (weakref.ref(validator, lambda _: _fast_checks.pop(key, None)), fast)
        _fast_checks[key] = entry
    return entry[1]


def _certainly_valid(validator, value: Any) -> bool:
    fast = _compiled(validator)
    if fast is None:
        return False
    try:
        return fast.is_valid(value)
    except (ValueError, TypeError):
        return False  # values it cannot read (lone surrogates, non-string keys): ask jsonschema


def _first_validation_error(validator, arguments: dict[str, Any]) -> str | None:
    # jsonschema-rs answers the common case (valid) 25-100x faster than jsonschema
    # (bench/validators.py). Its "valid" is trusted; anything else goes to jsonschema, which
    # stays the single source of refusals and of their wording, so a value the Rust validator
    # reads more strictly (Unicode \d, "$" before a newline, NaN) is still judged exactly.
    if _certainly_valid(validator, arguments):
        return None
    errors = sorted(validator.iter_errors(arguments), key=lambda e: (len(e.path), e.message))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.absolute_path) or "arguments"
    # jsonschema quotes the offending value; keep the message short when the value is huge.
    message = err.message if len(err.message) <= 300 else err.message[:300] + "..."
    return f"{where}: {message}"


class Session:
    """One episode's state: a private copy of the template database and a deterministic context.

    Calls are serialized by a lock, so a session may be driven from any thread.
    """

    def __init__(self, env: Environment, *, seed: int = 0) -> None:
        self.env = env
        self.seed = seed
        self.db: sqlite3.Connection = env.template.clone()
        self.ctx = ToolContext(
            db=self.db,
            clock=DeterministicClock(start=parse_epoch(env.manifest.epoch)),
            ids=IdGenerator(seed=seed),
            rng=random.Random(seed),
        )
        self.calls = 0
        self._lock = threading.Lock()
        self.closed = False
        self._hooks = env.definition.session_hooks
        if self._hooks is not None:
            try:
                self._hooks.open(self.ctx)
            except BaseException:
                self.db.close()
                raise

    def call(self, name: str, arguments: Any = None, *, blocking: bool = True) -> ToolResult:
        """Run one tool call. Never raises for anything the agent did wrong.

        ``blocking=False`` is for a caller on an event loop, which must never wait for a lock:
        when another thread holds the session it raises :class:`WouldBlock` without running.
        """
        if not self._lock.acquire(blocking):
            raise WouldBlock
        try:
            return self._call_locked(name, arguments)
        finally:
            self._lock.release()

    def _call_locked(self, name: str, arguments: Any) -> ToolResult:
        if self.closed:
            raise SessionClosedError("session is closed")
        self.calls += 1
        self.ctx.clock.advance()
        try:
            spec, args = self._check(name, arguments)
            return ToolResult(tool=name, data=self._run_atomic(spec, args))
        except ToolError as err:
            return ToolResult(tool=name, error=err.to_dict())

    def _check(self, name: str, arguments: Any):
        spec = self.env.tool(name) if isinstance(name, str) else None
        if spec is None:
            raise ToolError(ErrorCode.UNKNOWN_TOOL, f"no tool named {str(name)[:80]!r}",
                            available=self.env.tools.names())
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolError(ErrorCode.VALIDATION_ERROR, "arguments must be a JSON object")
        if _scan(arguments) > MAX_ARGUMENT_CHARS:
            raise ToolError(ErrorCode.VALIDATION_ERROR,
                            f"arguments are too large (over {MAX_ARGUMENT_CHARS} characters)")
        problem = _first_validation_error(self.env.input_validators[name], arguments)
        if problem:
            raise ToolError(ErrorCode.VALIDATION_ERROR, problem)
        return spec, arguments

    def _run_atomic(self, spec, args: dict[str, Any]) -> dict[str, Any]:
        self.db.execute("SAVEPOINT tool_call")
        try:
            data = spec.fn(self.ctx, **args)
            problem = _first_validation_error(self.env.output_validators[spec.name], data)
            if problem:
                log.error("%s.%s returned output that breaks its schema: %s",
                          self.env.id, spec.name, problem)
                raise ToolError(ErrorCode.INTERNAL_ERROR, f"{spec.name} failed internally")
        except ToolError:
            self._rollback()
            raise
        except sqlite3.IntegrityError as exc:
            self._rollback()
            raise ToolError(ErrorCode.CONFLICT, "the change would break a data constraint",
                            constraint=str(exc)) from exc
        except Exception as exc:
            self._rollback()
            log.exception("%s.%s crashed", self.env.id, spec.name)
            raise ToolError(ErrorCode.INTERNAL_ERROR, f"{spec.name} failed internally") from exc
        self.db.execute("RELEASE tool_call")
        return data

    def _rollback(self) -> None:
        self.db.execute("ROLLBACK TO tool_call")
        self.db.execute("RELEASE tool_call")

    def hash(self) -> str:
        with self._lock:
            return database_hash(self.db)

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                try:
                    if self._hooks is not None:
                        self._hooks.close(self.ctx)
                finally:
                    self.db.close()
