"""Republished copies of one server, found by their tool surface; one of each is kept.

The same server is often published again under another name (``iflow-mcp-<owner>-<name>``,
``mseep-<name>`` ...). Two packages are copies when their tool-name sets are equal, or when their
names are equal once a republishing prefix is removed and their tool-name sets mostly overlap
(a copy taken a release earlier or later). The original is preferred: a name without a
republishing prefix, then the fuller surface, then the shorter name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Copy", "find_copies", "base_name", "REPUBLISH_PREFIXES", "NEAR_JACCARD"]

REPUBLISH_PREFIXES = ("iflow-mcp-", "mseep-", "mcp-mirror-", "acemcp-", "mcpo-", "aimcp-",
                      "kiro-mcp-", "pulse-mcp-")
NEAR_JACCARD = 0.8
_SEP = re.compile(r"[-_.]+")


@dataclass(frozen=True)
class Copy:
    """``name`` is a copy of ``kept``; ``how`` is ``same-surface`` or ``same-base-name``."""

    name: str
    kept: str
    how: str


def _norm(name: str) -> str:
    return _SEP.sub("-", name.lower())


def base_name(name: str) -> str:
    """The package name without a republishing prefix (``mseep-foo-mcp`` -> ``foo-mcp``)."""
    norm = _norm(name)
    for prefix in REPUBLISH_PREFIXES:
        if norm.startswith(prefix) and len(norm) > len(prefix):
            return norm[len(prefix):]
    return norm


def _preference(name: str, tools: int) -> tuple:
    return (_norm(name) != base_name(name), -tools, len(name), name.lower())


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _suffix_match(copy: str, original: str) -> bool:
    # iflow-mcp-<owner>-<name> keeps the owner: compare the tail after the prefix
    return copy == original or copy.endswith("-" + original)


def find_copies(surfaces: dict[str, list[str]]) -> list[Copy]:
    """Map package name -> tool names to the copies to drop. Packages with no tools are ignored."""
    ranked = sorted((n for n, t in surfaces.items() if t),
                    key=lambda n: _preference(n, len(set(surfaces[n]))))
    kept: dict[frozenset, str] = {}
    kept_by_base: list[tuple[str, frozenset, str]] = []
    copies = []
    for name in ranked:
        surface = frozenset(surfaces[name])
        if surface in kept:
            copies.append(Copy(name, kept[surface], "same-surface"))
            continue
        base = base_name(name)
        near = next((k for b, s, k in kept_by_base
                     if (_suffix_match(base, b) or _suffix_match(b, base))
                     and _jaccard(surface, s) >= NEAR_JACCARD), None)
        if near is not None:
            copies.append(Copy(name, near, "same-base-name"))
            continue
        kept[surface] = name
        kept_by_base.append((base, surface, name))
    return sorted(copies, key=lambda c: c.name.lower())
