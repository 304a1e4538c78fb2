"""What the shapes share: phrasing a transition as a person would, formatting values for a
prompt, the lookup calls a careful agent makes, and the gate every draft passes (its reference
solution replays without a refusal, and its prompt does not give the answer away)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agentworld.servers.world.spec import Entity, Field, Transition

from ._base import Draft, Shape, ShapeContext, words

__all__ = ["a_an", "shape", "act", "its", "and_list", "capital", "noun", "the", "in_state",
           "say_value", "money_text", "major",
           "find_calls", "field_words", "listing_calls", "count_where", "leaks", "replays",
           "opener", "numbers", "updatable", "options_of", "single_moves", "pick", "REGULAR",
           "LONG"]

REGULAR: dict[str, Shape] = {}
LONG: dict[str, Shape] = {}

# Prepositions that take the object after the verb's first word: "send X to review".
_PREPOSITIONS = ("to", "for", "on", "from", "in", "out", "into")
# Verbs whose second word is a particle that reads best after the object: "check X in".
_PARTICLES = ("in", "out", "up", "down", "back", "off", "online", "offline", "now")


def shape(name: str, *, long: bool = False, tries: int = 4) -> Callable[[Shape], Shape]:
    """Register a shape; the registered form retries with fresh draws and keeps only drafts
    whose reference solution replays cleanly and whose prompt hides the answer."""

    def register(fn: Shape) -> Shape:
        def gated(ctx: ShapeContext) -> Draft | None:
            for _ in range(tries):
                draft = fn(ctx)
                if draft is None:
                    continue
                if long and len(draft.calls) < 15:
                    continue
                if not leaks(draft) and replays(ctx, draft.calls):
                    return draft
            return None

        gated.__name__ = gated.__qualname__ = fn.__name__
        gated.__doc__ = fn.__doc__
        gated.__wrapped__ = fn  # the ungated shape, for diagnosis
        (LONG if long else REGULAR)[name] = gated
        return gated

    return register


def pick(ctx: ShapeContext, items: list | tuple) -> Any:
    return ctx.rng.choice(list(items)) if items else None


# --- wording -------------------------------------------------------------------------------

def noun(entity: Entity, plural: bool = False) -> str:
    return words(entity.plural if plural else entity.name)


def the(ctx: ShapeContext, entity: Entity, row_id: str) -> str:
    """'the purchase request "Laptops for new hires"' (with the id when the label is shared)."""
    return f"the {noun(entity)} {ctx.name_of(entity, row_id)}"


def act(t: Transition, obj: str) -> str:
    """A transition as a request: "approve X", "mark X as paid", "send X to review",
    "check X in", "open voting for X"."""
    parts = t.verb.split("_")
    if len(parts) == 1:
        return f"{t.verb} {obj}"
    head, rest = parts[0], " ".join(parts[1:])
    if head in ("mark", "flag"):
        return f"{head} {obj} as {rest}"
    if head == "go":
        return f"set {obj} to {words(t.target)}"
    if head == "make":
        return f"make {obj} {rest}"
    if parts[1] in _PREPOSITIONS and len(parts) > 2 or parts[1] == "out" and len(parts) > 2:
        return f"{head} {obj} {rest}"
    if len(parts) == 2 and parts[1] in _PARTICLES:
        return f"{head} {obj} {parts[1]}"
    if head in ("report", "declare") and parts[1] in t.target:
        return f"{head} {obj} {rest}"
    return f"{head} {rest} for {obj}"


def its(entity: Entity) -> str:
    """The possessive for a row of ``entity``: "their" for people, else "its"."""
    return "their" if entity.field(entity.label).kind == "name" else "its"


def and_list(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def in_state(ctx: ShapeContext, state: str, plural: bool = True) -> str:
    """A relative clause for a lifecycle state, varied."""
    w = words(state)
    return pick(ctx, [f"that {'are' if plural else 'is'} {w}", f"with the status {w}",
                      f"currently {w}"])


def major(cents: int) -> float:
    return round(cents / 100, 2)


def money_text(ctx: ShapeContext, cents: int) -> str:
    value = major(cents)
    text = f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"
    return f"{text} {ctx.currency}"


def field_words(f: Field) -> str:
    """A field's name as a person says it: "ends_on" -> "end date", "is_gate" -> "gate"."""
    name = f.name.removeprefix("is_") if f.kind == "bool" else f.name
    if f.kind == "date" and "date" not in name:
        for suffix in ("_on", "_at", "_by"):
            if name.endswith(suffix) and suffix != "_by":
                name = name.removesuffix(suffix)
                if name.endswith("s") and not name.endswith("ss"):
                    name = name[:-1]
                break
        return f"{words(name)} date"
    return words(name)


def say_value(ctx: ShapeContext, f: Field, value: Any) -> str:
    """A stored value as a person writes it in a request."""
    if f.kind == "money":
        return money_text(ctx, int(value))
    if f.kind == "bool":
        return "yes" if value else "no"
    if f.kind == "enum":
        return f'"{value}"'
    if f.kind in ("int", "float", "date"):
        return str(value)
    return f'"{value}"'


def opener(ctx: ShapeContext, *reasons: str) -> str:
    """Who asks and why: one of the reasons, or a generic line about the service."""
    generic = [f"I look after the records at {ctx.title}.",
               f"I'm on the operations team at {ctx.title}.",
               f"I'm covering the {ctx.title} desk today."]
    return pick(ctx, [*reasons, *reasons, *generic])


# --- declarations --------------------------------------------------------------------------

def numbers(entity: Entity, kinds: tuple[str, ...] = ("money", "int")) -> list[Field]:
    return [f for f in entity.fields if f.kind in kinds and f.required]


def updatable(ctx: ShapeContext, entity: Entity) -> list[Field]:
    """Fields update_<entity> accepts (when the tool exists)."""
    if not ctx.tool_exists(f"update_{entity.name}"):
        return []
    return [f for f in entity.fields if f.mutable and f.kind not in ("ref", "code")]


def single_moves(entity: Entity) -> list[Transition]:
    lifecycle = entity.lifecycle
    return [t for t in lifecycle.transitions if t.target not in t.sources] if lifecycle else []


def options_of(tool: str, fields: list[Field] | tuple[Field, ...],
               values: dict[str, Any]) -> list[dict[str, Any]]:
    """The stated enum values of a call, for the verifier to insist on."""
    stated = {f.name: values[f.name] for f in fields if f.kind == "enum" and f.name in values}
    return [{"tool": tool, "arguments": stated}] if stated else []


# --- reference calls -----------------------------------------------------------------------

def count_where(ctx: ShapeContext, entity: Entity, where: dict[str, Any]) -> int:
    clause = " AND ".join(f"{k} = ?" for k in where) or "1 = 1"
    return ctx.db.execute(f"SELECT COUNT(*) FROM {entity.plural} WHERE {clause}",
                          tuple(where.values())).fetchone()[0]


def find_calls(ctx: ShapeContext, entity: Entity, row_id: str) -> list[list[Any]]:
    """How an agent finds a row it was given by name: a search on its label, every page."""
    label = ctx.label(entity, row_id)
    # The search tool's own match (LIKE, case-insensitive), so the pages counted are its pages.
    escaped = str(label).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    total = ctx.db.execute(f"SELECT COUNT(*) FROM {entity.plural} WHERE {entity.label} LIKE ? "
                           "ESCAPE '\\'", (f"%{escaped}%",)).fetchone()[0]
    return ctx.page_calls(f"search_{entity.plural}", {"query": str(label)}, total)


def listing_calls(ctx: ShapeContext, entity: Entity, filters: dict[str, Any]) -> list[list[Any]]:
    """Every page of search_<plural> with exact filters (``status`` and ref/filterable fields)."""
    return ctx.page_calls(f"search_{entity.plural}", filters, count_where(ctx, entity, filters))


# --- the gate ------------------------------------------------------------------------------

def _answer_texts(answer: dict[str, Any]) -> list[str]:
    value = answer["value"]
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, float) and v == int(v):
            v = int(v)
        out.append(str(v))
        if isinstance(v, (int, float)) and abs(v) >= 1000:
            out.append(f"{v:,}")
    return out


def leaks(draft: Draft) -> bool:
    """Whether the prompt states (one of) its answer values."""
    if draft.answer is None:
        return False
    for text in _answer_texts(draft.answer):
        if re.search(rf"(?<![\w.,]){re.escape(text)}(?![\w]|[.,]\d)", draft.prompt,
                     flags=re.IGNORECASE):
            return True
    return False


class _ImageCache:
    """Serves the shape context's database as an environment's template."""

    def __init__(self, image: bytes) -> None:
        self.image = image

    def load(self, env_id: str, key: str) -> bytes:
        return self.image

    def store(self, env_id: str, key: str, image: bytes) -> None:
        return None


def replays(ctx: ShapeContext, calls: list[list[Any]]) -> bool:
    """Whether every reference call succeeds, in order, on a fresh session."""
    from agentworld.servers import Environment, Session

    env = ctx.__dict__.get("_replay_env")
    if env is None:
        env = Environment(ctx.compiled.definition, cache=_ImageCache(ctx.db.serialize()),
                          cache_key="shape-replay")
        ctx.__dict__["_replay_env"] = env
    session = Session(env, seed=0)
    try:
        return all(session.call(name, args).ok for name, args in calls)
    finally:
        session.close()


def a_an(phrase: str) -> str:
    """The phrase with its indefinite article: "an invoice", "a booking"."""
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"
