"""From the taxonomy's leaves to theme cards: which features, which region, which seed.

The choice is deterministic (a hash of the leaf id), so the world is the same on every machine,
and it is made unique: no two environments share the same archetype, feature set and region.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from types import ModuleType

from .data import regions
from .features import FEATURES
from .spec import Archetype, Leaf, ThemeCard
from .taxonomy import TAXONOMY, Category

__all__ = ["archetype_module", "load_archetypes", "make_cards", "cards_by_id", "MIN_FEATURES"]

MIN_FEATURES, MAX_FEATURES = 2, 5


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def archetype_module(category: Category) -> ModuleType:
    return importlib.import_module(f"agentworld.servers.world.archetypes.{category.module}")


def load_archetypes() -> dict[str, Archetype]:
    out: dict[str, Archetype] = {}
    for category in TAXONOMY:
        for archetype in archetype_module(category).ARCHETYPES:
            out[archetype.id] = archetype
    return out


def _features(archetype: Archetype, key: int) -> tuple[str, ...]:
    usable = [f for f in archetype.features if f in FEATURES and FEATURES[f].applies(archetype)]
    if not usable:
        return ()
    count = MIN_FEATURES + key % (MAX_FEATURES - MIN_FEATURES + 1)
    start = (key >> 8) % len(usable)
    rotated = usable[start:] + usable[:start]
    return tuple(sorted(rotated[:min(count, len(usable))]))


def card_for(category: Category, leaf: Leaf, archetype: Archetype,
             taken: set[tuple], attempt: int = 0) -> ThemeCard:
    all_regions = regions()
    key = _digest(leaf.id)
    for shift in range(attempt, attempt + 8 * len(all_regions)):
        features = _features(archetype, key + shift // len(all_regions))
        region = all_regions[(key + shift) % len(all_regions)]
        identity = (archetype.id, features, region)
        if identity not in taken:
            taken.add(identity)
            return ThemeCard(id=leaf.id, title=leaf.title, description=leaf.description,
                             l1=category.l1, l2=category.l2, l3=leaf.title,
                             archetype=archetype.id, features=features, region=region,
                             seed=key % 2**31)
    raise ValueError(f"no unique feature set and region left for {leaf.id}")


@functools.cache
def make_cards() -> tuple[ThemeCard, ...]:
    """Every synthesized leaf's card, in taxonomy order."""
    taken: set[tuple] = set()
    cards = []
    for category in TAXONOMY:
        module = archetype_module(category)
        by_id = {a.id: a for a in module.ARCHETYPES}
        for leaf in module.LEAVES:
            cards.append(card_for(category, leaf, by_id[leaf.archetype], taken))
    return tuple(cards)


@functools.cache
def cards_by_id() -> dict[str, ThemeCard]:
    return {card.id: card for card in make_cards()}
