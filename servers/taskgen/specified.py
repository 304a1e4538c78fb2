"""Whether a prompt specifies every step of its reference solution.

An argument value is specified when the agent can know it: the prompt states it (the value
itself, or, for a row's id, one of that row's names), or an earlier call of the solution returned
it. A value that is neither is a step the task leaves unspecified ("Open the flight." names no
flight). This is a mechanical reading, not an understanding of the prompt: it can accept a value
the prompt mentions for another reason, but it never accepts one the prompt does not mention.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from agentworld.servers import Environment

from .answers import normal_text
from .record import TaskRecord

__all__ = ["unspecified_steps", "scalars"]

_ID = re.compile(r"^[a-z]{2,5}_[0-9a-z]{6,}$")
_FREE = ("limit", "cursor", "offset", "page", "page_size", "per_page")


def scalars(value: Any, out: set[str], norm=normal_text) -> set[str]:
    """Every scalar inside a reply (booleans and nulls aside), written by ``norm``."""
    if isinstance(value, dict):
        for v in value.values():
            scalars(v, out, norm)
    elif isinstance(value, list):
        for v in value:
            scalars(v, out, norm)
    elif value is not None and not isinstance(value, bool):
        out.add(norm(value))
    return out


def _says(prompt: str, value: Any) -> bool:
    text = normal_text(value)
    if not text:
        return True
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        numbers = set(re.findall(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?", prompt))
        plain = {n.replace(",", "") for n in numbers}
        return text in plain or (text.isdigit() and f"{int(text) / 100:.2f}" in plain)
    forms = {text}
    if re.fullmatch(r"[a-z ]+", text):
        # "closed" is stated by "close", "archived" by "archive": the verb names the state.
        for suffix in ("ed", "d", "s", "ing"):
            if text.endswith(suffix) and len(text) - len(suffix) >= 3:
                forms.add(text[: -len(suffix)])
    return any(re.search(r"(?<![\w])" + re.escape(f) + r"(?![\w])", prompt) for f in forms)


def _row_names(db: sqlite3.Connection, value: str) -> list[str]:
    """The text values of the row whose single-column key is ``value``."""
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        keys = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[5]]
        if len(keys) != 1:
            continue
        cursor = db.execute(f'SELECT * FROM "{table}" WHERE "{keys[0]}" = ?', (value,))
        row = cursor.fetchone()
        if row is not None:
            return [str(v) for v in row if isinstance(v, str) and v != value and len(v) >= 3
                    and not re.match(r"^\d{4}-\d{2}-\d{2}", v)]
    return []


def _arguments(args: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in (args or {}).items():
        if key in _FREE:
            continue
        if isinstance(value, dict):
            out += _arguments(value, f"{prefix}{key}.")
        elif isinstance(value, list):
            out += [(f"{prefix}{key}[]", v) for v in value if not isinstance(v, dict | list)]
        elif not isinstance(value, bool) and value is not None:
            out.append((prefix + key, value))
    return out


def _identifies(key: str, value: Any) -> bool:
    last = key.rsplit(".", 1)[-1].removesuffix("[]")
    return last == "id" or last.endswith(("_id", "_ids")) or last in ("pnr", "login") or (
        isinstance(value, str) and _ID.match(value) is not None)


def unspecified_steps(env: Environment, record: TaskRecord, steps=()) -> list[str]:
    """``tool.argument=value`` for every argument the agent has no way to know. A read's
    filters other than identifiers are the agent's own choice (it may filter or page through
    everything), so only the rows a read names must be known; every argument of a write must."""
    prompt = normal_text(record.prompt)
    outputs: set[str] = set()
    missing: list[str] = []
    replies = [s.output for s in steps]
    db = env.template.clone()
    try:
        for i, (name, args) in enumerate(record.reference_calls):
            read = name in env.tools and env.tools.get(name).kind == "query"
            for key, value in _arguments(args):
                if read and not _identifies(key, value):
                    continue
                known = normal_text(value) in outputs or _says(prompt, value)
                if not known and isinstance(value, str):
                    known = any(_says(prompt, n) for n in _row_names(db, value))
                if not known:
                    missing.append(f"{name}.{key}={value!r}")
            if i < len(replies):
                scalars(replies[i], outputs)
    finally:
        db.close()
    return missing
