"""The words feature modules seed with, taken from the domain pack.

An archetype may declare its own (:class:`~agentworld.servers.world.spec.DomainVocab`): the
tags its staff put on rows, the files they attach, what they write in comments. Where it does
not, the words come from its own declarations (its enum values become tags, its primary noun
names the files), and only then from a small neutral fallback that fits any service: no hotel
words on music releases.
"""

from __future__ import annotations

import functools

from ..spec import Archetype, DomainVocab

__all__ = ["domain_vocab", "content_type"]

_NEUTRAL_TAGS = ("follow-up", "priority", "needs-review", "flagged", "on-hold", "escalated",
                 "waiting-on-reply", "audit-sample", "duplicate-suspected", "data-fix",
                 "second-opinion", "quarterly-review", "owner-changed", "archived-copy")
# Kinds of document any service keeps about a record: (name stem, extension).
_DOCUMENTS = (("summary", "pdf"), ("signed-form", "pdf"), ("photo", "jpg"), ("notes", "txt"),
              ("export", "csv"), ("correspondence", "docx"), ("figures", "xlsx"),
              ("screenshot", "png"), ("checklist", "pdf"))
_NEUTRAL_COMMENTS = (
    "Checked the {noun} against the source records; everything matches.",
    "Waiting on a reply before we take this {noun} further.",
    "Flagged this {noun} for a second look by the team lead.",
    "Updated after a call with the person who raised it.",
    "Added the missing details to the {noun}.",
    "Resolved the question raised last week on this {noun}.",
    "Reminder sent; will check the {noun} again on Monday.",
    "Escalated for approval, see the history for the reasons.",
    "No further action needed on this {noun} for now.",
    "Corrected a typo in the {noun} on request.",
)
_TYPES = {"pdf": "application/pdf", "jpg": "image/jpeg", "jpeg": "image/jpeg",
          "png": "image/png", "txt": "text/plain", "csv": "text/csv",
          "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def content_type(filename: str) -> str:
    """The media type of a file name's extension (PDF when it has none the service accepts)."""
    return _TYPES.get(filename.rsplit(".", 1)[-1].lower(), "application/pdf")


def _derived_tags(archetype: Archetype) -> tuple[str, ...]:
    primary = archetype.entity(archetype.primary)
    words = [v.replace("_", "-") for f in primary.fields if f.kind == "enum" and f.filterable
             for v in f.values]
    return tuple(dict.fromkeys([*words[:12], *_NEUTRAL_TAGS]))


def _derived_files(archetype: Archetype) -> tuple[str, ...]:
    noun = archetype.primary.replace("_", "-")
    return tuple(f"{noun}-{stem}.{ext}" for stem, ext in _DOCUMENTS)


@functools.cache
def domain_vocab(archetype: Archetype | None) -> DomainVocab:
    """The archetype's words, each list filled in where the domain pack leaves it empty."""
    declared = (archetype.vocab if archetype is not None else None) or DomainVocab()
    noun = archetype.primary.replace("_", " ") if archetype is not None else "record"
    tags = declared.tags or (_derived_tags(archetype) if archetype else _NEUTRAL_TAGS)
    files = declared.attachments or (_derived_files(archetype) if archetype else
                                     tuple(f"record-{s}.{e}" for s, e in _DOCUMENTS))
    comments = declared.comments or tuple(c.format(noun=noun) for c in _NEUTRAL_COMMENTS)
    return DomainVocab(tags=tuple(t for t in tags if 0 < len(t) <= 40),
                       attachments=files, comments=comments,
                       refund_reasons=declared.refund_reasons)
