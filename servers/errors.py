"""Errors of the environment runtime.

Two channels, kept apart on purpose:

* :class:`ToolError` is for the agent. A tool raises it when a call breaks a business rule or names
  something that does not exist; the runtime turns it into a tool result with ``isError`` and a
  stable ``code``, and the database is left exactly as it was before the call.
* :class:`RuntimeFault` and its subclasses are for the caller (the MCP layer, the hub, the CLI):
  an unknown environment, a broken environment definition. They become protocol errors.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "ErrorCode",
    "ToolError",
    "RuntimeFault",
    "UnknownEnvironmentError",
    "EnvironmentDefinitionError",
    "SessionClosedError",
]


class ErrorCode(StrEnum):
    """Stable codes an agent can branch on. Never renamed once published."""

    NOT_FOUND = "NOT_FOUND"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    CONFLICT = "CONFLICT"
    FORBIDDEN = "FORBIDDEN"
    PRECONDITION_FAILED = "PRECONDITION_FAILED"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class ToolError(Exception):
    """A failure the agent should read: raised inside a tool, returned as an error result."""

    def __init__(self, code: ErrorCode | str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body


def not_found(kind: str, ident: Any) -> ToolError:
    """The usual NOT_FOUND error, worded the same way in every environment."""
    return ToolError(ErrorCode.NOT_FOUND, f"{kind} {ident!r} does not exist", kind=kind, id=ident)


class RuntimeFault(Exception):
    """Base of errors for the caller of the runtime, never shown to the agent as a tool result."""


class UnknownEnvironmentError(RuntimeFault, LookupError):
    def __init__(self, env_id: str) -> None:
        super().__init__(f"unknown environment {env_id!r}")
        self.env_id = env_id


class SessionClosedError(RuntimeFault):
    """A call reached a session after it was closed (ended by its owner or reaped)."""


class EnvironmentDefinitionError(RuntimeFault):
    """An environment's own definition is broken (bad schema, duplicate tool, reserved name)."""
