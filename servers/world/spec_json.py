"""The DSL as JSON: what an LLM is shown and what it answers with.

Constraints carry a ``"kind"`` tag; every other object maps field for field onto the
dataclasses of ``spec.py``. Parsing checks shapes and names and raises ``ValueError`` with the
offending path, so a bad model reply is reported, never half-compiled.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .spec import (
    FIELD_KINDS,
    Archetype,
    Capacity,
    DateOrder,
    DatePhase,
    Distinct,
    DomainVocab,
    Entity,
    Expiry,
    Field,
    Leaf,
    Lifecycle,
    MaxPerParent,
    NoOverlap,
    Policy,
    PoolKey,
    RefInState,
    SameGroup,
    Transition,
    UniqueTogether,
)

__all__ = ["archetype_to_json", "archetype_from_json", "leaf_from_json"]

_CONSTRAINTS = {"no_overlap": NoOverlap, "capacity": Capacity, "date_order": DateOrder,
                "ref_in_state": RefInState, "max_per_parent": MaxPerParent, "policy": Policy,
                "same_group": SameGroup, "unique_together": UniqueTogether, "expiry": Expiry,
                "date_phase": DatePhase, "distinct": Distinct, "pool_key": PoolKey}
_KIND_OF = {cls: kind for kind, cls in _CONSTRAINTS.items()}


def archetype_to_json(archetype: Archetype) -> dict[str, Any]:
    data = dataclasses.asdict(archetype)
    for entity, raw in zip(archetype.entities, data["entities"], strict=True):
        raw["constraints"] = [{"kind": _KIND_OF[type(c)], **dataclasses.asdict(c)}
                              for c in entity.constraints]
    return json.loads(json.dumps(data))  # tuples become lists: plain JSON values


def _build(cls, raw: Any, path: str, **nested):
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected an object")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(raw) - names
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
    values = {}
    for key, value in raw.items():
        if key in nested:
            value = nested[key](value, f"{path}.{key}")
        elif isinstance(value, list):
            value = tuple(value)
        values[key] = value
    try:
        return cls(**values)
    except TypeError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _tuple_of(builder):
    def build(raw: Any, path: str):
        if not isinstance(raw, list):
            raise ValueError(f"{path}: expected a list")
        return tuple(builder(item, f"{path}[{i}]") for i, item in enumerate(raw))
    return build


def _field(raw: Any, path: str) -> Field:
    f = _build(Field, raw, path)
    if f.kind not in FIELD_KINDS:
        raise ValueError(f"{path}.kind: {f.kind!r} is not one of {sorted(FIELD_KINDS)}")
    return f


def _transition(raw: Any, path: str) -> Transition:
    return _build(Transition, raw, path)


def _lifecycle(raw: Any, path: str) -> Lifecycle | None:
    if raw is None:
        return None
    return _build(Lifecycle, raw, path, transitions=_tuple_of(_transition))


def _constraint(raw: Any, path: str):
    if not isinstance(raw, dict) or raw.get("kind") not in _CONSTRAINTS:
        raise ValueError(f"{path}: a constraint needs a kind in {sorted(_CONSTRAINTS)}")
    body = {k: v for k, v in raw.items() if k != "kind"}
    return _build(_CONSTRAINTS[raw["kind"]], body, path)


def _entity(raw: Any, path: str) -> Entity:
    return _build(Entity, raw, path, fields=_tuple_of(_field), lifecycle=_lifecycle,
                  constraints=_tuple_of(_constraint))


def _vocab(raw: Any, path: str) -> DomainVocab | None:
    return None if raw is None else _build(DomainVocab, raw, path)


def _pairs(raw: Any, path: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected a list")
    return tuple(tuple(pair) for pair in raw)


def archetype_from_json(raw: Any) -> Archetype:
    archetype = _build(Archetype, raw, "archetype", entities=_tuple_of(_entity), vocab=_vocab,
                       same_person=_pairs)
    if not archetype.entities:
        raise ValueError("archetype: needs at least one entity")
    return archetype


def leaf_from_json(raw: Any) -> Leaf:
    return _build(Leaf, raw, "leaf")
