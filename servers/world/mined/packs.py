"""Domain packs: the hand-written archetypes, used as vocabularies for mined entities.

Where a mined entity has the name of an entity in an archetype (an ``invoice`` of an accounting
server and the accounting pack's ``invoice``), its columns of the same name take the pack's
phrases and plausible ranges, preferring packs of the server's own category and never leaving its
top-level category (a licensing server's ``product`` is not a shop's). The pack never adds tools
or changes the mined surface.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from agentworld.servers.world.spec import Field

from .model import MinedModel

__all__ = ["borrow", "pack_fields"]

_GENERIC = frozenset("item entry record object resource element node data entity asset "
                     "property detail".split())


def _archetypes(l1: str) -> list:
    """The archetypes of one top-level category (a mined server borrows from no other), so
    building one environment imports a few archetype modules rather than all fifty."""
    from agentworld.servers.world.cards import archetype_module
    from agentworld.servers.world.taxonomy import TAXONOMY

    return [a for c in TAXONOMY if c.l1 == l1 for a in archetype_module(c).ARCHETYPES]


@functools.cache
def pack_fields(l1: str) -> dict[str, list[tuple[str, str, dict[str, Field]]]]:
    """entity name -> [(category, label field, fields by name)] over the archetypes of ``l1``."""
    out: dict[str, list[tuple[str, str, dict[str, Field]]]] = {}
    for archetype in _archetypes(l1):
        for entity in archetype.entities:
            out.setdefault(entity.name, []).append(
                (archetype.l2, entity.label, {f.name: f for f in entity.fields}))
    return out


@functools.cache
def field_vocab(l1: str) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
    """field name -> [(category, phrases)] over the text fields with phrases of ``l1``'s
    archetypes."""
    out: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for archetype in _archetypes(l1):
        for entity in archetype.entities:
            for f in entity.fields:
                if f.kind == "text" and len(f.vocab) >= 4:
                    out.setdefault(f.name, []).append((archetype.l2, tuple(f.vocab)))
    return out


def _top(l2: str) -> str:
    from agentworld.servers.world.taxonomy import TAXONOMY

    return next((c.l1 for c in TAXONOMY if c.l2 == l2), l2)


def _any_pack_vocab(name: str, l2: str) -> tuple[str, ...]:
    """The phrases of a same-named field in a pack of the same category (another category's
    ``item`` or ``type`` means something else)."""
    options = [o for o in field_vocab(_top(l2)).get(name, []) if o[0] == l2]
    return options[0][1] if options else ()


def borrow(model: MinedModel, l2: str) -> int:
    """Give matching columns the packs' vocabularies and ranges; returns how many changed."""
    changed = 0
    packs = pack_fields(_top(l2))
    for entity in model.entities.values():
        options = packs.get(entity.name) or packs.get(entity.name.rsplit("_", 1)[-1]) or []
        options = sorted(options, key=lambda o: o[0] != l2)
        if entity.name.rsplit("_", 1)[-1] in _GENERIC or entity.name not in packs:
            # An audio ``item`` is not a catering ``item``: generic and partial matches borrow
            # only from packs of the server's own category.
            options = [o for o in options if o[0] == l2]
        for _, label, fields in options[:1]:
            for name, col in list(entity.columns.items()):
                field = fields.get(name) or (fields.get(label) if name == entity.label else None)
                if field is None:
                    continue
                if col.kind == "text" and field.vocab:
                    entity.columns[name] = replace(col, vocab=tuple(field.vocab))
                    changed += 1
                elif col.kind in ("int", "float") and field.kind in ("int", "float", "money") \
                        and field.min is not None and field.max is not None:
                    scale = 100 if field.kind == "money" else 1
                    entity.columns[name] = replace(col, minimum=field.min / scale,
                                                   maximum=field.max / scale)
                    changed += 1
                elif col.kind == "json" and field.vocab:
                    entity.columns[name] = replace(col, vocab=tuple(field.vocab))
                    changed += 1
    for entity in model.entities.values():
        # A column no same-named entity covers may still have a same-named field in some pack
        # (category, priority, department): its phrases beat invented ones.
        for name, col in list(entity.columns.items()):
            if col.kind == "text" and not col.vocab and name != entity.label:
                vocab = _any_pack_vocab(name, l2)
                if vocab:
                    entity.columns[name] = replace(col, vocab=vocab)
                    changed += 1
    return changed
