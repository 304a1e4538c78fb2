"""Shape coverage over every archetype of the world (one environment each): which shapes each
environment supports. Slow (it builds 100 templates); `pytest -m slow -s` prints the table."""

from __future__ import annotations

from collections import Counter

import pytest

from agentworld.servers import Environment
from agentworld.servers.taskgen.shapes import LONG_SHAPES, SHAPES
from agentworld.servers.world.registry import compiled, pack_cards

from .conftest import drafts_for


def one_per_archetype() -> list[str]:
    first: dict[str, str] = {}
    for card in pack_cards().values():
        first.setdefault(card.archetype, card.id)
    return sorted(first.values())


@pytest.mark.slow
def test_shape_coverage_over_every_archetype():
    ids = one_per_archetype()
    assert len(ids) == 100
    regular, long, by_shape = [], [], Counter()
    for env_id in ids:
        c = compiled(env_id)
        names = {m.name for m in drafts_for(Environment(c.definition), c)}
        by_shape.update(names)
        regular.append(len(names & set(SHAPES)))
        long.append(len(names & set(LONG_SHAPES)))
    print(f"\n{'shape':24} environments (of {len(ids)})")
    for name in [*SHAPES, *LONG_SHAPES]:
        print(f"{name:24} {by_shape[name]:3d}{'  (long)' if name in LONG_SHAPES else ''}")
    print(f"regular shapes per environment: mean {sum(regular) / len(ids):.1f}, "
          f"min {min(regular)}; 8 or more in {sum(r >= 8 for r in regular)}")
    print(f"environments with a long-horizon shape: {sum(n > 0 for n in long)}")
    assert all(by_shape[name] for name in [*SHAPES, *LONG_SHAPES])
    assert sum(regular) / len(ids) >= 8 and sum(r >= 8 for r in regular) >= 80
    assert sum(n > 0 for n in long) >= 80
