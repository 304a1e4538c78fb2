"""Reading the completed acts a reply claims: "I emailed all 14 invitees", "the refund has
been issued", "left a comment on each page".

An act is a verb in the first person or the perfect passive (or opening the reply), not
negated, conditional, planned or asked. Each comes with the words of the tools or tables that
would do it (``stems``), the count and noun it names ("14 invitees"), and the things it acts
on: its direct object and the place it puts it ("put the recipe on your shopping list"). A verb
the lexicon does not know is still an act when it is a regular past tense that changes
something ("recompiled", "deployed"); reading and thinking verbs ("checked", "found",
"verified that") are not. :mod:`.facts` holds each act against the episode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Action", "actions", "ACTION_VERBS", "GENERIC_VERBS", "number_word"]


@dataclass(frozen=True)
class Action:
    verb: str                 # as written ("emailed")
    stems: tuple[str, ...]    # words a tool or table that does it is named with
    count: int | None         # "emailed all 14 invitees" -> 14
    noun: str                 # "invitees"
    objects: tuple[str, ...]  # what it acts on: "comment", "shopping list"
    quote: str                # the clause it was read from


# Acts that any change of the state does ("I updated the record"): any write supports them,
# if what they act on agrees.
GENERIC_VERBS = frozenset({"updated", "changed", "added", "edited", "modified", "set",
                           "recorded", "logged", "made", "put", "gave", "moved"})
# A completed act, as written, and the words of the tools or tables that do it.
ACTION_VERBS: dict[str, tuple[str, ...]] = {
    "emailed": ("email", "mail", "send", "message", "notif"),
    "e-mailed": ("email", "mail", "send", "message", "notif"),
    "sent": ("send", "email", "mail", "message", "notif", "invite", "post", "dispatch",
             "submit", "share", "transfer", "sdi"),
    "notified": ("notif", "email", "mail", "message", "send", "alert"),
    "messaged": ("message", "send", "chat", "dm", "email"),
    "texted": ("sms", "text", "message", "send"),
    "invited": ("invite", "invitation", "member", "share", "attendee", "guest"),
    "cancelled": ("cancel", "void"),
    "canceled": ("cancel", "void"),
    "refunded": ("refund", "cancel"),
    "deleted": ("delete", "remove", "destroy", "purge", "trash", "drop"),
    "removed": ("remove", "delete", "unassign", "unlink", "detach", "untag", "unlabel"),
    "archived": ("archive", "close", "hide", "trash"),
    "merged": ("merge",),
    "closed": ("close", "resolve", "archive", "complete", "done", "finish", "update", "state",
               "status"),
    "reopened": ("reopen", "update", "state", "status"),
    "booked": ("book", "reserv", "create"),
    "reserved": ("reserv", "book", "hold"),
    "paid": ("pay", "charge", "settle"),
    "charged": ("charge", "pay", "bill", "transaction"),
    "invoiced": ("invoice", "bill"),
    "created": ("create", "add", "new", "insert", "make", "book", "open", "post", "register"),
    "added": ("add", "create", "insert", "attach", "append", "assign", "label", "tag", "post",
              "new", "book"),
    "scheduled": ("schedul", "create", "book", "event", "plan"),
    "assigned": ("assign", "update", "set", "owner"),
    "reassigned": ("assign", "update", "set", "owner"),
    "labelled": ("label", "tag"),
    "labeled": ("label", "tag"),
    "tagged": ("tag", "label"),
    "commented": ("comment", "reply", "note", "post"),
    "replied": ("reply", "comment", "respond", "message", "send"),
    "posted": ("post", "comment", "publish", "message", "send", "create"),
    "published": ("publish", "post", "release"),
    "shared": ("share", "permission", "invite", "grant"),
    "approved": ("approv", "review"),
    "rejected": ("reject", "declin", "review"),
    "uploaded": ("upload", "attach", "file"),
    "attached": ("attach", "upload", "file"),
    "resolved": ("resolv", "close", "update", "status"),
    "ticketed": ("confirm", "ticket", "issue"),
    "issued": ("issue", "create", "voucher", "refund"),
    "transferred": ("transfer", "move"),
    "moved": ("move", "transfer", "update", "set"),
    "renamed": ("rename", "update", "set", "edit"),
    "saved": ("save", "update", "set", "create", "write"),
    "recorded": ("record", "log", "create", "add"),
    "logged": ("log", "record", "create", "add"),
    "updated": ("update", "set", "edit", "change", "patch", "modify", "move", "rename"),
    "changed": ("change", "update", "set", "edit", "patch", "modify", "move"),
    "rescheduled": ("reschedul", "update", "move", "change"),
    "rebooked": ("change", "rebook", "book", "update"),
    "disabled": ("disabl", "deactivat", "update", "set", "toggle"),
    "enabled": ("enabl", "activat", "update", "set", "toggle"),
    "revoked": ("revok", "remove", "delete"),
    "granted": ("grant", "share", "permission", "add"),
    "restored": ("restor", "unarchive", "undelete"),
    "rerun": ("rerun", "re_run", "retry", "restart"),
    "re-ran": ("rerun", "re_run", "retry", "restart"),
    "restarted": ("restart", "rerun", "retry"),
    "confirmed": ("confirm",),
    "completed": ("complete", "finish", "done", "close", "resolve", "mark", "check"),
    "finished": ("finish", "complete", "done", "close"),
    "checked off": ("check", "complete", "done", "mark", "update", "toggle"),
    "marked": ("mark", "update", "set", "flag", "complete", "done"),
    "deployed": ("deploy", "release", "publish", "rollout"),
    "subscribed": ("subscri", "follow", "join"),
    "unsubscribed": ("unsubscri", "unfollow", "leave"),
    "suspended": ("suspend", "pause", "disable", "stop"),
    "paused": ("pause", "suspend", "stop", "disable"),
    "resumed": ("resume", "unpause", "start", "enable"),
    "stopped": ("stop", "halt", "pause", "cancel", "disable"),
    "started": ("start", "run", "launch", "create", "enable"),
    "backed up": ("backup", "snapshot"),
    "exported": ("export",),
    "imported": ("import", "upload"),
    "synced": ("sync",),
    "synchronized": ("sync",),
    "compiled": ("compil", "build"),
    "recompiled": ("compil", "build"),
    "built": ("build", "compil"),
    "reset": ("reset",),
    "rolled back": ("rollback", "roll_back", "revert", "restore"),
    "reverted": ("revert", "rollback", "restore", "undo"),
    "blocked": ("block", "ban", "deny"),
    "unblocked": ("unblock", "allow"),
    "banned": ("ban", "block"),
    "followed": ("follow",),
    "liked": ("like", "favorite", "favourite", "star", "react"),
    "starred": ("star", "favorite", "like"),
    "pinned": ("pin",),
    "unpinned": ("unpin",),
    "forwarded": ("forward", "send"),
    "escalated": ("escalat", "update", "priority"),
    "refreshed": ("refresh", "sync", "reload"),
    "submitted": ("submit", "send", "file", "create"),
    "filed": ("file", "create", "submit", "report"),
    "opened": ("open", "create", "reopen"),
    "ran": ("run", "execute", "start", "trigger"),
    "triggered": ("trigger", "run", "start", "execute"),
    "executed": ("execut", "run"),
    "put": ("add", "put", "set", "insert", "move", "schedul"),
    "left": ("comment", "add", "create", "post", "note", "reply", "review", "leave"),
    "made": ("create", "make", "add", "set", "update", "book"),
    "gave": ("grant", "give", "assign", "share", "add", "set"),
}

# Past tenses that read, think or say rather than change anything.
_NOT_ACTS = frozenset("""checked looked found saw seen searched listed fetched retrieved viewed
inspected examined counted calculated computed compared double-checked queried read tried
attempted needed wanted asked used based noted noticed guessed assumed decided skipped ignored
waited kept included excluded mentioned reviewed considered identified determined filtered
sorted grouped matched selected picked chose chosen went got had did was were been seemed
appeared expected required requested received returned loaded showed shown told said
answered responded understood learned checked-in verified validated tested confirmed-that
double-checked re-checked rechecked traced reconciled""".split())
_IRREGULAR = frozenset({"ran", "put", "left", "made", "gave", "sent", "paid", "built", "reset",
                        "re-ran", "rerun", "set"})

# Who did it (first person), the perfect passive ("has been issued"), an act joined to another
# ("... and emailed them"), or the verb opening the reply ("Emailed all 14"). "X is confirmed"
# or "the flight was cancelled" describe a state, which the state rules read instead.
_PREFIX = (r"(?:(?:\b(?:i|we)(?:'ve|'d| have| had)?|\b(?:has|have|had) been|\band)\s+"
           r"(?:(?:also|then|just|successfully|now|all|already|finally|went ahead and)\s+)*|"
           r"^\s*(?:(?:done|ok|okay|all set)\s*[:,.!-]?\s*)?(?:(?:also|then|just|successfully|"
           r"now|finally)\s+)*)")
_KNOWN = "|".join(sorted(map(re.escape, ACTION_VERBS), key=len, reverse=True))
_ACTION = re.compile(_PREFIX + r"(" + _KNOWN + r"|[a-z][a-z-]{2,}ed)\b", re.I)
_NEGATED = re.compile(
    r"\b(?:not|n't|never|no|none|nothing|without|unable|failed|fail|could ?n't|won't|cannot|"
    r"instead of|rather than)\b|n't\b", re.I)
_UNREAL = re.compile(
    r"\b(?:would|could|should|shall|will|can|may|might|if|once|whether|let me know|want me|"
    r"like me|need to|needs to|have to|has to|going to|plan to|to be|please|ask(?:ed)? (?:me|"
    r"you) to|already|previously|before you|earlier|originally|was already|were already)\b",
    re.I)
_WORD_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_COUNTED = re.compile(r"\b(?:all\s+|the\s+|a total of\s+|total of\s+|each of the\s+)?(\d{1,4}|"
                      + "|".join(_WORD_NUMBERS) + r")\s+((?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)",
                      re.I)
# Words between a verb and what it acts on.
_SKIP = frozenset("""a an the its their his her your my our it them him this that these those
each every all both some any one also too new existing same other another of up off back out
over about""".split()) | frozenset(_WORD_NUMBERS)
_PLACE = frozenset({"to", "on", "onto", "into", "in", "from", "under"})
# Where one act of a sentence ends and the next begins: "deleted X, and also removed Y so it
# will not come back" holds two acts and a plan.
_SEGMENT = re.compile(r"\s*(?:[,;:]\s*(?:and|but|so|then)?|\b(?:and|but|so|because|while|"
                      r"although|though|then)\b)\s*", re.I)
_STOP = frozenset({"and", "but", "so", "because", "with", "by", "at", "as", "while", "which",
                   "that", "who", "then", "when", "after", "before", "since", "via", "for",
                   "due", "until", "per"})


def number_word(text: str) -> int | None:
    text = text.lower()
    if text.isdigit():
        return int(text)
    return _WORD_NUMBERS.get(text)


def _stems_of(verb: str) -> tuple[str, ...]:
    """The words a tool that does an unknown act is named with: "recompiled" -> recompil,
    compil; "deployed" -> deploy."""
    base = verb[:-3] + "y" if verb.endswith("ied") else verb[:-2] if verb.endswith("ed") \
        else verb
    out = {base, base[:-1]} if len(base) > 4 and base[-1] == base[-2] else {base}
    out |= {b[2:] for b in out if b.startswith("re") and len(b) > 5}
    return tuple(sorted(b for b in out if len(b) >= 4))


def _phrase(words: list[str]) -> tuple[str, list[str]]:
    """The noun phrase at the start of ``words`` (its head and, before it, a modifier: "follow-up
    task", "shopping list") and the words after it."""
    i = 0
    while i < len(words) and (words[i] in _SKIP or words[i].isdigit()):
        i += 1
    phrase = []
    while i < len(words) and words[i] not in _PLACE and words[i] not in _STOP \
            and not words[i].startswith(("#", '"', "\u201c")) and len(phrase) < 3:
        phrase.append(words[i])
        i += 1
    return " ".join(phrase[-2:]), words[i:]


def _objects(tail: str) -> tuple[str, ...]:
    """What an act acts on: its direct object, and the place it puts it."""
    words = [w.strip(".,;:!?()'").lower() for w in tail.split()][:12]
    words = [w for w in words if w.strip('"')]
    first, rest = _phrase(words)
    out = [first] if first else []
    if rest and rest[0] in _PLACE:
        second, _ = _phrase(rest[1:])
        if second:
            out.append(second)
    return tuple(o for o in out if re.search(r"[a-z]{3}", o))


def actions(clause: str) -> list[Action]:
    """The completed acts ``clause`` claims, part by part: a negated, conditional, planned or
    already-done part, or a question, claims nothing."""
    clause = clause.replace("\u2019", "'")
    if clause.rstrip().endswith("?"):
        return []
    out: list[Action] = []
    for i, part in enumerate(_SEGMENT.split(clause)):
        if part and not (_NEGATED.search(part) or _UNREAL.search(part)):
            out += _acts(part, clause.strip(), opens=i == 0)
    return out


def _acts(part: str, quote: str, *, opens: bool) -> list[Action]:
    """The acts of one part of a clause (``opens``: the part that begins it)."""
    out = []
    for m in _ACTION.finditer(part):
        verb = m.group(1).lower()
        if "-" in verb and verb.rsplit("-", 1)[1] in ACTION_VERBS:
            verb = verb.rsplit("-", 1)[1]       # "squash-merged" merged
        tail = part[m.end():m.end() + 100]
        bare = not part[:m.start(1)].strip(" :,.!-").lower().split()[-1:] or \
            part[:m.start(1)].strip(" :,.!-").lower().split()[-1] in ("done", "ok", "okay",
                                                                    "set", "also", "then",
                                                                    "just", "now", "finally")
        if bare and not opens and verb not in ACTION_VERBS:
            continue  # ", dated delta-date": a participle describing, not an act
        if verb in ("checked",) and re.match(r"\s+off\b", tail):
            verb, tail = "checked off", tail.lstrip()[3:]
        if verb in _NOT_ACTS or (verb not in ACTION_VERBS and verb not in _IRREGULAR
                                 and not verb.endswith("ed")):
            continue
        if verb not in ACTION_VERBS and verb not in _IRREGULAR and m.group(1)[:1].isupper() \
                and (m.start(1) > 0 or not opens):
            continue  # "..., Mohammed Garcia 30B": a capitalised word in a sentence is a name
        if verb == "left" and not re.match(r"\s+(?:a|an|the|one|\d+|some)\s+\w", tail):
            continue  # "left them open" is no act; "left a comment" is
        stems = ACTION_VERBS.get(verb) or _stems_of(verb)
        before = part[:m.start() + len(m.group(0)) - len(m.group(1))]
        count, noun = None, ""
        found = _COUNTED.match(tail.lstrip()) or _last(_COUNTED, before)
        if found and number_word(found.group(1)) is not None:
            count, noun = number_word(found.group(1)), found.group(2).lower()
        out.append(Action(verb, tuple(stems), count, noun, _objects(tail), quote))
    return out


def _last(pattern: re.Pattern, text: str) -> re.Match | None:
    found = None
    for m in pattern.finditer(text):
        found = m
    return found
