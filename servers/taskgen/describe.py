"""The task text for a chain, written as a request: entities the agent must find are named (by
their title or name, with the id when the name is not enough), values that came from an earlier
reply are referred to ("that reservation"), never quoted, and values chosen for a change are
stated."""

from __future__ import annotations

import sqlite3
import zlib
from typing import Any

from agentworld.servers.words import singular
from agentworld.servers.world.mined.columns import is_credential

from .graph import ToolGraph, subject_words
from .walk import Chain, Step

__all__ = ["describe_chain", "table_for", "row_name"]

# Verbs a tool name may start with ("record_payment"); other names are nouns ("member_loans").
_VERBS = frozenset({
    "add", "apply", "approve", "archive", "assign", "attach", "book", "cancel", "charge",
    "check", "close", "convert", "create", "delete", "disable", "enable", "grant", "invite",
    "issue", "link", "log", "mark", "merge", "move", "open", "pay", "post", "publish", "rate",
    "record", "refund", "register", "reject", "remove", "renew", "reopen", "report", "reserve",
    "resolve", "review", "revoke", "schedule", "send", "set", "share", "start", "stop",
    "submit", "tag", "transfer", "unlink", "untag", "upload"})

_NAME_COLUMNS = ("title", "name", "full_name", "display_name", "subject", "label", "login",
                 "flight_number", "number", "code", "email")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def table_for(db: sqlite3.Connection, noun: str) -> str | None:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for name in (noun + "s", noun + "es", noun[:-1] + "ies" if noun.endswith("y") else "", noun):
        if name in tables:
            return name
    return None


def row_name(db: sqlite3.Connection | None, noun: str, row_id: Any) -> str:
    """How a request names a row: ``"Quarterly report" (pag_000012)``, or the id alone."""
    if db is None:
        return str(row_id)
    table = table_for(db, noun)
    if table is None:
        return str(row_id)
    cols = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    keys = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[5]] or ["id"]
    for column in _NAME_COLUMNS:
        if column in cols and column not in keys:
            row = db.execute(f'SELECT "{column}" FROM "{table}" WHERE "{keys[0]}" = ?',
                             (row_id,)).fetchone()
            if row and isinstance(row[0], str | int) and str(row[0]).strip():
                return f'"{row[0]}" ({row_id})'
    return str(row_id)


def _subject_key(step: Step, noun: str) -> str | None:
    for key in step.arguments:
        if key == "id" or key == f"{noun}_id" or key == f"{noun.replace(' ', '_')}_id":
            return key
    return None


def _stated(key: str, value: Any, schema: dict[str, Any]) -> str:
    """A chosen value as a request states it: amounts in cents as money, states in words."""
    described = str(schema.get("description", ""))
    if isinstance(value, int) and not isinstance(value, bool) and "in cents" in described:
        return f"{_words(key)} {value / 100:,.2f}"
    if isinstance(value, str) and "enum" in schema:
        return f"{_words(key)} {_words(value)}"
    return f"{_words(key)} {_value(value)}"


def _arg_phrases(step: Step, skip: set[str], graph: ToolGraph, db) -> list[str]:
    props = graph.nodes[step.tool].spec.input_schema.get("properties", {})
    phrases = []
    for key, value in step.arguments.items():
        if key in skip or key in ("limit", "cursor") or value in ({}, [], ""):
            continue                    # an empty object or list asks for nothing
        if is_credential(key):
            continue                    # nobody asking for the work states a token
        source = step.sources.get(key, "")
        if source.startswith("upstream:"):
            # Observed earlier: refer to it, never quote it.
            if key.endswith("_id"):
                phrases.append(f"for that {_words(singular(key[:-3]))}")
            else:
                upstream = graph.nodes[source.removeprefix("upstream:")].noun
                phrases.append(f"with the same {_words(key)} as that {_words(upstream)}")
        elif key.endswith("_id"):
            owner = singular(key[:-3])
            phrases.append(f"for {_words(owner)} {row_name(db, owner, value)}")
        else:
            phrases.append(_stated(key, value, props.get(key, {})))
    return phrases


def _sentence(step: Step, graph: ToolGraph, db) -> str:
    node = graph.nodes[step.tool]
    noun = _words(node.noun)
    key = _subject_key(step, node.noun)
    if key is None:
        subject = None
    elif step.sources.get(key, "").startswith("upstream:"):
        subject = f"that {noun}"
    else:
        subject = f"{noun} {row_name(db, node.noun, step.arguments[key])}"
    extra = _arg_phrases(step, {key} if key else set(), graph, db)
    verb, _, rest = node.name.partition("_")
    if verb in ("search", "list", "find"):
        where = f" ({'; '.join(extra)})" if extra else ""
        return f"Find the {_words(subject_words(rest))}{where}"
    if verb == "get":
        return f"Look up {subject or 'the ' + noun}" + (f" ({', '.join(extra)})" if extra else "")
    if verb == "create":
        owners = [p for p in extra if p.startswith("for ")]
        fields = [p for p in extra if not p.startswith("for ")]
        fields = [p.removeprefix("with ") for p in fields]
        return f"Add a new {noun}" + (" " + " ".join(owners) if owners else "") + (
            f" with {', '.join(fields)}" if fields else "")
    if verb == "update":
        return f"On {subject or 'the ' + noun}, set {', '.join(extra)}"
    details = f" ({'; '.join(extra)})" if extra else ""
    if subject is None:
        action, _, thing = _words(node.name).partition(" ")
        if action in _VERBS and thing:
            # record_payment, attach_file: the tool's own words name the act.
            article = "an" if thing[:1] in "aeiou" else "a"
            return f"{action.capitalize()} {article} {thing}{details}"
        # member_loans: a name, not an act.
        if node.kind == "query":
            return f"Look up the {_words(node.name)}{details}"
        return f"Use {_words(node.name)}{details}"
    action = _words(node.name.removesuffix("_" + node.noun.replace(" ", "_")))
    return f"{action.capitalize()} {subject}{details}"


_OPENERS = (
    "Could you help me with a few things in {title}?",
    "Here is what I need done in {title} today, in this order.",
    "I'm working through my list for {title} and need a hand.",
    "A few things for you in {title}, one after the other.",
    "Before the end of the day, please take care of this in {title}.",
)


def describe_chain(chain: Chain, graph: ToolGraph, ask: str | None, *,
                   db: sqlite3.Connection | None = None, title: str = "") -> str:
    sentences = [_sentence(step, graph, db) for step in chain.steps]
    text = sentences[0] + "".join(
        f". {'Then' if i < len(sentences) - 1 else 'Finally'}, {s[0].lower() + s[1:]}"
        for i, s in enumerate(sentences[1:], start=1))
    text += "."
    if ask:
        text += f" Tell me {ask}."
    pick = zlib.crc32(repr([s.tool for s in chain.steps]).encode()) % len(_OPENERS)
    opener = _OPENERS[pick].format(title=title) if title else "Could you help me with this?"
    return f"{opener} {text}"
