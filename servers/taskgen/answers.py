"""Final answers read as values, not as text.

A task that asks for an answer declares its type and value (an *answer spec*):

* ``{"type": "number", "value": 7}``: a count or a quantity;
* ``{"type": "money", "value": 1234.5, "currency": "EUR"}``: an amount in major units;
* ``{"type": "date", "value": "2026-03-05"}``;
* ``{"type": "id", "value": "inv_000012"}``: an identifier or a reference code;
* ``{"type": "text", "value": "Jane Doe", "domain": {"table", "column"}}``: a name or a state;
* ``{"type": "list", "value": ["A", "B"], "domain": {...}}``: several names, in any order.

The reply is read the way a person reads it: every candidate value of the declared type is
extracted (numbers in any common format, with units or currency; dates in ISO or written form;
names matched as whole words against the candidates of their ``domain``), values the prompt itself
mentions are set aside, and the reply passes only when exactly one candidate remains and it is the
expected value. A reply that hedges between several candidates fails, and so does a number hidden
inside an identifier.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["answer_matches", "candidates", "mentions", "normal_text", "render_answer",
           "ANSWER_TYPES", "date_spans", "total_spans", "counted_noun", "asked_words"]

ANSWER_TYPES = frozenset({"number", "money", "date", "id", "text", "list"})

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATE_PATTERNS = (
    (re.compile(r"(?<![\w-])(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:T[\d:.]+Z?)?(?![\w-])"), "ymd"),
    (re.compile(rf"(?<![\w])({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\w)",
                re.I), "mdy_words"),
    (re.compile(rf"(?<![\w])(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH}),?\s+(\d{{4}})(?!\w)",
                re.I), "dmy_words"),
    (re.compile(r"(?<![\w/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\w/])"), "mdy"),
)
_WORD_NUMBERS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
     "nineteen", "twenty"])}
_WORD_NUMBERS["none"] = 0
_WORD_NUMBERS["no"] = 0
# A number: not glued to a letter, underscore or hyphenated code on either side (INV-0042,
# usr_31, 3rd are not numbers), with optional thousands separators and decimals.
_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)(-?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|-\w|\.\d)")
_CURRENCY_MARK = re.compile(r"[$€£¥₹]|\b[A-Z]{3}\b")
_REFERENCE = re.compile(r"#\d+")
_FIELD_VALUE = re.compile(r"\b[a-z_]\w*\s*=\s*-?\d[\d.,]*", re.I)
_DENOMINATOR = re.compile(r"(?:\bout of|(?<=\d)\s+of)\s+(?:the\s+|all\s+|a total of\s+)?\d[\d,]*",
                          re.I)
_TIME = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?![\d:])", re.I)
_AMOUNT = r"[$€£¥₹]?\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(?:[A-Z]{3}|dollars?|euros?|pounds?))?"
# A figure labelled as the total: "$2,795 in total", "total: 2795", "comes to $2,795".
_TOTAL = re.compile(
    r"(?:\b(?:total(?:led|ed|s)?(?: of| is| was| refunded| charged| comes to| came to)?|in all"
    r" comes to|sum(?: of| is)?|altogether|overall|combined|adds up to|comes to|came to|"
    r"together (?:that |this |they )?(?:is|are|makes?|comes? to)|that makes|which makes)\s*"
    r"[:=]?\s*" + _AMOUNT + r"|" + _AMOUNT + r"\s*(?:in total|in all|total|altogether|overall|"
    r"combined)\b|=\s*" + _AMOUNT + ")", re.I)
# The last digits of a card ("Mastercard ending 9747") are no amount.
_CARD_DIGITS = re.compile(r"\b(?:ending(?: in)?|ends in|last (?:4|four)(?: digits)?|\*{2,})\s*:?"
                          r"\s*\d{2,4}\b", re.I)


def normal_text(value: Any) -> str:
    """Case, spacing, quotes and trailing punctuation do not change what a value says."""
    text = str(value).casefold().replace("_", " ")
    text = re.sub(r"[\"'`\u2018\u2019\u201c\u201d]", "", text)
    return re.sub(r"\s+", " ", text).strip(" .,;:!?")


def _date(parts: tuple[str, ...], form: str) -> str | None:
    try:
        if form == "ymd":
            y, m, d = int(parts[0]), int(parts[1]), int(parts[2])
        elif form == "mdy_words":
            m, d, y = _MONTHS[parts[0].lower().rstrip(".")], int(parts[1]), int(parts[2])
        elif form == "dmy_words":
            d, m, y = int(parts[0]), _MONTHS[parts[1].lower().rstrip(".")], int(parts[2])
        else:
            m, d, y = int(parts[0]), int(parts[1]), int(parts[2])
        return dt.date(y, m, d).isoformat()
    except (ValueError, KeyError):
        return None


def date_spans(text: str) -> list[tuple[str, int, int]]:
    """Every date written in ``text``: (ISO form, start, end), in reading order."""
    found: list[tuple[str, int, int]] = []
    for pattern, form in _DATE_PATTERNS:
        def take(match: re.Match, form: str = form) -> str:
            value = _date(match.groups(), form)
            if value is None:
                return match.group(0)
            found.append((value, match.start(), match.end()))
            return " " * len(match.group(0))
        text = pattern.sub(take, text)
    return sorted(found, key=lambda f: f[1])


def _dates(text: str) -> tuple[list[str], str]:
    """The dates in ``text`` (ISO form) and the text with them blanked out."""
    spans = date_spans(text)
    for _, start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return [v for v, _, _ in spans], text


def _numbers(text: str) -> list[Decimal]:
    out = []
    for sign, whole, frac in _NUMBER.findall(text):
        try:
            out.append(Decimal(sign + whole.replace(",", "") + (frac or "")))
        except InvalidOperation:
            continue
    for word in re.findall(r"[a-z]+", text.casefold()):
        if word in _WORD_NUMBERS and word not in ("no", "none"):
            out.append(Decimal(_WORD_NUMBERS[word]))
    return out


def _whole_word(needle: str, haystack: str) -> list[tuple[int, int]]:
    pattern = r"(?<![\w])" + re.escape(needle) + r"(?![\w])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, haystack)]


def _domain_values(domain: dict[str, Any] | None, db: sqlite3.Connection | None) -> list[str]:
    if not domain or db is None:
        return []
    table, column = domain["table"], domain["column"]
    if not re.fullmatch(r"\w+", table) or not re.fullmatch(r"\w+", column):
        return []
    try:
        rows = db.execute(f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT '
                          "NULL LIMIT 5000").fetchall()
    except sqlite3.Error:
        return []
    return [str(r[0]) for r in rows if str(r[0]).strip()]


def _named(text: str, names: Iterable[str]) -> list[str]:
    """The names found in ``text`` as whole words, longest first, each span used once."""
    haystack = normal_text(text)
    taken: list[tuple[int, int]] = []
    found: list[str] = []
    for name in sorted({normal_text(n) for n in names if normal_text(n)}, key=len, reverse=True):
        for start, end in _whole_word(name, haystack):
            if not any(start < e and s < end for s, e in taken):
                taken.append((start, end))
                if name not in found:
                    found.append(name)
    return found


def candidates(spec: dict[str, Any], text: str, *, db: sqlite3.Connection | None = None
               ) -> list[Any]:
    """Every distinct value of the spec's type that ``text`` offers, in normal form."""
    kind = spec["type"]
    dates, rest = _dates(text)
    if kind == "date":
        return list(dict.fromkeys(dates))
    if kind in ("number", "money"):
        # "#241" names a record, "13:45" is a time, "x=35" a field, "of the 28" a whole:
        # none of them is the quantity asked for.
        rest = _TIME.sub(" ", _REFERENCE.sub(" ", _CARD_DIGITS.sub(" ", rest)))
        rest = _DENOMINATOR.sub(" ", _FIELD_VALUE.sub(" ", rest))
        return list(dict.fromkeys(_numbers(rest)))
    if kind == "id":
        value = str(spec["value"]).casefold()
        cut = max(value.rfind("_"), value.rfind("-")) + 1
        shape = re.escape(value[:cut]) + "[0-9a-z]{" + str(len(value) - cut) + "}"
        found = re.findall(r"(?<![\w-])(" + shape + r")(?![\w])", text.casefold())
        return list(dict.fromkeys(found))
    if kind == "list" and _numeric(spec["value"]):
        # "Two pull requests had one: #523 and #517": where the reply writes records' numbers
        # with a #, those are the list.
        marked = [Decimal(n) for n in re.findall(r"#(\d+)\b", rest)]
        # "three pull requests: 212, 228 and 241": a count of the list is not an item of it.
        rest = re.sub(r"\b(?:" + "|".join(_WORD_NUMBERS) + r"|\d+)\s+(?=[a-z][\w-]*\s*(?:[a-z]"
                      r"[\w-]*\s*)?[:,(])", " ", rest, flags=re.I)
        return list(dict.fromkeys(marked or _numbers(rest)))
    pool = list(spec["value"]) if kind == "list" else [spec["value"]]
    pool += _domain_values(spec.get("domain"), db) + list(spec.get("alternatives", ()))
    return _named(text, pool)


def total_spans(text: str) -> list[re.Match]:
    """Where ``text`` labels a figure as its total ("$2,795 in total", "total: 2795")."""
    return list(_TOTAL.finditer(text))


def _totals(text: str) -> list[Decimal]:
    """The figures ``text`` labels as its total."""
    out = []
    for m in total_spans(text):
        raw = next(g for g in m.groups() if g)
        try:
            out.append(Decimal(raw.replace(",", "")))
        except InvalidOperation:
            continue
    return out


def _counts_of(text: str, nouns: list[str]) -> list[Decimal]:
    """The numbers ``text`` puts before one of ``nouns`` ("14 to-dos", "23 business-class
    seats", "two pull requests"), a few words at most apart."""
    _, rest = _dates(text)
    rest = _DENOMINATOR.sub(" ", _FIELD_VALUE.sub(" ", _TIME.sub(" ", rest)))
    wanted = {n.casefold() for n in nouns}
    out = []
    number = r"(\d{1,3}(?:,\d{3})+|\d+|" + "|".join(_WORD_NUMBERS) + r")"
    for m in re.finditer(r"(?<![\w#.])" + number + r"\b((?:\s+[\w-]+){1,4})", rest, re.I):
        following = [w.strip(".,;:!?()").casefold() for w in m.group(2).split()]
        if any(w in wanted for w in following):
            raw = m.group(1).lower().replace(",", "")
            out.append(Decimal(_WORD_NUMBERS[raw]) if raw in _WORD_NUMBERS else Decimal(raw))
    return out


def _amounts_by(text: str, words: Any) -> list[Decimal]:
    """The amounts ``text`` writes next to one of ``words`` (a few words apart at most)."""
    if not words:
        return []
    _, rest = _dates(text)
    rest = _CARD_DIGITS.sub(" ", rest)
    wanted = "|".join(re.escape(w) for w in words)
    amount = r"[$€£¥₹]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:[A-Z]{3}\b|dollars?|euros?)"
    near = r"(?:\s+\S+){0,4}?\s+"
    out = []
    for pattern in (r"\b(?:" + wanted + r")\w*" + near + r"(?:" + amount + ")",
                    r"(?:" + amount + r")" + near + r"(?:\w+\s+){0,1}(?:" + wanted + r")\w*\b"):
        for m in re.finditer(pattern, rest, re.I):
            raw = next(g for g in m.groups() if g)
            out.append(Decimal(raw.replace(",", "")))
    return out


def asked_words(prompt: str) -> list[str]:
    """What a "how much" question asks about ("how much was charged" -> charged, "the total
    amount refunded" -> refunded): the words a reply ties its amount to."""
    found = []
    for m in re.finditer(r"\bhow much\s+(?:(?:was|were|is|did|does|do|in|of)\s+)*([\w-]+)(?:\s+"
                         r"([\w-]+))?|\btotal (?:amount )?([a-z]+ed)\b", prompt, re.I):
        found += [g.casefold() for g in m.groups() if g and len(g) > 3]
    stems = {w[:-2] if w.endswith("ed") and len(w) > 5 else w for w in found}
    return sorted(stems - {"travel", "does", "have", "still", "money", "total"})


def counted_noun(prompt: str) -> list[str]:
    """What a "how many ..." question counts, in the forms a reply may write it ("seats",
    "seat"); [] when the prompt asks no such question."""
    from agentworld.servers.words import plural, singular

    found = re.search(r"\bhow many\s+((?:[\w-]+\s+){0,3}?[\w-]+?)(?=\s+(?:are|is|do|does|"
                      r"did|have|has|were|was|in|on|you|we|i|of|with|that|which|will|can|"
                      r"carry|still)\b|[?.,]|$)", prompt, re.I)
    if not found:
        return []
    head = found.group(1).split()[-1].casefold()
    return sorted({head, singular(head), plural(singular(head))})


def _numeric(values: Any) -> bool:
    return bool(values) and all(isinstance(v, int | float) and not isinstance(v, bool)
                                for v in values)


def mentions(spec: dict[str, Any], text: str, *, db: sqlite3.Connection | None = None
             ) -> list[Any]:
    """The candidates of ``spec``'s type that appear in ``text`` (used on prompts)."""
    return candidates(spec, text, db=db)


def _expected(spec: dict[str, Any]) -> Any:
    kind, value = spec["type"], spec["value"]
    if kind in ("number", "money"):
        return Decimal(str(value))
    if kind == "date":
        return str(value)[:10]
    if kind == "id":
        return str(value).casefold()
    if kind == "list":
        if _numeric(value):
            return {Decimal(str(v)) for v in value}
        return {normal_text(v) for v in value}
    return normal_text(value)


def _same_number(a: Decimal, b: Decimal, money: bool) -> bool:
    return abs(a - b) < Decimal("0.005") if money else a == b


def answer_matches(spec: dict[str, Any], reply: str | None, *,
                   db: sqlite3.Connection | None = None, prompt: str = "") -> bool:
    """Whether ``reply`` gives exactly the expected value and no rival candidate.

    Values the prompt mentions (``spec["ignore"]``, or found in ``prompt``) are not counted as
    rivals: restating the question is not hedging.
    """
    if not reply or spec.get("type") not in ANSWER_TYPES:
        return False
    if len(reply) > 4000:
        return False  # an essay that could contain anything is not an answer
    kind = spec["type"]
    expected = _expected(spec)
    found = candidates(spec, reply, db=db)
    ignore = list(spec.get("ignore", ())) + (mentions(spec, prompt, db=db) if prompt else [])
    if kind == "money":
        totals = _totals(reply)
        if totals:
            # "$1,400 and $1,395, $2,795 in total": the figure labelled as the total answers;
            # its parts are not rivals.
            return all(_same_number(n, expected, True) for n in totals)
        asked = _amounts_by(reply, spec.get("asked", ()))
        if asked:
            # "$75.00 was charged (the new fare of $121.00 is lower ...)": the amount the
            # reply ties to what was asked ("charged") answers.
            return all(_same_number(n, expected, True) for n in asked)
    if kind == "number" and spec.get("counted"):
        counts = _counts_of(reply, spec["counted"])
        if counts:
            # "14 to-dos across 7 pages": the number that counts what was asked answers.
            return all(n == expected for n in counts)
    if kind in ("number", "money"):
        ignore_n = {Decimal(str(v)) for v in ignore}
        rivals = [n for n in found if n not in ignore_n or _same_number(n, expected, False)]
        if kind == "money":
            rivals = [n for n in rivals if not (n == int(n) and 1900 <= n <= 2100
                                                and not _same_number(n, expected, True))]
        return len(rivals) == 1 and _same_number(rivals[0], expected, kind == "money")
    if kind == "list" and _numeric(spec["value"]):
        ignore_n = {Decimal(str(v)) for v in ignore} - expected
        return {n for n in found if n not in ignore_n} == expected
    if kind == "list":
        ignore_t = {normal_text(v) for v in ignore} - expected
        named = {n for n in found if n not in ignore_t}
        return named == expected
    fold = (lambda v: str(v).casefold()) if kind == "id" else normal_text
    ignore_t = {fold(v) for v in ignore} - {expected}
    rivals = [v for v in found if v not in ignore_t]
    return rivals == [expected]


def render_answer(spec: dict[str, Any], style: int = 0) -> str:
    """The expected value written in one of several ways a person would write it (the audit's
    equivalent phrasings); ``style`` picks the way."""
    kind, value = spec["type"], spec["value"]
    if kind == "number":
        n = Decimal(str(value))
        forms = [f"{n}", f"{n:,}", f"The answer is {n}.", f"There are {n} in total.",
                 f"{n:.1f}" if n == int(n) else f"{n}"]
    elif kind == "money":
        n = Decimal(str(value)).quantize(Decimal("0.01"))
        cur = spec.get("currency", "USD")
        forms = [f"{n:,} {cur}", f"{cur} {n}", f"The total comes to {n:,} {cur}.",
                 f"{n}", f"{n:,.2f}"]
    elif kind == "date":
        day = dt.date.fromisoformat(str(value)[:10])
        forms = [day.isoformat(), f"{day:%B} {day.day}, {day.year}",
                 f"{day.day} {day:%B} {day.year}", f"It is on {day:%b} {day.day}, {day.year}.",
                 f"{day.month:02d}/{day.day:02d}/{day.year}"]
    elif kind == "list":
        items = [str(v) for v in value]
        forms = [", ".join(items), "\n".join(f"- {v}" for v in items),
                 "They are " + ", ".join(items[:-1]) + (" and " if len(items) > 1 else "")
                 + items[-1] + ".", ", ".join(reversed(items)), "; ".join(items)]
    else:
        forms = [str(value), f"It is {value}.", f'"{value}"', str(value).upper(),
                 f"The answer: {value}"]
    return forms[style % len(forms)]
