"""Shared checks for a reference environment's business rules.

Each environment's rule tests give, for every rule id in its manifest, a *breaker*: a function
that takes a fresh :class:`Session`, makes any setup calls it needs (asserting they succeed), and
returns the ``(tool, arguments)`` call that breaks the rule. The harness then checks that the
tool refuses with the rule's code and that the database is unchanged by the refused call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentworld.servers import Environment, Session, ToolResult

Breaker = Callable[[Session], tuple[str, dict[str, Any]]]


def ok(result: ToolResult) -> dict[str, Any]:
    """Assert a setup call succeeded and return its data."""
    assert result.ok, f"setup call {result.tool} failed: {result.error}"
    return result.data


def check_breaker(env: Environment, rule_id: str, breaker: Breaker) -> ToolResult:
    rule = next(r for r in env.manifest.rules if r.id == rule_id)
    session = Session(env, seed=7)
    try:
        tool, arguments = breaker(session)
        assert tool in rule.tools, f"{rule_id} is broken through {tool}, not one of {rule.tools}"
        before = session.hash()
        result = session.call(tool, arguments)
        assert not result.ok, f"{tool} accepted a call that breaks {rule_id}"
        assert result.code == rule.code, f"{rule_id}: expected {rule.code}, got {result.error}"
        assert session.hash() == before, f"refused call for {rule_id} changed the database"
        return result
    finally:
        session.close()


def assert_every_rule_covered(env: Environment, breakers: dict[str, Breaker]) -> None:
    rule_ids = {r.id for r in env.manifest.rules}
    assert set(breakers) == rule_ids, (
        f"rules without a breaker: {sorted(rule_ids - set(breakers))}; "
        f"breakers for unknown rules: {sorted(set(breakers) - rule_ids)}")
