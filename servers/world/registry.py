"""The synthesized world as the catalog sees it: ids and light summaries from the world index
(``pools/world.json``, written by the pipeline), and definitions compiled on demand: compiling one
environment imports only its own category's archetypes and takes milliseconds."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import threading
from typing import TYPE_CHECKING, Any

from .data import DATA_DIR
from .spec import Archetype, ThemeCard
from .taxonomy import TAXONOMY

if TYPE_CHECKING:
    from .compile import CompiledEnvironment

__all__ = ["world_cards", "world_ids", "world_summaries", "compiled", "cache_key",
           "ENGINE_VERSION"]

# Bumped whenever the compiler's output for the same card changes (invalidates cached templates).
ENGINE_VERSION = "1"
WORLD_INDEX = DATA_DIR / "world.json"

_lock = threading.Lock()


@functools.cache
def world_cards() -> dict[str, ThemeCard]:
    """The shipped world: the cards that passed the filters (the index), in taxonomy order.

    Before the pipeline has written an index (a fresh checkout of the engine), every leaf's
    card is served unfiltered.
    """
    if WORLD_INDEX.exists():
        raw = json.loads(WORLD_INDEX.read_text(encoding="utf-8"))
        cards = [ThemeCard(**{**c, "features": tuple(c["features"])}) for c in raw]
    else:
        from .cards import make_cards  # imports every archetype module

        cards = list(make_cards())
    return {card.id: card for card in cards}


def world_ids() -> list[str]:
    return list(world_cards())


def world_summaries() -> list[dict[str, Any]]:
    return [{"id": c.id, "title": c.title, "description": c.description,
             "taxonomy": {"l1": c.l1, "l2": c.l2, "l3": c.l3}, "kind": "synthesized",
             "archetype": c.archetype, "features": list(c.features), "region": c.region}
            for c in world_cards().values()]


@functools.cache
def archetype_for(card: ThemeCard) -> Archetype:
    category = next(c for c in TAXONOMY if c.l2 == card.l2)
    module = importlib.import_module(f"agentworld.servers.world.archetypes.{category.module}")
    return next(a for a in module.ARCHETYPES if a.id == card.archetype)


def compiled(env_id: str) -> CompiledEnvironment:
    """Compile one world environment (cached). Raises KeyError for an unknown id."""
    with _lock:
        return _compiled(env_id)


@functools.cache
def _compiled(env_id: str) -> CompiledEnvironment:
    from .compile import compile_card

    card = world_cards()[env_id]
    return compile_card(card, archetype_for(card))


@functools.cache
def _data_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(DATA_DIR.glob("*.csv")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(env_id: str) -> str:
    """What a cached template depends on: the engine, the data, the card and its archetype."""
    card = world_cards()[env_id]
    text = repr((ENGINE_VERSION, _data_digest(), card, archetype_for(card)))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
