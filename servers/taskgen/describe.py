"""The task text for a chain, from templates that read naturally and never quote a value the
chain observed: a value that came from an earlier call is referred to ("that reservation"),
while values drawn from the database or chosen for a new record are stated."""

from __future__ import annotations

from typing import Any

from .graph import ToolGraph, singular
from .walk import Chain, Step

__all__ = ["describe_chain"]


def _words(name: str) -> str:
    return name.replace("_", " ")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _arg_phrases(step: Step, skip: set[str], graph: ToolGraph) -> list[str]:
    phrases = []
    for key, value in step.arguments.items():
        if key in skip or key in ("limit", "cursor"):
            continue
        source = step.sources.get(key, "")
        if source.startswith("upstream:"):
            # Observed earlier: refer to it, never quote it.
            upstream = graph.nodes[source.removeprefix("upstream:")].noun
            if key.endswith("_id"):
                phrases.append(f"for that {_words(singular(key[:-3]))}")
            else:
                phrases.append(f"the same {_words(key)} as that {_words(upstream)}")
        else:
            phrases.append(f"{_words(key)} {_value(value)}")
    return phrases


def _sentence(step: Step, graph: ToolGraph) -> str:
    node = graph.nodes[step.tool]
    noun = _words(node.noun)
    target = step.arguments.get("id")
    source = step.sources.get("id", "")
    if target is None:
        subject = None
    elif source.startswith("upstream:"):
        subject = f"that {noun}"
    else:
        subject = f"{noun} {target}"
    extra = _arg_phrases(step, {"id"}, graph)
    if step.tool.startswith("search_") or step.tool.startswith("list_"):
        what = _words(step.tool.split("_", 1)[1])
        where = f" ({'; '.join(extra)})" if extra else ""
        return f"Look through the {what}{where} and take the first one listed"
    if step.tool.startswith("get_"):
        return f"Open {subject or 'the ' + noun}"
    verb = _words(step.tool.split("_", 1)[0])
    if step.tool.startswith("create_"):
        owners = [p for p in extra if p.startswith("for that ")]
        fields = [p for p in extra if not p.startswith("for that ")]
        details = (" " + " ".join(owners) if owners else "") + (
            f" with {', '.join(fields)}" if fields else "")
        return f"Create a new {noun}{details}"
    if step.tool.startswith("update_"):
        return f"Update {subject or 'the ' + noun}: set {', '.join(extra)}"
    if node.spec.name.endswith(node.noun.replace(" ", "_")) and subject:
        return f"{verb.capitalize()} {subject}" + (f" ({', '.join(extra)})" if extra else "")
    details = f" ({'; '.join(extra)})" if extra else ""
    return f"{_words(step.tool).capitalize()}{' for ' + subject if subject else ''}{details}"


def describe_chain(chain: Chain, graph: ToolGraph, ask: str | None) -> str:
    sentences = [_sentence(step, graph) for step in chain.steps]
    text = ". Then ".join(sentences[:1] + [s[0].lower() + s[1:] for s in sentences[1:]]) + "."
    if ask:
        text += f" Finally, report {ask}."
    return text
