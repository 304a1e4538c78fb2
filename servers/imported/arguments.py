"""Valid arguments for a release tool, drawn from its environment's own data.

Used by the fidelity check (:mod:`.verify`): a call must name things that exist, or both sides
only ever answer NOT_FOUND. Each required parameter is filled, in this order of preference:

1. from one record that can supply the most of them (so an id and the values that go with it
   belong to the same thing): the field of the same name (or ``nounId`` for ``noun_id``), or
   ``id`` of the collection that a ``<noun>_id`` parameter names;
2. from any record with such a field;
3. from the schema: an enum's first value, the default, or a plain value of the type (free
   text, 1, false) for parameters that are not identifiers.

Optional parameters are left out. Deterministic: the first fitting record wins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentworld.servers.words import singular

from . import view

__all__ = ["load_collections", "draw_arguments"]

FREE_TEXT = "Noted, thank you."
_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
          "array": list, "object": dict}


def load_collections(data_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows of every JSON collection at the top of a data folder (unreadable ones are
    left out: the tools would fail on them too)."""
    out = {}
    for path in sorted(Path(data_dir).glob("*.json")):
        try:
            out[path.stem] = view.collection_rows(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError, OSError):
            continue
    return out


def _fits(value: Any, spec: dict[str, Any]) -> bool:
    kinds = spec.get("type")
    if kinds is None and isinstance(spec.get("anyOf"), list):
        kinds = [s.get("type") for s in spec["anyOf"] if isinstance(s, dict)]
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if None in kinds or not kinds:
        return value is not None
    if isinstance(value, bool) and "boolean" not in kinds:
        return False
    if "enum" in spec and value not in spec["enum"]:
        return False
    return any(isinstance(value, _TYPES.get(k, object)) for k in kinds if k != "null")


def _names_collection(noun: str, stem: str) -> bool:
    """Whether ``<noun>_id`` names the rows of collection ``stem`` (``model_id`` names
    ``models`` and ``trending_models``)."""
    owner, noun = singular(stem), singular(noun)
    return owner == noun or owner.endswith("_" + noun)


def _from_record(param: str, spec: dict[str, Any], stem: str, row: dict[str, Any]) -> Any:
    if param in row and _fits(row[param], spec):
        return row[param]
    if param.endswith("_id"):
        camel = param[:-3] + "Id"  # modelId
        if camel in row and _fits(row[camel], spec):
            return row[camel]
        if "id" in row and _names_collection(param[:-3], stem) and _fits(row["id"], spec):
            return row["id"]
    return None


def _from_schema(param: str, spec: dict[str, Any]) -> Any:
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return next((v for v in spec["enum"] if v is not None), None)
    if "default" in spec and spec["default"] is not None:
        return spec["default"]
    if param == "id" or param.endswith(("_id", "_ids", "Id")):
        return None  # an identifier nothing real stands behind would only be refused
    kind = spec.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "string" and not spec.get("pattern") and not spec.get("format"):
        return FREE_TEXT[: spec.get("maxLength", len(FREE_TEXT))]
    if kind in ("integer", "number"):
        return max(spec.get("minimum", 1), 1)
    return {"boolean": False, "array": [], "object": {}}.get(kind)


def draw_arguments(schema: dict[str, Any],
                   collections: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """Arguments for one call, or None when a required parameter has nothing behind it."""
    props = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in props]
    rows = [(stem, row) for stem, table in collections.items() for row in table]
    best, best_score = None, 0
    for stem, row in rows:
        score = sum(_from_record(p, props[p], stem, row) is not None for p in required)
        if score > best_score:
            best, best_score = (stem, row), score
    args: dict[str, Any] = {}
    for param in required:
        spec = props[param] if isinstance(props[param], dict) else {}
        value = _from_record(param, spec, *best) if best else None
        if value is None:
            value = next((v for stem, row in rows
                          if (v := _from_record(param, spec, stem, row)) is not None), None)
        if value is None:
            value = _from_schema(param, spec)
        if value is None:
            return None
        args[param] = value
    return args
