"""Splitting identifiers and names into lower-case words, the same way everywhere."""

from __future__ import annotations

import re

__all__ = ["words", "singular"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")
# Plurals of nouns ending in -ie and -che, which the -ies and -ches rules would cut wrongly.
_IE_NOUNS = frozenset("movies cookies rookies zombies calories selfies genies freebies smoothies "
                      "prairies pies ties lies hoodies goodies brownies".split())
_CHE_NOUNS = frozenset("caches niches avalanches headaches cliches moustaches".split())


def words(text: str) -> list[str]:
    """``listOpenIssues`` / ``list-open_issues`` / ``List open issues`` -> list, open, issues."""
    out = []
    for chunk in _SPLIT.split(text or ""):
        out += [w.lower() for w in _CAMEL.sub(" ", chunk).split() if w]
    return out


def singular(word: str) -> str:
    """A plain English singular, enough to match nouns in tool names (issues -> issue)."""
    if word in _IE_NOUNS or word in _CHE_NOUNS:
        return word[:-1]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
