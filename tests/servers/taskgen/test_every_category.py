"""Across a sample covering every top-level category: the oracle replay scores 1, doing nothing
scores 0, and random agents pass under 2% of the time."""

from __future__ import annotations

import random

import pytest

from agentworld.servers import Environment
from agentworld.servers.taskgen.gates import random_agent_passes, replay
from agentworld.servers.taskgen.generate import generate_tasks
from agentworld.servers.tasks import VerifierInput
from agentworld.servers.world.registry import compiled, pack_cards


def _one_per_category() -> list[str]:
    # Domain-pack environments: programmatic and graph tasks both. Mined surfaces get graph
    # tasks only, and not yet on every one (servers whose tools share no keys have no walks);
    # the audit test covers a mined environment.
    rng = random.Random(5)
    by_l1: dict[str, list[str]] = {}
    for card in pack_cards().values():
        by_l1.setdefault(card.l1, []).append(card.id)
    return [rng.choice(sorted(ids)) for _, ids in sorted(by_l1.items())]


SAMPLE = _one_per_category()


@pytest.fixture(scope="module")
def sampled_tasks():
    out = {}
    for env_id in SAMPLE:
        c = compiled(env_id)
        env = Environment(c.definition)
        records, _ = generate_tasks(env, compiled=c, per_env=4)
        out[env_id] = (env, records)
    return out


def test_the_sample_covers_every_top_level_category():
    with_packs = {c.l1 for c in pack_cards().values()}
    assert {pack_cards()[i].l1 for i in SAMPLE} == with_packs and len(with_packs) == 20


def test_oracle_one_noop_zero_random_under_two_percent(sampled_tasks):
    episodes = passes = 0
    for env_id, (env, records) in sampled_tasks.items():
        assert records, f"no tasks for {env_id}"
        for record in records:
            assert replay(env, record)[0] == 1.0, record.id
            task = record.to_task()
            initial, final = env.template.clone(), env.template.clone()
            assert task.verifier(VerifierInput(initial, final, None, ())).reward == 0.0
            passes += random_agent_passes(env, record, episodes=3, steps=8, seed=11)
            episodes += 3
    assert episodes >= 200 and passes / episodes < 0.02, (passes, episodes)
