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

from .answers import date_spans, normal_text
from .record import TaskRecord
from .values import instant, leaves

__all__ = ["unspecified_steps", "unspecified_in", "scalars", "says"]

_ID = re.compile(r"^[a-z]{2,5}_[0-9a-z]{6,}$")
_FREE = ("limit", "cursor", "offset", "page", "page_size", "per_page")


def scalars(value: Any, out: set[str], norm=normal_text) -> set[str]:
    """Every scalar inside a reply (booleans and nulls aside), written by ``norm``."""
    out.update(norm(v) for v in leaves(value))
    return out


def _says_instant(prompt: str, value: Any) -> bool | None:
    """Whether the prompt states a date-time (its date in any written form and its time of day,
    24-hour or with am/pm); None when ``value`` is no date-time."""
    moment = instant(value)
    if moment is None:
        return None
    raw = str(value).strip()
    day = raw[:10]
    if day not in {iso for iso, _, _ in date_spans(prompt)} and day not in prompt:
        return False
    local = re.match(r"\d{4}-\d{2}-\d{2}[T ](\d{2}):(\d{2})", raw)
    hour, minute = int(local.group(1)), int(local.group(2))
    forms = {f"{hour:02d}:{minute:02d}", f"{hour}:{minute:02d}"}
    twelve = hour % 12 or 12
    suffix = "am" if hour < 12 else "pm"
    forms |= {f"{twelve}:{minute:02d} {suffix}", f"{twelve}:{minute:02d}{suffix}"}
    if minute == 0:
        forms |= {f"{twelve} {suffix}", f"{twelve}{suffix}"}
    said = prompt.lower().replace(".", "")
    return any(re.search(r"(?<![\d:])" + re.escape(f) + r"(?![\d:])", said) for f in forms)


def says(prompt: str, value: Any) -> bool:
    stated = _says_instant(prompt, value)
    if stated is not None:
        return stated
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
    """``tool.argument=value`` for every argument the agent has no way to know (see
    :func:`unspecified_in`)."""
    return unspecified_in(env, record.prompt, record.reference_calls, [s.output for s in steps])


def unspecified_in(env: Environment, prompt_text: str, calls, replies=()) -> list[str]:
    """``tool.argument=value`` for every argument the agent has no way to know. A read's
    optional filters are the agent's own choice (it may filter or page through everything), so
    of a read only the rows it names and its required arguments must be known; every argument
    of a write must."""
    prompt = normal_text(prompt_text)
    outputs: set[str] = set()
    missing: list[str] = []
    replies = list(replies)
    db = env.template.clone()
    try:
        for i, (name, args) in enumerate(calls):
            spec = env.tools.get(name) if name in env.tools else None
            read = spec is not None and spec.kind == "query"
            required = set(spec.input_schema.get("required", ())) if spec is not None else set()
            for key, value in _arguments(args):
                top = key.split(".", 1)[0].removesuffix("[]")
                if read and not _identifies(key, value) and top not in required:
                    continue
                known = normal_text(value) in outputs or says(prompt, value)
                if not known and isinstance(value, str):
                    known = any(says(prompt, n) for n in _row_names(db, value))
                if not known:
                    missing.append(f"{name}.{key}={value!r}")
            if i < len(replies):
                scalars(replies[i], outputs)
    finally:
        db.close()
    return missing
