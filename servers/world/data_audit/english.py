"""Text a person would write: "a" before a consonant sound and "an" before a vowel sound, in tool
descriptions, argument descriptions and seeded text; and argument descriptions that say more
than the argument's name.

``indefinite_article`` is a heuristic over spelling (silent h, the "you" sound of uni-/use-/eu-,
acronyms read letter by letter); it covers the words this project's text uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .model import Finding, Subject

__all__ = ["indefinite_article", "article_slips", "grammar_article", "number_slips",
           "grammar_plural", "arg_description", "repeats_name"]

_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
_YOU_SOUND = ("uni", "use", "usu", "usa", "uti", "uri", "ura", "uro", "ure", "eu", "ewe", "ubiq",
              "uku", "ufo", "u-", "one", "once")
_NOT_YOU_SOUND = ("unin", "unim", "unid")
_VOWEL_LETTERS = "AEFHILMNORSX"     # letters whose names start with a vowel sound
# Acronyms read as words ("a LOINC code", "a SKU"), not letter by letter ("an SQL query").
_SPOKEN_ACRONYMS = frozenset({"NASA", "NATO", "UNESCO", "UNICEF", "SIM", "PIN", "GIF", "SAML",
                              "JSON", "YAML", "FIFO", "LIFO", "SKU", "ETA", "OPEX", "LOINC", "ISO",
                              "IBAN", "ISBN", "CAPA", "GAAP"})
_ARTICLE = re.compile(r"(?:^|(?<=[.!?]\s))(A|An)\s+([\w'`\-]+)|\b(a|an)\s+([\w'`\-]+)")
_STOP = frozenset({"the", "a", "an", "of", "in", "its", "this", "for", "to", "is", "be"})
_EMPTY_UNITS = frozenset({"id", "cent", "value", "field"})


def indefinite_article(word: str) -> str:
    """ "a" or "an" for the word that follows it; "" when the word is not one to judge."""
    word = word.strip("`'\"*_()")
    if not word:
        return ""
    head = word.split("_")[0].split("-")[0] or word
    if head.isdigit():
        spoken_an = head[0] == "8" or (len(head) % 3 == 2 and head[:2] in ("11", "18"))
        return "an" if spoken_an else "a"
    if len(head) > 1 and head.isupper() and head not in _SPOKEN_ACRONYMS:
        return "an" if head[0] in _VOWEL_LETTERS else "a"
    lower = word.lower()
    if lower.startswith(_SILENT_H):
        return "an"
    if lower.startswith(_YOU_SOUND) and not lower.startswith(_NOT_YOU_SOUND):
        return "a"
    if not lower[0].isalpha():
        return ""
    return "an" if lower[0] in "aeiou" else "a"


def article_slips(text: str) -> list[str]:
    """The article-noun pairs in ``text`` whose article is wrong ("a active", "an user")."""
    out = []
    for match in _ARTICLE.finditer(text):
        article = match.group(1) or match.group(3)
        word = match.group(2) or match.group(4)
        expected = indefinite_article(word)
        if expected and expected != article.lower():
            out.append(f"{article} {word}")
    return out


_TEXT_COLUMNS = frozenset({"body", "description", "message", "text", "note", "notes", "title",
                           "summary", "comment", "content", "reason", "subject"})


def grammar_article(subject: Subject) -> Iterator[Finding]:
    """A wrong indefinite article in a tool's description or an argument's, or in seeded text."""
    for tool in subject.tools:
        for slip in article_slips(tool.description):
            yield subject.finding("tools", tool.name, "grammar_article",
                                  f"description says {slip!r}")
        for arg, desc in tool.arguments.items():
            for slip in article_slips(desc or ""):
                yield subject.finding("tools", f"{tool.name}.{arg}", "grammar_article",
                                      f"argument description says {slip!r}")
    for table in subject.tables.values():
        columns = [f.name for f in table.fields("text")] if table.entity else [
            c for c in table.columns if c in _TEXT_COLUMNS]
        for column in columns:
            for row in table.rows:
                value = row.get(column)
                for slip in article_slips(value) if isinstance(value, str) else ():
                    yield subject.finding(table.name, row.get("id"), "grammar_article",
                                          f"{column} says {slip!r}")


_ONE = r"a|an|each|every|one|1|single|another"
_MANY = r"all|many|several|multiple|these|those|both|[2-9]|\d{2,}"
# What may follow a bare noun at the end of its phrase ("all booking." but not "all booking ids").
_PHRASE_END = (r"(?=\s*(?:[.,;:)!?]|$)|\s(?:the|to|in|into|of|and|or|that|which|with|for|by|"
               r"from|on|at|per|as|is|are|was|were|can|may|must|will)\b)")


def number_slips(text: str, nouns: list[tuple[str, str]]) -> list[str]:
    """Determiner-noun pairs that disagree in number ("a bookings", "all booking."), for the
    (singular, plural) nouns given: the archetype's own entity names."""
    out = []
    for singular, plural in nouns:
        if singular == plural:
            continue
        for pattern in (rf"\b(?:{_ONE})\s+{re.escape(plural)}\b",
                        rf"\b(?:{_MANY})\s+{re.escape(singular)}{_PHRASE_END}"):
            out += [m.group(0) for m in re.finditer(pattern, text, flags=re.I)]
    return out


def grammar_plural(subject: Subject) -> Iterator[Finding]:
    """A tool or argument description whose determiner and entity noun disagree in number."""
    if subject.archetype is None:
        return
    nouns = [(e.name.replace("_", " "), e.plural.replace("_", " "))
             for e in subject.archetype.entities]
    for tool in subject.tools:
        texts = [(tool.name, "description", tool.description)] + [
            (f"{tool.name}.{arg}", "argument description", desc or "")
            for arg, desc in tool.arguments.items()]
        for row, what, text in texts:
            for slip in number_slips(text, nouns):
                yield subject.finding("tools", row, "grammar_plural", f"{what} says {slip!r}")


def _stems(text: str) -> set[str]:
    out = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word not in _STOP:
            out.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return out


def repeats_name(arg: str, description: str | None) -> bool:
    """Whether a description only repeats its argument's name ("list price (in cents)" for
    ``list_price``), or is missing."""
    if not description or not description.strip():
        return True
    said = _stems(description) - _EMPTY_UNITS
    return said <= _stems(arg.replace("_", " "))


def arg_description(subject: Subject) -> Iterator[Finding]:
    """An argument whose description is missing or says no more than its name."""
    for tool in subject.tools:
        for arg, desc in tool.arguments.items():
            if repeats_name(arg, desc):
                yield subject.finding("tools", f"{tool.name}.{arg}", "arg_description",
                                      f"{arg}: {desc!r} only repeats the name"
                                      if desc else f"{arg} has no description")
