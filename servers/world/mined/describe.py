"""Tool and parameter descriptions, written by the project from the compiled semantics.

The mined server's own docstrings are its authors' text and are not shipped; what an agent
reads here says what the compiled tool really does, in plain sentences.
"""

from __future__ import annotations

from typing import Any

__all__ = ["describe_tool", "describe_param", "article"]

# The states in which ops.py refuses edits (kept here too: ops imports this module).
_FROZEN = ("cancelled", "archived", "deleted", "void", "revoked", "terminated", "rolled_back",
           "merged")
_VOWEL_SOUND_EXCEPTIONS = ("uni", "use", "user", "usa", "one", "eu")


def article(noun: str) -> str:
    """``a`` or ``an`` by the sound of the next word (an invoice, a user, an hour)."""
    word = noun.lower()
    if word.startswith(_VOWEL_SOUND_EXCEPTIONS):
        return "a"
    if word.startswith(("hour", "honest", "heir")):
        return "an"
    return "an" if word[:1] in "aeiou" else "a"


def _noun(entity) -> str:
    return entity.name.replace("_", " ")


def _plural(entity) -> str:
    return entity.plural.replace("_", " ")


def describe_tool(binding, entity) -> str:
    noun, plural, op = _noun(entity), _plural(entity), binding.op
    key = binding.key.replace("_", " ") if binding.key else "id"
    if op == "list":
        parts = [f"List {plural}"]
        filters = [n.replace("_", " ") for n in binding.columns]
        if filters:
            parts.append(f", filtered by {', '.join(filters[:4])}")
        if binding.query:
            parts.append(f"; {binding.query} matches text in the {entity.label.replace('_', ' ')}")
        bounds = [b for b in (binding.since, binding.until) if b]
        if bounds:
            parts.append(f"; {' and '.join(bounds)} bound a time window")
        return "".join(parts) + ". Newest first, paged; the reply gives the total."
    if op == "count":
        return f"Count the {plural} that match the given filters."
    if op == "aggregate":
        by = " by status" if entity.states else ""
        return f"Summarize {plural}: how many there are{by}, with totals of their numbers."
    if op == "get":
        if not binding.key:
            return f"Get the most recent {noun}, with every field."
        return f"Get one {noun} by its {key}, with every field."
    if op == "create":
        start = f" It starts as {entity.initial}." if entity.states else ""
        return f"Create {article(noun)} {noun} and return it.{start}"
    if op == "update":
        frozen = [s for s in entity.states if s in _FROZEN]
        tail = f" Refused once it is {' or '.join(frozen)}." if frozen else ""
        return (f"Change {article(noun)} {noun} found by its {key}; only the given values "
                f"change.{tail}")
    if op == "clear":
        return f"Remove the given values from {article(noun)} {noun}; they must be set on it."
    if op == "delete":
        return (f"Delete {article(noun)} {noun} by its {key}. Refused while other records "
                "still refer to it.")
    if op == "transition":
        sources, target = entity.moves[binding.tool]
        return (f"{binding.verb.replace('_', ' ').capitalize()} {article(noun)} {noun}: it "
                f"becomes {target}. Only {article(sources[0])} {' or '.join(sources)} {noun} "
                "can be.")
    if op == "flag":
        state = "on" if binding.flag_value else "off"
        return f"Turn the {binding.target} mark {state} for {article(noun)} {noun}."
    return f"Work with {plural}."


def _example(col) -> str:
    if col is None:
        return ""
    if col.kind == "enum":
        return f" One of: {', '.join(col.values[:8])}."
    if col.kind == "date":
        return " A date, YYYY-MM-DD, e.g. 2026-03-16."
    if col.kind == "datetime":
        return " A time in ISO 8601, e.g. 2026-03-16T14:30:00Z."
    if col.kind == "email":
        return " An email address, e.g. dana.ortiz@example.com."
    if col.kind == "url":
        return " A full URL starting with https://."
    if col.kind == "currency":
        return " An ISO 4217 code, e.g. EUR."
    if col.kind == "json":
        return " A JSON list or object."
    if col.kind in ("int", "float") and col.minimum is not None:
        return f" Typically {col.minimum:g} to {col.maximum:g}."
    return ""


def _bound_text(name: str, upper: bool, entity) -> str:
    column = entity.bounded_column(name, upper)
    side = "or before" if upper else "or after"
    if column in ("created_at", "updated_at"):
        verb = "created" if column == "created_at" else "last changed"
        return f"Only {_plural(entity)} {verb} at {side} this time (ISO 8601)."
    what = column.replace("_", " ")
    return f"Only {_plural(entity)} whose {what} is at {side} this time (ISO 8601)."


def describe_param(p: dict[str, Any], binding, entity) -> str:
    name = p["name"]
    words = name.replace("_", " ")
    role = binding.paging.get(name)
    if name == binding.key:
        return f"The {binding.key_column if binding.key_column != 'id' else 'id'} of the " \
               f"{_noun(entity)} to act on, as other {_plural(entity)} tools return it."
    if role == "limit":
        return "How many results to return at most (1 to 100; 20 when omitted)."
    if role in ("offset", "cursor"):
        return "How many results to skip: the next_offset of the previous page."
    if role == "page":
        return "Which page of results to return, counting from 1."
    if name == binding.query:
        return f"Text to look for in the {_plural(entity)}' names and text fields."
    if name == binding.sort:
        return "The field to sort by (prefix with - for descending), or asc/desc."
    if name in (binding.since, binding.until):
        return _bound_text(name, name == binding.until, entity)
    if name in binding.options:
        return f"Presentation option ({words}); it does not change which records match."
    column = binding.columns.get(name)
    col = entity.columns.get(column) if column else None
    if column == "status":
        return f"The {_noun(entity)}'s status: one of {', '.join(entity.states)}."
    if col is not None and col.kind == "ref":
        return f"The id of the {col.ref.replace('_', ' ')} this {_noun(entity)} belongs to."
    if binding.op in ("list", "count", "aggregate"):
        return f"Only {_plural(entity)} whose {words} is this value.{_example(col)}"
    return f"The {_noun(entity)}'s {words}.{_example(col)}"
