"""Which mined servers fit a stateful simulation.

A server fits when its tools read and change business objects: most tool names start with a
read, write or state verb (``list_projects``, ``create_invoice``, ``approve_request``), at least
one tool writes or moves state, and the nouns after the verbs name a few entities. Servers whose
tools run code, drive a screen or call a model are not simulated faithfully and are not chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentworld.servers.words import stem, words

__all__ = ["Fit", "assess", "READ_VERBS", "WRITE_VERBS", "STATE_VERBS", "MIN_TOOLS",
           "MIN_VERB_RATIO"]

READ_VERBS = frozenset(
    "get list search find query fetch read show view describe lookup retrieve count browse "
    "check export download inspect".split())
WRITE_VERBS = frozenset(
    "create add new insert register book submit post make update edit modify set change "
    "rename move patch upsert put save delete remove del upload import attach link unlink "
    "comment reply send invite tag untag label rate review write".split())
STATE_VERBS = frozenset(
    "assign unassign reassign cancel archive unarchive close reopen open approve reject "
    "publish unpublish enable disable start stop pause resume complete finish mark resolve "
    "accept decline confirm transfer refund pay charge ship lock unlock restore merge join "
    "leave schedule reschedule activate deactivate suspend escalate acknowledge ack checkin "
    "checkout dispatch deploy release rollback renew revoke grant block unblock follow "
    "unfollow subscribe unsubscribe star unstar pin unpin snooze mute unmute void "
    "apply withdraw claim hold".split())
# Tools whose honest behaviour is outside a database: running code, a screen, a model.
_OPAQUE = frozenset(
    "execute exec eval run_code screenshot click navigate scroll hover type_text generate "
    "transcribe render draw chat ask complete_text embed summarize translate".split())
_ALL_VERBS = READ_VERBS | WRITE_VERBS | STATE_VERBS
MIN_TOOLS = 5
MIN_VERB_RATIO = 0.6


@dataclass(frozen=True)
class Fit:
    """How well a tool surface suits stateful simulation."""

    tools: int
    verb_ratio: float      # share of tools whose name starts with a read, write or state verb
    reads: int
    writes: int            # write and state tools
    opaque: int            # tools that run code, drive a screen or call a model
    entities: tuple[str, ...]
    selected: bool

    def as_dict(self) -> dict:
        return {"tools": self.tools, "verb_ratio": self.verb_ratio, "reads": self.reads,
                "writes": self.writes, "opaque": self.opaque, "entities": list(self.entities)}


def _verb_and_rest(name: str) -> tuple[str, list[str]]:
    """The verb of a tool name and the words after it; a leading server prefix is skipped."""
    parts = words(name)
    for i, part in enumerate(parts[:3]):      # jira_create_issue, taiga_list_projects
        if part in _ALL_VERBS:
            return part, parts[i + 1:]
    if parts and parts[-1] in _ALL_VERBS:      # projects.list, issue_create
        return parts[-1], parts[:-1]
    return "", parts


def _entities(rests: list[list[str]], minimum: int = 2) -> tuple[str, ...]:
    counts: dict[str, int] = {}
    for rest in rests:
        nouns = {stem(w) for w in rest if len(w) > 2 and w not in _ALL_VERBS}
        for noun in nouns:
            counts[noun] = counts.get(noun, 0) + 1
    return tuple(sorted(n for n, c in counts.items() if c >= minimum))


def assess(tool_names: list[str]) -> Fit:
    """Score a surface and decide whether it is selected for simulation."""
    parsed = [_verb_and_rest(n) for n in tool_names]
    reads = sum(v in READ_VERBS for v, _ in parsed)
    writes = sum(v in WRITE_VERBS or v in STATE_VERBS for v, _ in parsed)
    opaque = sum(bool(set(words(n)) & _OPAQUE) or "run_code" in n for n in tool_names)
    total = len(tool_names)
    ratio = round((reads + writes) / total, 3) if total else 0.0
    entities = _entities([rest for v, rest in parsed if v])
    selected = (total >= MIN_TOOLS and ratio >= MIN_VERB_RATIO and reads >= 1 and writes >= 1
                and bool(entities) and opaque * 4 <= total)
    return Fit(total, ratio, reads, writes, opaque, entities, selected)
