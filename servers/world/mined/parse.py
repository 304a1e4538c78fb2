"""What a mined tool's name says it does: a verb, the operation it implies, and its noun.

``taiga_list_projects`` is a *list* of ``project``; ``approve_expense_report`` moves an
``expense_report`` along its lifecycle; ``get_project_stats`` is an *aggregate* over ``project``.
This is a heuristic over English tool names, written for the names real MCP servers use; a name
it cannot read gives the operation ``""`` and the compiler drops the tool with that reason.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from agentworld.servers.words import singular, words

__all__ = ["Intent", "read_name", "OPS", "STATE_TARGETS", "FLAG_VERBS", "AGGREGATE_NOUNS"]

# op: what the compiled tool does to the database.
OPS = ("list", "get", "count", "aggregate", "create", "update", "delete", "transition",
       "flag", "clear")

_LIST = frozenset("list search find query browse filter export enumerate".split())
_GET = frozenset("get fetch read show view describe lookup retrieve inspect check load".split())
_CREATE = frozenset("create add new insert register book submit post make upload import send "
                    "invite comment reply write save log record schedule open file raise "
                    "issue place".split())
_UPDATE = frozenset("update edit modify set change rename patch upsert put move configure "
                    "assign reassign tag label link attach transfer adjust replace".split())
_CLEAR = frozenset("unassign untag unlabel unlink detach".split())
_DELETE = frozenset("delete remove del destroy purge".split())
_COUNT = frozenset({"count"})

# A state verb and the state it leads to. Its sources are read from the other verbs (see
# model.py): a verb that undoes another (reopen, unarchive, resume) applies only from the
# state the other leads to.
STATE_TARGETS = {
    "approve": "approved", "reject": "rejected", "decline": "declined", "accept": "accepted",
    "close": "closed", "reopen": "open", "archive": "archived", "unarchive": "active",
    "publish": "published", "unpublish": "draft", "cancel": "cancelled", "complete": "completed",
    "finish": "completed", "start": "in_progress", "pause": "paused", "resume": "active",
    "stop": "stopped", "enable": "enabled", "disable": "disabled", "activate": "active",
    "deactivate": "inactive", "suspend": "suspended", "resolve": "resolved",
    "confirm": "confirmed", "acknowledge": "acknowledged", "ack": "acknowledged",
    "escalate": "escalated", "ship": "shipped", "deliver": "delivered", "refund": "refunded",
    "pay": "paid", "void": "void", "lock": "locked", "unlock": "active", "merge": "merged",
    "deploy": "deployed", "release": "released", "rollback": "rolled_back", "revoke": "revoked",
    "renew": "active", "restore": "active", "block": "blocked", "unblock": "active",
    "dispatch": "dispatched", "checkin": "checked_in", "checkout": "checked_out",
    "withdraw": "withdrawn", "claim": "claimed", "hold": "on_hold", "snooze": "snoozed",
    "mark": "", "retry": "queued", "trigger": "queued", "run": "", "submit_for": "submitted",
    "expire": "expired", "terminate": "terminated", "fulfill": "fulfilled",
    "dismiss": "dismissed", "verify": "verified", "settle": "settled", "sign": "signed",
}
# Which verb a reversing verb undoes: it applies only from that verb's target.
UNDOES = {"reopen": "close", "unarchive": "archive", "unpublish": "publish", "resume": "pause",
          "unlock": "lock", "unblock": "block", "enable": "disable", "activate": "deactivate",
          "restore": "archive", "renew": "expire"}
# Verbs that set a yes/no mark on a row rather than move its state.
FLAG_VERBS = {"star": ("starred", True), "unstar": ("starred", False),
              "pin": ("pinned", True), "unpin": ("pinned", False),
              "follow": ("followed", True), "unfollow": ("followed", False),
              "subscribe": ("subscribed", True), "unsubscribe": ("subscribed", False),
              "mute": ("muted", True), "unmute": ("muted", False),
              "favorite": ("favorite", True), "unfavorite": ("favorite", False),
              "bookmark": ("bookmarked", True), "unbookmark": ("bookmarked", False),
              "watch": ("watched", True), "unwatch": ("watched", False)}
AGGREGATE_NOUNS = frozenset("stats statistics summary analytics metrics report overview "
                            "dashboard totals insights usage breakdown distribution "
                            "aggregate aggregates trends counts".split())
_AGGREGATE_WORDS = frozenset({singular(a) for a in AGGREGATE_NOUNS} | AGGREGATE_NOUNS)
# Words that qualify a noun without naming it: get_all_projects, get_issue_details.
_FILLER = frozenset("all details detail info information data my current single one new "
                    "existing recent latest full the a an list of available specific "
                    "multiple many some batch bulk tool tools".split())
# Words after which the rest names a filter, not the noun: get_user_by_email.
_STOP = frozenset("by for from in with of to on at into via using within between".split())
# Tools whose honest behaviour is outside a database.
OPAQUE = frozenset("execute exec eval screenshot click navigate scroll hover render draw "
                   "transcribe translate summarize embed chat ask generate predict ocr "
                   "ping sleep wait echo shell bash terminal compile crawl scrape "
                   "browse_url open_url http curl".split())
# Verbs that name a record at least as often (download_file, hide_post, clear_log): after another
# word they are read as the verb only when no plain verb follows (policy_file_delete deletes a
# policy file) and words follow them (lms_issue_credential issues a credential).
_NOUN_VERBS = frozenset("file post record log book schedule issue comment reply tag label "
                        "link filter".split())
# A listing verb before one of these plural nouns lists records (list_custom_metrics,
# search_dashboards), though alone or after a lookup verb they name an aggregate.
_LISTED_AGGREGATES = frozenset({"report", "dashboard", "metric"})
_CONJUNCTIONS = frozenset({"and", "or"})
_INTO = frozenset({"to", "into", "onto", "from"})
_WRITTEN = frozenset({"reply", "comment", "post", "log"})       # the verb names what it writes
_VERBS = _LIST | _GET | _CREATE | _UPDATE | _CLEAR | _DELETE | _COUNT | set(STATE_TARGETS) \
    | set(FLAG_VERBS)


@dataclass(frozen=True)
class Intent:
    verb: str
    op: str                 # one of OPS, or "" when the name says nothing the compiler can honour
    noun: str               # singular snake_case: "expense_report"; "" when none
    plural: bool            # the name's noun was plural (list_projects)
    reason: str = ""        # why op is "": for the drop report


def _noun_words(rest: list[str]) -> tuple[list[str], bool]:
    out: list[str] = []
    for w in rest:
        if w in _STOP or w in _CONJUNCTIONS and out:   # load_instrument_or_effect: instrument
            break
        if w in _FILLER or w.isdigit():
            continue
        out.append(w)
    if not out:
        return [], False
    plural = singular(out[-1]) != out[-1]
    out[-1] = singular(out[-1])
    return out[-2:], plural


def read_name(name: str, prefixes: frozenset[str] = frozenset()) -> Intent:
    """Read one tool name. ``prefixes`` are words naming the server (``taiga``), skipped."""
    parts = [w for w in words(name) if w not in prefixes]
    if not parts:
        return Intent("", "", "", False, "the name is only the server's name")
    if set(parts) & OPAQUE or "run_code" in name:
        return Intent(parts[0], "", "", False,
                      "runs code, drives a screen or calls a model: no honest database semantics")
    verb_at = next((i for i, w in enumerate(parts[:3]) if w in _VERBS), None)
    if verb_at is not None and parts[verb_at] in _NOUN_VERBS:
        plain = next((i for i in range(verb_at + 1, len(parts))
                      if parts[i] in _VERBS and parts[i] not in _NOUN_VERBS), None)
        if plain is not None:                              # file_list, issue_create
            verb_at = plain
        elif verb_at and (verb_at == len(parts) - 1 or parts[verb_at + 1] in _STOP):
            verb_at = None                                 # download_file_from_url
    if verb_at is None and parts[-1] in _VERBS and parts[-1] not in _NOUN_VERBS:
        # issue_create, projects.list
        verb, rest = parts[-1], parts[:-1]
    elif verb_at is None:
        return Intent("", "", "", False, "the name starts with no verb the compiler knows")
    else:
        verb, rest = parts[verb_at], parts[verb_at + 1:]
        if not rest and verb_at > 0:                       # incident_create
            rest = parts[:verb_at]
    if verb == "mark" and rest:                            # mark_as_read, mark_paid
        target = rest[-1] if rest[0] != "as" else rest[-1]
        noun_words, plural = _noun_words([w for w in rest[:-1] if w != "as"])
        return Intent(verb, "transition", "_".join(noun_words), plural, target)
    if rest and rest[0] in _CONJUNCTIONS:
        return Intent(verb, "", "", False, f"names two actions ({verb} {' '.join(rest[:2])})")
    head = list(itertools.takewhile(lambda w: w not in _STOP, rest))
    if head and set(head) <= _FILLER and {"tool", "tools"} & set(head):
        return Intent(verb, "", "", False, "names the server's own tools, not a record")
    if rest and (rest[0] in _INTO or rest[0] == "on" and verb in _WRITTEN) \
            and verb in _CREATE | _DELETE:
        # add_to_watchlist, remove_from_cart: an entry of the named collection; but
        # reply_to_comment writes a reply.
        container, _ = _noun_words(rest[1:])
        if verb in _WRITTEN:
            noun = verb
        else:
            noun = f"{container[-1]}_entry" if container else ""
        return Intent(verb, "create" if verb in _CREATE else "delete", noun, False)
    if head == ["list"] and rest[1:2] == ["of"]:           # get_list_of_tags lists tags
        rest = rest[2:]
    noun_words, plural = _noun_words(rest)
    if not noun_words and head == ["list"] and verb not in _LIST | _GET:
        noun_words = ["list"]                              # create_list: a list is the record
    noun = "_".join(noun_words)
    listed = verb in _LIST and plural and bool(noun_words) and \
        noun_words[-1] in _LISTED_AGGREGATES
    if verb in _GET | _LIST and noun_words and noun_words[-1] in _AGGREGATE_WORDS \
            and not listed:
        return Intent(verb, "aggregate", "_".join(noun_words[:-1]), plural)
    if verb in _COUNT:
        return Intent(verb, "count", noun, plural)
    if verb in _LIST:
        return Intent(verb, "list", noun, True)
    if verb in _GET:
        return Intent(verb, "list" if plural else "get", noun, plural)
    if verb in _CREATE:
        return Intent(verb, "create", noun, plural)
    if verb in _UPDATE:
        return Intent(verb, "update", noun, plural)
    if verb in _CLEAR:
        return Intent(verb, "clear", noun, plural)
    if verb in _DELETE:
        return Intent(verb, "delete", noun, plural)
    if verb in FLAG_VERBS:
        return Intent(verb, "flag", noun, plural)
    if STATE_TARGETS.get(verb):
        return Intent(verb, "transition", noun, plural)
    return Intent(verb, "", noun, plural, f"the verb {verb!r} has no stateful meaning here")
