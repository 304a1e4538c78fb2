"""Drafts from every shape over a sample of environments: one per top-level category, plus the
lodging fixture (its bookings cannot overlap, which the rescheduling shape needs)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from agentworld.servers import Environment
from agentworld.servers.taskgen.shapes import LONG_SHAPES, SHAPES, Draft, ShapeContext
from agentworld.servers.world.compile import CompiledEnvironment
from agentworld.servers.world.registry import compiled, pack_cards


def one_per_category() -> list[str]:
    """One domain-pack environment per top-level category that has any: the shapes are written
    over the domain packs' tools (mined surfaces get graph tasks)."""
    rng = random.Random(7)
    by_l1: dict[str, list[str]] = {}
    for card in pack_cards().values():
        by_l1.setdefault(card.l1, []).append(card.id)
    return [rng.choice(sorted(ids)) for _, ids in sorted(by_l1.items())]


@dataclass
class Made:
    env: Environment
    compiled: CompiledEnvironment
    name: str
    draft: Draft


def drafts_for(env: Environment, c: CompiledEnvironment, seed: int = 0) -> list[Made]:
    db = env.template.clone()
    out = []
    try:
        for name, fn in {**SHAPES, **LONG_SHAPES}.items():
            ctx = ShapeContext(c, db, random.Random(f"{c.card.id}:{name}:{seed}"),
                               long=name in LONG_SHAPES)
            draft = fn(ctx)
            if draft is not None:
                out.append(Made(env, c, name, draft))
    finally:
        db.close()
    return out


@pytest.fixture(scope="session")
def made(hotel) -> list[Made]:
    out = drafts_for(*hotel)
    for env_id in one_per_category():
        c = compiled(env_id)
        out += drafts_for(Environment(c.definition), c)
    return out
