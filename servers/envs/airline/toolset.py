"""The one toolset every airline tool module registers into, in the order agents see them."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError, Toolset

from .queries import DEFAULT_LIMIT, offset_of

tools = Toolset()


def now(ctx) -> str:
    return ctx.clock.iso()


def airport_code(ctx, code: str, role: str) -> str:
    """An IATA code as stored (upper case), or NOT_FOUND naming which argument was wrong."""
    code = code.upper()
    if ctx.scalar("SELECT 1 FROM airports WHERE iata = ?", (code,)) is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"{role} airport {code!r} does not exist",
                        kind="airport", id=code)
    return code


def page_list(items: list[Any], *, key: str, limit: int | None,
              cursor: str | None) -> dict[str, Any]:
    """Page an already computed list the same way SQL listings are paged."""
    limit = limit or DEFAULT_LIMIT
    start = offset_of(cursor)
    following = start + limit
    return {key: items[start:following],
            "next_cursor": str(following) if following < len(items) else None,
            "total": len(items)}
