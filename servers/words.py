"""Splitting identifiers and names into lower-case words, and their singulars, the same way
everywhere: the miner, the mined model and the task generator name things alike."""

from __future__ import annotations

import re

__all__ = ["words", "singular", "plural", "stem"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")
# Plurals of nouns ending in -ie and -che, which the -ies and -ches rules would cut wrongly.
_IE_NOUNS = frozenset("movies cookies rookies zombies calories selfies genies freebies smoothies "
                      "prairies pies ties lies hoodies goodies brownies".split())
_CHE_NOUNS = frozenset("caches niches avalanches headaches cliches moustaches".split())
# Singulars ending in -us, -as and -is take -es; most words ending in -uses, -ases and -ises
# do not (causes, databases, promises), so the -es ones are listed.
_ES_NOUNS = frozenset("statuses buses bonuses campuses viruses censuses corpuses syllabuses "
                      "prospectuses consensuses surpluses aliases canvases biases atlases "
                      "gases lenses".split())
_IRREGULAR = {"analyses": "analysis", "diagnoses": "diagnosis", "theses": "thesis",
              "hypotheses": "hypothesis", "indices": "index", "matrices": "matrix",
              "vertices": "vertex", "appendices": "appendix", "criteria": "criterion",
              "people": "person", "children": "child", "men": "man", "women": "woman",
              "quizzes": "quiz"}
_PLURAL = {one: many for many, one in _IRREGULAR.items()}
# Other plurals a tool name uses, read as singulars but never written.
_ALSO_SINGULAR = {"indexes": "index"}
# Acronyms and names ending in -s are no plurals: a DNS is no "dnse", its records no "dnses".
_SAME_IN_BOTH = frozenset("news series species data media metadata analytics dns sms gps cms "
                          "tls css rss https ios macos aws gcs kubernetes".split())
_SINGULAR_IN_S = frozenset(n[:-2] for n in _ES_NOUNS)          # status, alias: not plurals


def words(text: str) -> list[str]:
    """``listOpenIssues`` / ``list-open_issues`` / ``List open issues`` -> list, open, issues."""
    out = []
    for chunk in _SPLIT.split(text or ""):
        out += [w.lower() for w in _CAMEL.sub(" ", chunk).split() if w]
    return out


def singular(word: str) -> str:
    """A plain English singular, enough to match nouns in tool names (issues -> issue,
    statuses -> status); a word that is no plural comes back as it is (status, address)."""
    if word in _IRREGULAR or word in _ALSO_SINGULAR:
        return _IRREGULAR.get(word) or _ALSO_SINGULAR[word]
    if word in _SAME_IN_BOTH or word in _SINGULAR_IN_S:
        return word
    if word in _ES_NOUNS:
        return word[:-2]
    return stem(word)


def stem(word: str) -> str:
    """A crude singular for bags of words, and :func:`singular`'s regular rules: the rule the
    miner's classifier and selection were fitted with (``statuses`` -> ``statuse``, ``news``
    -> ``new``). Only matching uses it alone, on
    both sides alike; a name shown to anyone uses :func:`singular`. Moving the miner to
    :func:`singular` re-labels 44 of the 20,053 mined records, so it waits for a re-derived
    snapshot."""
    if word in _IE_NOUNS or word in _CHE_NOUNS:
        return word[:-1]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plural(noun: str) -> str:
    """The plural of a singular noun, or of the last word of a snake_case one (tax_rate ->
    tax_rates, status -> statuses, quiz -> quizzes): the inverse of :func:`singular`."""
    head, _, last = noun.rpartition("_")
    head = head + "_" if head else ""
    if last in _PLURAL:
        return head + _PLURAL[last]
    if last in _SAME_IN_BOTH:
        return head + last
    if last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        return head + last[:-1] + "ies"
    if last.endswith(("s", "x", "z", "ch", "sh")):
        return head + last + "es"
    return head + last + "s"
