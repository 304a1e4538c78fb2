"""The synthesized world as the catalog sees it: ids and light summaries from the world index
(``pools/world.json``, written by the pipeline), and definitions compiled on demand: compiling one
environment imports only its own category's archetypes and takes milliseconds."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from .data import DATA_DIR
from .spec import Archetype, ThemeCard
from .taxonomy import TAXONOMY

if TYPE_CHECKING:
    from .compile import CompiledEnvironment

__all__ = ["world_cards", "world_ids", "pack_cards", "card_for", "mined_quota", "world_summaries", "compiled", "cache_key",
           "ENGINE_VERSION", "MINED_ENGINE_VERSION", "mined_entries", "is_mined"]

# Bumped whenever the compiler's output for the same card changes (invalidates cached templates).
ENGINE_VERSION = "1"
# Bumped whenever the mined compiler's output for the same record changes.
MINED_ENGINE_VERSION = "13"
WORLD_INDEX = DATA_DIR / "world.json"

_lock = threading.Lock()


MINED_INDEX = DATA_DIR / "mined.json"
MINED_PREFIX = "mined:"


@functools.cache
def _pack_cards() -> list[ThemeCard]:
    """Environments built from the domain packs alone, in taxonomy order (the pipeline's index;
    before the pipeline has written one, every leaf's card unfiltered)."""
    if WORLD_INDEX.exists():
        raw = json.loads(WORLD_INDEX.read_text(encoding="utf-8"))
        return [ThemeCard(**{**c, "features": tuple(c["features"])}) for c in raw]
    from .cards import make_cards  # imports every archetype module

    return list(make_cards())


@functools.cache
def pack_cards() -> dict[str, ThemeCard]:
    """The domain-pack environments by id: built from the archetypes alone. With a full mined
    index the world serves none of them, but they stay buildable: the arena draws on them
    where it needs an environment's archetype (a richer database for a weak one)."""
    return {card.id: card for card in _pack_cards()}


def card_for(env_id: str) -> ThemeCard:
    """A world environment's card, else a domain-pack environment's. KeyError when neither."""
    card = world_cards().get(env_id)
    return card if card is not None else pack_cards()[env_id]


@functools.cache
def mined_entries() -> dict[str, dict[str, Any]]:
    """The mined environments that passed the filters (``pools/mined.json``), by id."""
    if not MINED_INDEX.exists():
        return {}
    return {e["id"]: e for e in json.loads(MINED_INDEX.read_text(encoding="utf-8"))}


def _mined_card(entry: dict[str, Any]) -> ThemeCard:
    digest = int.from_bytes(hashlib.blake2b(entry["id"].encode(), digest_size=4).digest(), "big")
    return ThemeCard(id=entry["id"], title=entry["title"], description=entry["description"],
                     l1=entry["l1"], l2=entry["l2"], l3=entry["title"],
                     archetype=MINED_PREFIX + entry["package"], features=(), region="",
                     seed=digest)


def is_mined(card: ThemeCard) -> bool:
    return card.archetype.startswith(MINED_PREFIX)


@functools.cache
def world_cards() -> dict[str, ThemeCard]:
    """The shipped world: 1,975 synthesized environments beside the three reference ones.

    When the mined index holds enough servers, every one is mined. Categories are filled
    evenly: each second-level category serves its mined servers up to a common cap (the
    smallest that fills the world), in the index's priority order, so a category the registry
    is rich in (Docs & Knowledge Bases) does not crowd out a thin one (Air Travel). With fewer
    mined servers than slots, each category serves its mined servers first and domain-pack
    environments for the leaves left, as many leaves as the taxonomy gives it.
    """
    packs = _pack_cards()
    entries = list(mined_entries().values())
    if not entries:
        return {card.id: card for card in packs}
    slots = sum(c.leaves for c in TAXONOMY) - len(_reference_ids())
    order = {c.l2: i for i, c in enumerate(TAXONOMY)}
    if len(entries) >= slots:
        quota = mined_quota(Counter(e["l2"] for e in entries), slots, order)
        chosen = []
        for entry in entries:
            if quota.get(entry["l2"], 0) > 0:
                quota[entry["l2"]] -= 1
                chosen.append(_mined_card(entry))
    else:
        chosen = _mined_then_packs(entries, packs)
    chosen.sort(key=lambda card: order.get(card.l2, len(order)))   # stable: priority order
    return {card.id: card for card in chosen}


def mined_quota(available: Counter, slots: int, order: dict[str, int]) -> dict[str, int]:
    """How many mined servers each category serves: all of a category's servers up to a common
    cap, the smallest cap that fills ``slots``; where that overshoots, the categories at the
    cap with the most servers give one back each (ties in taxonomy order)."""
    cap = 0
    while sum(min(n, cap) for n in available.values()) < slots:
        cap += 1
    quota = {l2: min(n, cap) for l2, n in available.items()}
    excess = sum(quota.values()) - slots
    at_cap = sorted((l2 for l2, n in available.items() if n >= cap),
                    key=lambda l2: (-available[l2], order.get(l2, len(order)), l2))
    for l2 in at_cap[:excess]:
        quota[l2] -= 1
    return quota


def _mined_then_packs(entries: list[dict[str, Any]], packs: list[ThemeCard]) -> list[ThemeCard]:
    room = {c.l2: c.leaves for c in TAXONOMY}
    for card in packs:                        # the reference environments' leaves stay theirs
        room.setdefault(card.l2, 0)
    room = {l2: n - _reference_leaves(l2) for l2, n in room.items()}
    chosen: list[ThemeCard] = []
    for entry in entries:
        if room.get(entry["l2"], 0) > 0:
            room[entry["l2"]] -= 1
            chosen.append(_mined_card(entry))
    taken = {card.id for card in chosen}
    for card in packs:
        if room.get(card.l2, 0) > 0 and card.id not in taken:
            room[card.l2] -= 1
            chosen.append(card)
    return chosen


def _reference_ids() -> list[str]:
    from .taxonomy import REFERENCE_LEAVES

    return list(REFERENCE_LEAVES)


def _reference_leaves(l2: str) -> int:
    from .taxonomy import REFERENCE_LEAVES

    return sum(1 for category in REFERENCE_LEAVES.values() if category == l2)


def world_ids() -> list[str]:
    return list(world_cards())


def world_summaries() -> list[dict[str, Any]]:
    out = []
    for c in world_cards().values():
        summary = {"id": c.id, "title": c.title, "description": c.description,
                   "taxonomy": {"l1": c.l1, "l2": c.l2, "l3": c.l3}}
        if is_mined(c):
            entry = mined_entries()[c.id]
            summary.update(kind="mined", provenance={"package": entry["package"],
                                                     "version": entry["version"],
                                                     "registry": "pypi"})
        else:
            summary.update(kind="synthesized", archetype=c.archetype,
                           features=list(c.features), region=c.region)
        out.append(summary)
    return out


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

    card = card_for(env_id)
    if is_mined(card):
        from .mined.compile import compile_mined
        from .mined.world import snapshot_record

        entry = mined_entries()[env_id]
        return compile_mined(snapshot_record(entry["package"]), env_id=env_id,
                             exclude=entry["exclude"])
    return compile_card(card, archetype_for(card))


@functools.cache
def _data_digest() -> str:
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(DATA_DIR.glob("*.csv")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(env_id: str) -> str:
    """What a cached template depends on: the engine, the data, the card and its archetype."""
    card = card_for(env_id)
    if is_mined(card):
        from .mined.world import snapshot_record

        entry = mined_entries()[env_id]
        facts = json.dumps(snapshot_record(entry["package"]), sort_keys=True)
        text = repr((ENGINE_VERSION, MINED_ENGINE_VERSION, _data_digest(), card, facts,
                     sorted(entry["exclude"])))
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
    text = repr((ENGINE_VERSION, _data_digest(), card, archetype_for(card)))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
