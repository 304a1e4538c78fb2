"""The entity model a mined surface implies, and what each kept tool does to it.

Entities come from the nouns in tool names (``list_projects`` -> project) and from ``*_id``
parameters (``project_id`` -> a reference to project). Columns come from the parameters of the
tools that create, change and filter each entity. Lifecycles come from state verbs
(``approve_request`` -> request moves to approved). Each kept tool gets a :class:`Binding`: its
operation, its entity, and what each of its real parameters means (a column, the row's key, a
page size, a text query, a sort, a date bound, or a presentation option). A tool that none of
this fits is dropped with a reason.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from agentworld.servers.words import plural, singular, words

from .columns import (
    PAGING,
    PERSON_NOUNS,
    QUERY,
    SINCE,
    SORT,
    UNTIL,
    Column,
    column_for,
    evident_type,
    is_option,
    is_ref_name,
    ref_noun,
    widen,
)
from .parse import _VERBS, FLAG_VERBS, STATE_TARGETS, UNDOES, Intent, read_name

__all__ = ["Binding", "MinedEntity", "MinedModel", "build_model", "Drop", "common_first_words"]

# Nouns that name a field of a row rather than a kind of row: set_task_priority(task_id, ...).
_FIELD_NOUNS = frozenset("status state priority title name description tag label assignee "
                         "owner due_date deadline note notes estimate rating visibility "
                         "category color colour length position volume pan size duration "
                         "width height".split())
# Last words that make a compound name one record's part (get_file_content, get_item_properties)
# while standing alone they may name a record (a CMS keeps "content").
_PART_NOUNS = _FIELD_NOUNS | frozenset("properties property details detail info metadata "
                                       "settings setting content text value url output".split())
# Nouns that name a state or a facility of the service itself, never a row it keeps
# (get_health, check_idempotency, get_realtime, restart_required); measured as the commonest
# such "entities" over 500 selected servers.
# Plural last words that still name one record's parts: get_item_properties reads one item.
_ONE_RECORDS_PARTS = frozenset("properties property details detail settings setting info "
                               "metadata".split())
_NOT_RECORDS = frozenset("health idempotency performance create api apply public external "
                         "search cache usage test system context time date progress preview "
                         "ping debug help login logout auth authentication json xml html async "
                         "sync realtime restart_required server_info connection_status".split())
# Keys that name a row, in the order they are preferred.
_KEY_NAMES = ("id", "uid", "key", "slug", "code", "number", "identifier", "handle", "symbol",
              "username", "name", "title")
_RESERVED = frozenset({"id", "status", "created_at", "updated_at"})
MAX_COLUMNS = 40
_MONEY_NOUN = re.compile(r"(^|_)(price|rate|balance|quote|fee|cost|amount|valuation)$")


@dataclass(frozen=True)
class Drop:
    tool: str
    reason: str


@dataclass
class Binding:
    """One kept tool: its real name and parameters, and what the compiler makes them do."""

    tool: str
    op: str
    entity: str
    params: list[dict[str, Any]]          # the real parameters (name, type, required, enum, items)
    verb: str = ""
    key: str = ""                         # the parameter naming the row
    key_column: str = "id"                # the column that parameter is matched against
    columns: dict[str, str] = field(default_factory=dict)   # parameter -> column
    paging: dict[str, str] = field(default_factory=dict)    # parameter -> limit/offset/page/cursor
    query: str = ""
    sort: str = ""
    since: str = ""
    until: str = ""
    options: list[str] = field(default_factory=list)        # accepted, change nothing
    target: str = ""                      # transition: the state; flag: the column
    flag_value: bool = True
    origin: str = "mined"                 # "mined", or "added" by topping up


@dataclass
class MinedEntity:
    name: str
    plural: str
    columns: dict[str, Column] = field(default_factory=dict)
    label: str = ""
    integer_ids: bool = False
    states: list[str] = field(default_factory=list)   # empty: no lifecycle
    initial: str = ""
    moves: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)  # verb -> (from, to)
    person: bool = False
    count: int = 40

    def bounded_column(self, bound: str, upper: bool) -> str:
        """The column a listing's time bound ``bound`` compares: the creation or update time
        when the bound names it (``created_after``, ``updated_since``); otherwise the record's
        own span, as a calendar's ``time_min``/``time_max`` do: a lower bound on when it ends
        and an upper bound on when it starts, so what overlaps the window is listed; and the
        creation time for a record without dates."""
        lowered = bound.lower()
        if "created" in lowered:
            return "created_at"
        if "updated" in lowered or "modified" in lowered:
            return "updated_at"
        dated = [n for n, c in self.columns.items() if c.kind in ("date", "datetime")]
        starts = [n for n in dated if "start" in n.lower() or "begin" in n.lower()]
        ends = [n for n in dated if "end" in n.lower().split("_") or "finish" in n.lower()]
        ordered = (starts + ends) if upper else (ends + starts)
        return ordered[0] if ordered else "created_at"

    def add(self, column: Column) -> str | None:
        """Add or widen a column; returns the name it is kept under, None when not kept.
        SQLite's column names ignore case, so ``dataSourceUid`` joins ``datasourceUid``."""
        if column.name in _RESERVED or column.name == self.label and column.kind == "ref":
            return None
        same = next((n for n in self.columns if n.lower() == column.name.lower()), column.name)
        column = replace(column, name=same) if same != column.name else column
        current = self.columns.get(column.name)
        if current is None and len(self.columns) < MAX_COLUMNS:
            self.columns[column.name] = column
        elif current is not None:
            self.columns[column.name] = widen(current, column)
        return column.name if column.name in self.columns else None


@dataclass
class MinedModel:
    entities: dict[str, MinedEntity]
    bindings: list[Binding]
    dropped: list[Drop]

    def order(self) -> list[MinedEntity]:
        """Entities with referred ones first; a reference that would close a cycle is cut."""
        done: list[str] = []
        visiting: set[str] = set()

        def visit(name: str) -> None:
            if name in done or name in visiting:
                return
            visiting.add(name)
            entity = self.entities[name]
            for col in list(entity.columns.values()):
                if col.kind == "ref":
                    if col.ref in visiting or col.ref == name:
                        entity.columns[col.name] = Column(col.name, "key", col.json_type)
                    else:
                        visit(col.ref)
            visiting.discard(name)
            done.append(name)

        for name in sorted(self.entities):
            visit(name)
        return [self.entities[n] for n in done]


def common_first_words(tool_names: list[str]) -> frozenset[str]:
    """First words most of a server's tool names share (taiga_list_projects -> taiga), verbs
    left out: a name that starts with a shared verb (list_projects) has no prefix."""
    firsts = Counter(words(n)[0] for n in tool_names if words(n))
    return frozenset(w for w, c in firsts.items()
                     if c >= max(3, 0.6 * len(tool_names)) and w not in _VERBS)


def _prefixes(package: str, tool_names: list[str]) -> frozenset[str]:
    """Words that name the server in its tool names: the shared first words, and the
    package's own words where a tool name starts with one."""
    package_words = {w for w in words(package) if w not in ("mcp", "server", "py", "python")}
    return common_first_words(tool_names) | frozenset(
        w for w in package_words - _VERBS if any(words(n)[:1] == [w] for n in tool_names))


def _clean_noun(noun: str) -> str:
    return "_".join(singular(p) for p in noun.split("_") if p)


# One object parameter under these names wraps the real ones (fintable_create_rule(params)):
# the snapshot keeps its type, not its fields, so nothing says what the tool takes.
_WRAPPERS = frozenset("params parameters args arguments _args kwargs request req body payload "
                      "input inp input_data data".split())


def _wrapped(params: list[dict[str, Any]]) -> bool:
    return len(params) == 1 and params[0]["type"] == "object" and \
        params[0]["name"].lower() in _WRAPPERS


def _names_records(intent: Intent) -> bool:
    """Whether the tool makes, removes or lists rows of its noun: add_notes_to_clip,
    delete_label and get_clip_notes keep notes and labels of their own, where
    set_task_priority and get_ticket_status read a field of a task or ticket."""
    return intent.op in ("create", "delete") or intent.op == "list" and intent.plural


def _entity_noun(intent: Intent, nouns: set[str], params: list[dict[str, Any]]) -> str:
    """Compound nouns collapse onto their last word when that is an entity of its own, or when
    the first word is one and the tool names it by id (list_task_attachments(task_id) ->
    attachment of a task); get_order_book(symbol) stays an order book."""
    noun = intent.noun
    if "_" in noun:
        first, last = noun.split("_", 1)[0], noun.rsplit("_", 1)[-1]
        if last in _FIELD_NOUNS and _names_records(intent):   # get_clip_notes -> clip_note
            return last if last in nouns else noun
        if intent.op in ("update", "clear", "flag") and first in nouns and any(
                p["name"].lower() == first or p["name"].lower().startswith(first + "_")
                for p in params):
            return first                        # set_track_mute(track_index) changes a track
        if last in _PART_NOUNS:                 # update_ticket_status -> ticket
            return first
        by_id = any(is_ref_name(p["name"]) and ref_noun(p["name"]).endswith(first)
                    for p in params)
        if last in nouns or first in nouns and by_id:
            return last
    return noun


def _ref_target(noun: str, entities: set[str]) -> str:
    last = noun.rsplit("_", 1)[-1]
    if noun in entities:
        return noun
    if last in entities:
        return last
    if last in PERSON_NOUNS:
        return next((p for p in ("user", "member", "employee", "contact", "customer")
                     if p in entities), "user")
    return noun


def build_model(package: str, tools: list[dict[str, Any]]) -> MinedModel:
    """Read a surface (the snapshot's tool facts) into entities and bindings."""
    tools = [{**t, "params": None if t.get("params") is None else [
        {**p, "type": evident_type(p["name"], p["type"])} for p in t["params"]]} for t in tools]
    names = [t["name"] for t in tools]
    prefixes = _prefixes(package, names)
    intents: dict[str, Intent] = {}
    dropped: list[Drop] = []
    for t in tools:
        intent = read_name(t["name"], prefixes)
        if not intent.op:
            dropped.append(Drop(t["name"], intent.reason))
        elif t.get("params") is None:
            dropped.append(Drop(t["name"], "its parameters are not declared statically"))
        elif _wrapped(t["params"]):
            dropped.append(Drop(t["name"], f"its parameters are wrapped in one object "
                                           f"({t['params'][0]['name']}) whose fields are not "
                                           "declared statically"))
        else:
            # get_item_properties reads one item, though "properties" is plural; alone,
            # list_properties (GA4) lists properties.
            first, _, last = intent.noun.rpartition("_")
            op = "get" if intent.op == "list" and first and last in _ONE_RECORDS_PARTS \
                else intent.op
            intents[t["name"]] = Intent(intent.verb, op, _clean_noun(intent.noun),
                                        intent.plural, intent.reason)
    nouns = {i.noun for i in intents.values()
             if i.noun and (i.noun not in _FIELD_NOUNS or _names_records(i))}
    main = Counter(i.noun for i in intents.values() if i.noun in nouns).most_common(1)
    fallback = main[0][0] if main else ""
    entities: dict[str, MinedEntity] = {}

    def entity(name: str) -> MinedEntity:
        if name not in entities:
            entities[name] = MinedEntity(name, plural(name), person=name in PERSON_NOUNS)
        return entities[name]

    plan: list[tuple[dict[str, Any], Intent, str]] = []
    for t in tools:
        intent = intents.get(t["name"])
        if intent is None:
            continue
        params = t["params"] or []
        target = _entity_noun(intent, nouns, params)
        refs = [ref_noun(p["name"]) for p in params if is_ref_name(p["name"])]
        if not target or target in _FIELD_NOUNS and target not in nouns:
            own = next((r for r in refs if r in nouns), refs[0] if refs else "")
            target = _clean_noun(own) if own else ("" if intent.op == "aggregate" else fallback)
        target = "user" if target == "me" else target         # get_me reads the caller
        if target in _NOT_RECORDS:
            dropped.append(Drop(t["name"], f"names a state of the service ({target}), not a "
                                           "record it keeps"))
            continue
        if not target and intent.op != "aggregate":
            dropped.append(Drop(t["name"], "names no kind of record"))
            continue
        if target:
            entity(target)
        plan.append((t, intent, target))
    known = set(entities)
    bindings = []
    for t, intent, target in plan:
        b = _bind(t, intent, target, entities, known, entity)
        if b.op in ("update", "delete", "transition", "flag", "clear") and not b.key:
            dropped.append(Drop(b.tool, "names no record to act on"))
        elif b.op in ("update", "clear") and not b.columns:
            dropped.append(Drop(b.tool, "names nothing to change on the record"))
        else:
            bindings.append(b)
    for b in bindings:
        if b.op == "aggregate" and not b.entity:
            b.entity = fallback or next(iter(entities), "")
    kept = [b for b in bindings if b.entity]
    _finish_entities(entities, kept)
    for b in [b for b in kept if b.op == "transition" and b.tool not in entities[b.entity].moves]:
        kept.remove(b)
        dropped.append(Drop(b.tool, f"no state of a {b.entity.replace('_', ' ')} can move to "
                                    f"{b.target}"))
    return MinedModel(entities, kept, dropped)


def _bind(t: dict[str, Any], intent: Intent, target: str, entities: dict[str, MinedEntity],
          known: set[str], entity) -> Binding:
    params = t["params"] or []
    b = Binding(t["name"], intent.op, target, params, verb=intent.verb)
    e = entities.get(target)
    keyed = intent.op in ("get", "update", "delete", "transition", "flag", "clear")
    key = _key_param(target, params) if keyed else ""
    if key:
        b.key = key
        lowered = key.lower()
        if lowered in ("id", f"{target}_id", target) or (is_ref_name(key) and _ref_target(
                ref_noun(key), known) == target):
            b.key_column = "id"
            integer = next(p for p in params if p["name"] == key)["type"] == "integer"
            if e is not None and integer:
                e.integer_ids = True
        else:
            b.key_column = key
            if e is not None:
                e.add(Column(key, "key", next(p for p in params if p["name"] == key)["type"],
                             unique=True))
    for p in params:
        name = p["name"]
        if name == key:
            continue
        lowered = name.lower()
        if is_option(name):
            b.options.append(name)
        elif intent.op in ("list", "count", "aggregate") and lowered in PAGING:
            b.paging[name] = PAGING[lowered]
        elif intent.op in ("list", "count", "aggregate") and lowered in QUERY \
                and p["type"] == "string":
            b.query = name
        elif intent.op in ("list", "count") and lowered in SORT and p["type"] == "string":
            b.sort = name
        elif intent.op in ("list", "count", "aggregate") and lowered in SINCE \
                and p["type"] == "string":
            b.since = name
        elif intent.op in ("list", "count", "aggregate") and lowered in UNTIL \
                and p["type"] == "string":
            b.until = name
        elif intent.op in ("get", "delete", "aggregate") or p["type"] == "object" and \
                intent.op in ("list", "count"):
            b.options.append(name)
        elif is_ref_name(name):
            ref = _clean_noun(_ref_target(ref_noun(name), known))
            if ref == target:
                b.options.append(name)
                continue
            entity(ref)
            kept = e.add(Column(name, "ref", p["type"], ref=ref)) if e is not None else None
            if kept:
                b.columns[name] = kept
            else:
                b.options.append(name)
        elif _filtered(lowered, intent.op) in ("status", "state") and e is not None and \
                intent.op in ("list", "count", "create", "update"):
            b.columns[name] = "status"
            if p.get("enum"):
                for v in p["enum"]:
                    if isinstance(v, str) and v and v not in e.states:
                        e.states.append(v)
        elif e is not None:
            # rename_track(track_index, new_name) changes the track's name.
            column = name[4:] if intent.op == "update" and lowered.startswith("new_") \
                and len(name) > 5 and name[4:].lower() not in _RESERVED else name
            if _filtered(lowered, intent.op) != lowered and name[:-7].lower() not in _RESERVED:
                column = name[:-7]          # list_applications(project_filter): by project
            kept = e.add(column_for(column, p["type"], p.get("enum"), p.get("items")))
            if kept:
                b.columns[name] = kept
            else:
                b.options.append(name)
    if intent.op == "transition":
        b.target = intent.reason if intent.verb == "mark" else STATE_TARGETS[intent.verb]
    elif intent.op == "flag":
        b.target, b.flag_value = FLAG_VERBS[intent.verb]
        if e is not None:
            e.add(Column(b.target, "bool", "boolean"))
    return b


def _filtered(lowered: str, op: str) -> str:
    """The column a listing's ``<column>_filter`` parameter filters by (ArgoCD's
    ``status_filter``), else the name as it is: a filter is no column of its own."""
    if op in ("list", "count") and lowered.endswith("_filter") and len(lowered) > 7:
        return lowered[:-7]
    return lowered


def _key_param(target: str, params: list[dict[str, Any]]) -> str:
    params = [p for p in params if not is_option(p["name"])]
    by_name = {p["name"].lower(): p["name"] for p in params       # a row is named by a plain
               if p["type"] in ("string", "integer", "any")}  # (or undeclared) value
    last = target.rsplit("_", 1)[-1]
    if target in {p["name"].lower() for p in params if p["type"] in ("string", "integer", "any")}:
        return next(p["name"] for p in params if p["name"].lower() == target)   # delete_item(item)
    for candidate in ("id", f"{target}_id", f"{last}_id", f"{target}id", f"{last}id",
                      f"{target}_uid", f"{target}_key", f"{target}_name", f"{target}_slug",
                      f"{target}_number", f"{last}_name", f"{last}_key"):
        if candidate in by_name:
            return by_name[candidate]
    for key in _KEY_NAMES:
        if key in by_name and key not in ("name", "title"):
            return by_name[key]
    # Else the first required plain value names the row (remove_member(email)); a number names
    # one only when it says it is an index or a number (a time signature's numerator does not).
    required = [p for p in params if p.get("required") and not is_ref_name(p["name"])
                and not p.get("enum") and (p["type"] == "string" or p["type"] == "integer" and set(
                    words(p["name"])) & {"index", "idx", "number", "no", "num", "position"})]
    return required[0]["name"] if required else ""


def _finish_entities(entities: dict[str, MinedEntity], bindings: list[Binding]) -> None:
    for e in entities.values():
        for col in e.columns.values():     # a row referred to by number has numeric ids
            if col.kind == "ref" and col.json_type == "integer" and col.ref in entities:
                entities[col.ref].integer_ids = True
    for e in entities.values():
        for candidate in ("name", "title", "subject", "summary", "label", "display_name",
                          "full_name", "username", "key", "slug"):
            if candidate in e.columns and e.columns[candidate].kind in ("text", "name", "key"):
                e.label = candidate
                break
        else:
            texts = [n for n in ("body", "content", "text", "message", "description", "comment",
                                 "note", "notes") if n in e.columns and e.columns[n].kind == "text"]
            if texts:
                e.label = texts[0]
            else:
                e.label = "name"
                e.columns = {"name": Column("name", "name" if e.person else "text"),
                             **e.columns}
        if _MONEY_NOUN.search(e.name) and not any(
                c.kind in ("int", "float") for c in e.columns.values()):
            # A price, rate or balance is a number before anything else.
            e.columns[e.name] = Column(e.name, "float", "number", minimum=0.5, maximum=5000)
        if not e.states and not any(b.entity == e.name and b.op == "transition"
                                    for b in bindings) and any(b.entity == e.name and "status" in b.columns.values()
                                for b in bindings):
            # A status the server sets freely, with no lifecycle verbs: a plain column.
            e.columns["status"] = Column("status", "text", vocab=free_statuses(e.name))
        moves = [b for b in bindings if b.entity == e.name and b.op == "transition"]
        if moves or e.states:
            _lifecycle(e, moves)
        if e.person:
            e.count = 30


# The states a kind of record is in where the server sets its status freely, by the record's
# last word: a Google Ads campaign is enabled or paused, a Cloudflare zone active or pending;
# only work items are open, in progress or done. Everything else is active or not.
_STATUS_FAMILIES = (
    (frozenset("task issue ticket todo story bug card subtask epic incident request "
               "action_item item checklist milestone".split()), ("open", "in progress", "done")),
    (frozenset("campaign ad ad_group adgroup keyword creative ad_set adset asset "
               "audience".split()), ("enabled", "paused", "removed")),
    (frozenset("order shipment delivery fulfillment".split()),
     ("pending", "shipped", "delivered", "cancelled")),
    (frozenset("invoice bill payment charge payout refund transaction".split()),
     ("draft", "open", "paid", "void")),
    (frozenset("post page article document doc draft note story_post entry blog "
               "template".split()), ("draft", "published", "archived")),
    (frozenset("run build deployment pipeline workflow_run execution task_run "
               "backup export import sync".split()), ("queued", "running", "succeeded", "failed")),
    (frozenset("zone domain server instance cluster node host service app application "
               "database site endpoint website certificate".split()),
     ("active", "pending", "disabled")),
)


def free_statuses(entity: str) -> tuple[str, ...]:
    """The status values of an entity whose status no tool moves (a heuristic on its name)."""
    last = entity.rsplit("_", 1)[-1]
    for names, states in _STATUS_FAMILIES:
        if entity in names or last in names:
            return states
    return ("active", "inactive", "archived")


def _lifecycle(e: MinedEntity, moves: list[Binding]) -> None:
    targets = [b.target for b in moves]
    states = list(dict.fromkeys(e.states))
    initial = states[0] if states else ("open" if "closed" in targets or "open" in targets
                                         else "draft" if "published" in targets
                                         else "pending" if {"approved", "rejected"} & set(targets)
                                         else "active")
    states = list(dict.fromkeys([initial, *states, *targets]))
    terminal = {"cancelled", "deleted", "rejected", "declined", "void", "revoked", "terminated",
                "expired", "withdrawn", "refunded", "merged", "rolled_back"}
    e.states, e.initial = states, initial
    for b in moves:
        undone = UNDOES.get(b.verb)
        if undone and STATE_TARGETS.get(undone) in states:
            sources = (STATE_TARGETS[undone],)
        else:
            sources = tuple(s for s in states if s != b.target and s not in terminal)
        if not sources and b.target != initial:
            sources = (initial,)
        if sources:
            e.moves[b.tool] = (sources, b.target)
