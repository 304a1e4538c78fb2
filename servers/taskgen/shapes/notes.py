"""A decision with a written reason: where the environment has comment threads on its main
record, hold a record back with a stated comment when it is over a limit, else let it through."""

from __future__ import annotations

from typing import Any

from ._base import Draft, ShapeContext, words
from ._common import act, capital, field_words, find_calls, opener, pick, shape
from ._common import the as the_row
from .decisions import condition, decision

__all__: list[str] = []


def _author(ctx: ShapeContext) -> tuple[dict[str, Any], str, list[list[Any]]] | None:
    """Who signs the comment: (the author argument, how the prompt names them, the calls that
    find them). A people entity's row when the service has one, else a name seen in threads."""
    archetype = ctx.compiled.archetype
    if archetype.people:
        people = ctx.entity(archetype.people)
        rows = [r["id"] for r in ctx.rows(f"SELECT id FROM {people.plural} ORDER BY id")]
        person = pick(ctx, [i for i in rows if ctx.unique_label(people, i)])
        if person is None:
            return None
        return ({"author_id": person}, the_row(ctx, people, person),
                find_calls(ctx, people, person))
    table = f"{archetype.primary}_comments"
    names = [r["author_name"] for r in ctx.rows(
        f"SELECT DISTINCT author_name FROM {table} ORDER BY author_name")]
    name = pick(ctx, names)
    return None if name is None else ({"author_name": name}, name, [])


@shape("decide_with_note")
def decide_with_note(ctx: ShapeContext) -> Draft | None:
    """If the main record's number is over a limit, hold it back with a stated comment;
    otherwise let it through."""
    if not ctx.tool_exists("add_comment"):
        return None
    primary = ctx.entity(ctx.compiled.archetype.primary)
    made = decision(ctx, [primary])
    author = _author(ctx) if made else None
    if author is None:
        return None
    entity, state, hold, let_through, f, row = made
    cond = condition(ctx, entity, row, f, over=0.75)
    if cond is None:
        return None
    over, bound, reads = cond
    who, signer, find_author = author
    body = pick(ctx, [f"{capital(words(hold.target))}: the {field_words(f)} is over the limit.",
                      f"Held back because the {field_words(f)} exceeds what we can accept.",
                      f"The {field_words(f)} is above {bound}, so this cannot go ahead."])
    target = the_row(ctx, entity, row["id"])
    ask = pick(ctx, [
        f"Please decide on {target}. If its {field_words(f)} is over {bound}, first leave a "
        f'comment on it saying "{body}", signed as {signer}, then {act(hold, "it")}. '
        f"Otherwise {act(let_through, 'it')}, with no comment.",
        f"{capital(target)} is {words(state)}. When its {field_words(f)} is more than "
        f'{bound}, add the comment "{body}" to its thread as {signer} and then '
        f"{act(hold, 'it')}; if not, just {act(let_through, 'it')}."])
    why = opener(ctx, "Every refusal needs a written reason on the record.",
                 "Our audit trail needs the reason for each decision.")
    calls = find_calls(ctx, entity, row["id"]) + reads
    if over:
        calls += find_author
        calls.append(["add_comment", {f"{entity.name}_id": row["id"], **who, "body": body}])
    calls.append([f"{(hold if over else let_through).verb}_{entity.name}", {"id": row["id"]}])
    return Draft("decide_with_note", f"{why} {ask}", calls)
