"""The world as shipped: its shape, its diversity, and a sample from every top-level category
built, filtered and served over MCP with the official client."""

from __future__ import annotations

import random
from collections import Counter

import anyio
import pytest
from mcp import Client

from agentworld.servers import Environment
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
from agentworld.servers.mcp_server import build_mcp_server
from agentworld.servers.world.cards import archetype_module, load_archetypes, make_cards
from agentworld.servers.world.filters import run_filters
from agentworld.servers.world.registry import (
    card_for,
    compiled,
    is_mined,
    mined_entries,
    mined_quota,
    pack_cards,
    world_cards,
)
from agentworld.servers.world.taxonomy import REFERENCE_LEAVES, TAXONOMY

L1S = sorted({c.l1 for c in TAXONOMY})


def test_taxonomy_is_20_50_1978():
    assert len(L1S) == 20 and len(TAXONOMY) == 50
    assert sum(c.leaves for c in TAXONOMY) == 1978
    assert set(REFERENCE_LEAVES) == set(REFERENCE_ENVIRONMENTS)


def test_every_category_has_its_leaves_and_archetypes():
    for category in TAXONOMY:
        module = archetype_module(category)
        own = 1 if category.l2 in REFERENCE_LEAVES.values() else 0
        assert len(module.LEAVES) + own == category.leaves, category.module
        assert module.ARCHETYPES and all(a.l2 == category.l2 for a in module.ARCHETYPES)
        assert {leaf.archetype for leaf in module.LEAVES} == {a.id for a in module.ARCHETYPES}


def test_cards_are_unique_in_id_and_in_archetype_features_and_region():
    cards = make_cards()
    assert len(cards) == 1975
    assert len({c.id for c in cards}) == 1975
    assert not {c.id for c in cards} & set(REFERENCE_ENVIRONMENTS)
    assert len({(c.archetype, c.features, c.region) for c in cards}) == 1975
    assert len(load_archetypes()) >= 50


def test_the_shipped_world_is_mined_servers_only_spread_evenly_over_the_categories():
    shipped, entries = world_cards(), mined_entries()
    assert len(entries) >= 1975                       # the shipped index fills the world
    assert len(shipped) == 1975 and all(is_mined(card) for card in shipped.values())
    assert not set(shipped) & set(REFERENCE_ENVIRONMENTS)
    assert len({entries[env_id]["package"] for env_id in shipped}) == 1975
    served = Counter(card.l2 for card in shipped.values())
    available = Counter(e["l2"] for e in entries.values())
    cap = max(served.values())
    for l2, n in available.items():
        # A thin category serves every server it has; a rich one stops at the common cap.
        assert served[l2] == n if n < cap - 1 else served[l2] >= cap - 1, l2
    # Within a category, the servers served come first in the index's priority order.
    order = list(entries)
    for l2 in served:
        ranks = sorted(order.index(e) for e in order if entries[e]["l2"] == l2)
        assert sorted(order.index(i) for i in shipped if shipped[i].l2 == l2) == ranks[:served[l2]]


def test_the_mined_quota_is_the_smallest_common_cap_that_fills_the_slots():
    order = {"a": 0, "b": 1, "c": 2}
    assert mined_quota(Counter(a=10, b=3, c=6), 12, order) == {"a": 4, "b": 3, "c": 5}
    assert mined_quota(Counter(a=10, b=3, c=6), 13, order) == {"a": 5, "b": 3, "c": 5}
    assert mined_quota(Counter(a=10, b=3, c=6), 19, order) == {"a": 10, "b": 3, "c": 6}
    assert sum(mined_quota(Counter(a=7, b=7, c=7), 20, order).values()) == 20


def test_domain_pack_environments_the_world_does_not_list_still_build():
    packs = pack_cards()
    assert len(packs) == 1975
    env_id = sorted(packs)[0]
    assert env_id not in world_cards() and card_for(env_id) == packs[env_id]
    assert run_filters(compiled(env_id)).passed
    with pytest.raises(KeyError):
        card_for("no-such-environment")


def _sample_per_l1(seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    by_l1: dict[str, list[str]] = {}
    for card in world_cards().values():
        by_l1.setdefault(card.l1, []).append(card.id)
    return [rng.choice(sorted(ids)) for _, ids in sorted(by_l1.items())]


@pytest.mark.parametrize("env_id", _sample_per_l1())
def test_a_sample_from_every_category_passes_the_filters_and_serves_mcp(env_id):
    c = compiled(env_id)
    report = run_filters(c)
    assert report.passed and report.tools >= 10, report.problems
    env = Environment(c.definition)
    probe_db = env.template.clone()

    async def serve():
        async with Client(build_mcp_server(env), mode="legacy") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert listed == set(env.tools.names())
            results = []
            for name in [t.name for t in env.tools if t.annotations.read_only][:4]:
                args = c.probes[name].success(probe_db)[0]
                results.append(await client.call_tool(name, args))
            return results

    results = anyio.run(serve)
    assert results and not any(r.is_error for r in results)


@pytest.mark.slow
def test_every_environment_passes_the_three_filters():
    failures = {}
    for env_id in world_cards():
        report = run_filters(compiled(env_id))
        if not report.passed or report.tools < 10:
            failures[env_id] = report.problems[:3]
    assert not failures, dict(list(failures.items())[:10])


def test_every_top_level_category_is_served():
    per_l1 = Counter(c.l1 for c in world_cards().values())
    assert set(per_l1) == set(L1S)
