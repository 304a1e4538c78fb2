"""LLM-driven synthesis, as an option: ask an OpenAI-compatible endpoint (``vllm serve``, or any
server with ``/v1/chat/completions``) for a theme card in the DSL's JSON form; the card then goes
through the same compiler and the same three filters as the hand-written ones.

Without an endpoint, nothing here runs: the offline pipeline is the default.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from agentworld.servers.chat_client import chat_completion

from .archetypes.lodging import STAY_RESERVATIONS
from .cards import card_for
from .compile import compile_card
from .filters import FilterReport, run_filters
from .spec import Archetype, Leaf
from .spec_json import archetype_from_json, archetype_to_json, leaf_from_json
from .taxonomy import TAXONOMY

__all__ = ["LLMCardResult", "synthesize_with_llm", "build_prompt", "parse_reply"]

_SYSTEM = """You design realistic, stateful tool-use environments. Answer with ONE JSON object
{"archetype": {...}, "leaf": {...}} and nothing else. The archetype uses exactly the schema of
the example: entities in dependency order (referred entities first); field kinds: text (with
vocab), code (system-issued reference, vocab[0] is the prefix), name, email, int, float, money
(integer cents), bool, date (min/max are days from the epoch 2026-03-02), enum (with values),
ref (with ref = an earlier entity), pool (with source in city, company, industry, bank, bic,
icd10, diagnosis, airport, country, currency). Constraint kinds: no_overlap, capacity,
date_order, ref_in_state, max_per_parent. Field names may not be id, query, status, limit,
cursor, created_at or updated_at. Model the entities, lifecycles and rules on how the real
service works. The leaf names the concrete service: {"id", "title", "description",
"archetype"}."""


@dataclass(frozen=True)
class LLMCardResult:
    archetype: Archetype
    leaf: Leaf
    report: FilterReport


def build_prompt(l2: str, theme: str) -> list[dict[str, str]]:
    example = {"archetype": archetype_to_json(STAY_RESERVATIONS),
               "leaf": {"id": "hotel-chain-reservations", "title": "Hotel chain reservations",
                        "description": "A hotel chain's central reservation desk.",
                        "archetype": STAY_RESERVATIONS.id}}
    return [{"role": "system", "content": _SYSTEM},
            {"role": "user", "content": "Example for Lodging > hotel reservations:\n"
             + json.dumps(example)},
            {"role": "user", "content": f"Now design: category {l2!r}, service: {theme}."}]


def parse_reply(content: str) -> tuple[Archetype, Leaf]:
    """The archetype and leaf in a model's reply (a JSON object, fenced or not)."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", content, re.DOTALL)
    text = fenced.group(1) if fenced else content[content.find("{"):content.rfind("}") + 1]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not JSON: {exc.msg}") from None
    if not isinstance(data, dict) or "archetype" not in data or "leaf" not in data:
        raise ValueError('the reply must be {"archetype": {...}, "leaf": {...}}')
    return archetype_from_json(data["archetype"]), leaf_from_json(data["leaf"])


def synthesize_with_llm(*, endpoint: str, model: str, l2: str, theme: str,
                        api_key: str | None = None, timeout: float = 120.0) -> LLMCardResult:
    """Ask the model for a card and run it through the filters.

    ``endpoint`` is the API base, e.g. ``http://127.0.0.1:8000/v1``. Raises ValueError for a
    reply that is not a valid card, and OSError when the endpoint cannot be reached.
    """
    category = next((c for c in TAXONOMY if c.l2 == l2), None)
    if category is None:
        raise ValueError(f"unknown second-level category {l2!r}")
    archetype, leaf = parse_reply(chat_completion(endpoint, model, build_prompt(l2, theme),
                                                  api_key=api_key, temperature=0.2,
                                                  timeout=timeout))
    if archetype.l2 != l2 or leaf.archetype != archetype.id:
        raise ValueError("the reply's archetype must belong to the asked category and the leaf "
                         "must name it")
    card = card_for(category, leaf, archetype, taken=set())
    return LLMCardResult(archetype, leaf, run_filters(compile_card(card, archetype)))
