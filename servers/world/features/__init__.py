"""Feature modules: reusable slices of a service (comments, payments, scheduling, ...), each
bringing its own tables, tools and rules, attached to an archetype's primary entity."""

from __future__ import annotations

from typing import Protocol

from ..builder import EnvBuilder

__all__ = ["Feature", "FEATURES"]


class Feature(Protocol):
    name: str
    sources: frozenset[str]

    def applies(self, archetype) -> bool:
        """Whether this feature makes sense for the archetype."""

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        """Add this feature's tables (called before any tool is declared)."""

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        """Add this feature's seed step, tools, rules and probes."""


def _registry() -> dict[str, Feature]:
    # Imported here: the modules import the builder and this package's Protocol users.
    from .attachments import Attachments
    from .audit_log import AuditLog
    from .comments import Comments
    from .currency import Currency
    from .geo import Geo
    from .holidays import Holidays
    from .inventory import Inventory
    from .notifications import Notifications
    from .payments import Payments
    from .reviews import Reviews
    from .scheduling import Scheduling
    from .search import Search
    from .sharing import Sharing
    from .tags import Tags

    features: list[Feature] = [
        Comments(), Tags(), Attachments(), Sharing(), Notifications(), Payments(), Scheduling(),
        Inventory(), Reviews(), Search(), AuditLog(), Currency(), Holidays(), Geo()]
    return {f.name: f for f in features}


FEATURES: dict[str, Feature] = _registry()
