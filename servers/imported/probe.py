"""Output shapes of imported tools, observed by calling each one once.

The release declares no output schemas, and graph synthesis links tools by what one returns and
another takes (``book.author_id`` feeds ``get_author(author_id)``). Before synthesis each tool
is called once in the sandbox, on a fresh session, with arguments drawn from the data
(:mod:`.arguments`); the shape of what came back is kept in ``environment.json`` as the tool's
``output_schema``.

The schema is *structure only*: ``properties`` and ``items``, never ``type`` (below the
top-level object), ``required`` or ``additionalProperties``. JSON Schema applies those keywords
only to values of the matching kind, so such a schema accepts every output and can never turn a
later call into an error; it only tells readers which keys exist and where.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .arguments import draw_arguments, load_collections

__all__ = ["shape_of", "merge_shapes", "probe_outputs"]

_DEPTH = 6


def shape_of(value: Any, depth: int = 0) -> dict[str, Any]:
    """The structure-only schema of one JSON value."""
    if depth > _DEPTH:
        return {}
    if isinstance(value, dict):
        return {"properties": {str(k): shape_of(v, depth + 1) for k, v in value.items()}}
    if isinstance(value, list):
        items: dict[str, Any] = {}
        for item in value[:20]:
            items = merge_shapes(items, shape_of(item, depth + 1))
        return {"items": items} if items or value else {"items": {}}
    return {}


def merge_shapes(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both shapes at once: the union of their keys."""
    out = dict(a)
    if "properties" in b:
        props = dict(out.get("properties", {}))
        for key, sub in b["properties"].items():
            props[key] = merge_shapes(props.get(key, {}), sub)
        out["properties"] = props
    if "items" in b:
        out["items"] = merge_shapes(out.get("items", {}), b["items"])
    return out


def _tool_shape(env, tool: dict[str, Any], collections) -> dict[str, Any] | None:
    from ..runtime import Session

    arguments = draw_arguments(tool["input_schema"], collections)
    if arguments is None:
        return None
    session = Session(env, seed=0)
    try:
        result = session.call(tool["name"], arguments)
    finally:
        session.close()
    return {"type": "object", **shape_of(result.data)} if result.ok else None


def probe_outputs(folder: Path, env) -> int:
    """Call each tool of the imported environment in ``folder`` once (``env`` is its loaded
    :class:`Environment`) and store the observed output shapes; returns how many tools
    answered. Rewrites ``environment.json`` atomically."""
    path = Path(folder) / "environment.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    collections = load_collections(Path(folder) / "data")
    answered = 0
    for tool in doc["tools"]:
        shape = _tool_shape(env, tool, collections)
        if shape is not None:
            tool["output_schema"] = shape
            answered += 1
    doc["probed"] = True
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".environment-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1, ensure_ascii=False))
    os.replace(tmp, path)
    return answered
