"""Values in the right clinical domain: a test run on a specimen it can be run on, a tube that
holds that specimen, and an abnormal flag that agrees with the value it flags.

The tables below are a heuristic summary of common laboratory practice (which specimen a test
takes, which specimen a tube holds, adult reference ranges); they cover the tests and tubes the
archetypes name and are matched by keywords in the test's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .model import Finding, Subject, Table

__all__ = ["specimen_mismatch", "flag_mismatch", "expected_flag", "TEST_SPECIMENS",
           "CONTAINER_SPECIMENS", "REFERENCE_RANGES"]

_BLOOD_CHEMISTRY = frozenset({"serum", "plasma"})
# Keyword in a test's name -> specimen types it is run on; the first keyword found wins, so
# specific names come before generic ones ("urine culture" before "culture").
TEST_SPECIMENS: tuple[tuple[str, frozenset[str]], ...] = (
    # A test whose name says its specimen ("Glucose, whole blood") is run on that one.
    ("whole blood", frozenset({"whole_blood"})), ("serum", frozenset({"serum"})),
    ("plasma", frozenset({"plasma"})),
    ("urinalysis", frozenset({"urine"})), ("urine", frozenset({"urine"})),
    ("cerebrospinal", frozenset({"csf"})), ("csf", frozenset({"csf"})),
    ("pcr", frozenset({"swab"})), ("swab", frozenset({"swab"})),
    ("strep", frozenset({"swab"})), ("influenza", frozenset({"swab"})),
    ("blood culture", frozenset({"whole_blood"})),
    ("complete blood count", frozenset({"whole_blood"})), ("cbc", frozenset({"whole_blood"})),
    ("blood count", frozenset({"whole_blood"})), ("hba1c", frozenset({"whole_blood"})),
    ("haemoglobin", frozenset({"whole_blood"})), ("hemoglobin", frozenset({"whole_blood"})),
    ("prothrombin", frozenset({"plasma"})), ("inr", frozenset({"plasma"})),
    ("coagulation", frozenset({"plasma"})), ("d-dimer", frozenset({"plasma"})),
    ("metabolic panel", _BLOOD_CHEMISTRY), ("lipid", _BLOOD_CHEMISTRY),
    ("thyroid", _BLOOD_CHEMISTRY), ("tsh", _BLOOD_CHEMISTRY), ("liver", _BLOOD_CHEMISTRY),
    ("vitamin", _BLOOD_CHEMISTRY), ("c-reactive", _BLOOD_CHEMISTRY),
    ("ferritin", _BLOOD_CHEMISTRY), ("prostate", _BLOOD_CHEMISTRY),
    ("troponin", _BLOOD_CHEMISTRY), ("magnesium", _BLOOD_CHEMISTRY),
    ("iron", _BLOOD_CHEMISTRY), ("hepatitis", _BLOOD_CHEMISTRY),
    ("creatinine", _BLOOD_CHEMISTRY), ("electrolyte", _BLOOD_CHEMISTRY),
    ("glucose", _BLOOD_CHEMISTRY),
)
# Tube -> specimen types it holds.
CONTAINER_SPECIMENS = {
    "lavender_edta": frozenset({"whole_blood", "plasma"}), "gold_sst": frozenset({"serum"}),
    "red_top": frozenset({"serum"}), "light_blue_citrate": frozenset({"plasma"}),
    "grey_fluoride": frozenset({"plasma"}), "green_heparin": frozenset({"plasma"}),
    "urine_cup": frozenset({"urine"}), "viral_swab": frozenset({"swab"}),
    "blood_culture_bottle": frozenset({"whole_blood"}),
}
# Analyte keywords -> {unit: (low, high)}: adult reference ranges in common units. Labs differ
# by a few percent, so only values clearly inside or outside a range count (see _MARGIN).
REFERENCE_RANGES: tuple[tuple[tuple[str, ...], dict[str, tuple[float, float]]], ...] = (
    (("ferritin",), {"ug/l": (15, 300), "ng/ml": (15, 300)}),
    (("haemoglobin", "hemoglobin"), {"g/dl": (12, 17.5), "g/l": (120, 175)}),
    (("hba1c",), {"%": (4, 5.6), "mmol/mol": (20, 38)}),
    (("tsh", "thyroid stimulating"), {"miu/l": (0.4, 4), "mu/l": (0.4, 4), "uiu/ml": (0.4, 4)}),
    (("ldl",), {"mmol/l": (0, 3), "mg/dl": (0, 130)}),
    (("crp", "c-reactive"), {"mg/l": (0, 5), "mg/dl": (0, 0.5)}),
    (("inr",), {"": (0.8, 1.2)}),
    (("glucose",), {"mmol/l": (3.9, 5.5), "mg/dl": (70, 99)}),
    (("potassium",), {"mmol/l": (3.5, 5.1), "meq/l": (3.5, 5.1)}),
    (("sodium",), {"mmol/l": (135, 145), "meq/l": (135, 145)}),
    (("magnesium",), {"mmol/l": (0.7, 1.0), "mg/dl": (1.7, 2.2)}),
    (("psa", "prostate specific"), {"ng/ml": (0, 4)}),
    (("creatinine",), {"umol/l": (45, 110), "mg/dl": (0.6, 1.2)}),
    (("b12",), {"pg/ml": (200, 900), "pmol/l": (148, 664)}),
    (("vitamin d", "25-hydroxy"), {"ng/ml": (30, 100), "nmol/l": (75, 250)}),
    (("troponin",), {"ng/l": (0, 14), "ng/ml": (0, 0.04)}),
    (("platelet",), {"10^3/ul": (150, 400), "10^9/l": (150, 400)}),
    (("white blood cell", "wbc"), {"10^3/ul": (4, 11), "10^9/l": (4, 11)}),
    (("red blood cell", "rbc"), {"10^6/ul": (4, 5.9), "10^12/l": (4, 5.9)}),
    (("haematocrit", "hematocrit"), {"%": (36, 52)}),
    (("triglyceride",), {"mg/dl": (0, 150), "mmol/l": (0, 1.7)}),
    (("alanine", "alt"), {"u/l": (7, 56)}),
    (("aspartate", "ast"), {"u/l": (10, 40)}),
    (("iron",), {"ug/dl": (60, 170), "umol/l": (10, 30)}),
    (("hdl",), {"mg/dl": (40, 90), "mmol/l": (1.0, 2.3)}),
    (("cholesterol",), {"mg/dl": (0, 200), "mmol/l": (0, 5.2)}),
    (("bilirubin",), {"mg/dl": (0.1, 1.2), "umol/l": (3, 21)}),
)
_MARGIN = 0.1
_NORMAL_WORDS = re.compile(r"within reference range|\bnormal\b|not detected|negative|no growth|"
                           r"below cut-off")
_POSITIVE_WORDS = ("detected", "positive", "growth")
_FLAGS_FOR = {"normal": {"normal", "none", "n"}, "low": {"low", "critical", "abnormal", "l"},
              "high": {"high", "critical", "abnormal", "h"},
              "abnormal": {"high", "critical", "abnormal", "positive", "a"}}
_NUMBER = re.compile(r"^(?P<analyte>[A-Za-z].*?)\s+(?P<value>\d+(?:\.\d+)?)\s*"
                     r"(?P<unit>10\^\d+/\w+|[^\s\d(]\S*)?\s*(\((low|high|critical)\))?$")


def _specimens_for_test(name: str) -> frozenset[str] | None:
    text = name.lower()
    return next((types for word, types in TEST_SPECIMENS if word in text), None)


def _evidence(subject: Subject, table: Table, row: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(source, kind, value) for the test names, specimen types and tubes a row and the rows it
    refers to name; source tells which row said it."""
    found = []
    sources = [("self", table, row)] + [(c, t, r) for c, t, r in subject.parents(table, row)]
    for source, t, r in sources:
        for column, value in r.items():
            if not isinstance(value, str):
                continue
            if column == "specimen_type":
                found.append((source, "specimen", value))
            elif column in ("container", "tube", "tube_type"):
                found.append((source, "container", value))
            elif column in ("test_name", "test", "test_code_name") or (
                    t.entity is not None and column == t.entity.label
                    and t.entity.name.endswith("test")):
                found.append((source, "test", value))
    return found


def _conflict(a: tuple[str, str, str], b: tuple[str, str, str]) -> str:
    kinds = {a[1]: a[2], b[1]: b[2]}
    if "test" in kinds and "specimen" in kinds:
        allowed = _specimens_for_test(kinds["test"])
        if allowed and kinds["specimen"] not in allowed:
            return f"{kinds['test']} is not run on {kinds['specimen']}"
    if "test" in kinds and "container" in kinds:
        allowed, holds = _specimens_for_test(kinds["test"]), CONTAINER_SPECIMENS.get(
            kinds["container"])
        if allowed and holds and not allowed & holds:
            return f"{kinds['test']} is not run on a {kinds['container']} tube"
    if "specimen" in kinds and "container" in kinds:
        holds = CONTAINER_SPECIMENS.get(kinds["container"])
        if holds and kinds["specimen"] not in holds:
            return f"a {kinds['container']} tube does not hold {kinds['specimen']}"
    return ""


def specimen_mismatch(subject: Subject) -> Iterator[Finding]:
    """A test on a specimen type or tube it cannot be run on, or a tube holding the wrong
    specimen; pairs that both come from one referred row are reported on that row."""
    for table in subject.tables.values():
        for row in table.rows:
            evidence = _evidence(subject, table, row)
            problems = [_conflict(a, b) for i, a in enumerate(evidence) for b in evidence[i + 1:]
                        if a[1] != b[1] and not (a[0] == b[0] and a[0] != "self")]
            first = next((p for p in problems if p), "")
            if first:  # one finding a row: a wrong tube often breaks two pairs at once
                yield subject.finding(table.name, row.get("id"), "specimen_mismatch", first)


def _range(analyte: str, unit: str) -> tuple[float, float] | None:
    analyte = analyte.lower()
    unit = unit.lower().replace("\u00b5", "u").replace("\u03bc", "u").replace("mcg", "ug")
    for names, units in REFERENCE_RANGES:
        if any(re.search(rf"(^|\W){re.escape(n)}(\W|$)", analyte) for n in names):
            return units.get(unit)
    return None


def _read_number(text: str) -> str:
    """low, high or normal for "<analyte> <value> <unit>" read against REFERENCE_RANGES; "" when
    the analyte or unit is unknown or the value is too close to a limit to say."""
    match = _NUMBER.match(text.strip())
    if not match:
        return ""
    bounds = _range(match.group("analyte"), match.group("unit") or "")
    if bounds is None:
        return ""
    low, high = bounds
    value = float(match.group("value"))
    # Near a limit (closer than a tenth of the range's width or of the limit), no opinion.
    below = min(_MARGIN * (high - low), _MARGIN * low)
    above = min(_MARGIN * (high - low), _MARGIN * high)
    if value < low - below:
        return "low"
    if value > high + above:
        return "high"
    if low + below <= value <= high - above:
        return "normal"
    return ""


def expected_flag(text: str) -> str:
    """What a result's text says its flag is: normal, low, high or abnormal; "" when unknown.
    An explicit "(low)"/"(high)" wins; else a number is read against REFERENCE_RANGES."""
    lower = text.lower()
    if "(low)" in lower:
        return "low"
    if "(high)" in lower or "(critical)" in lower:
        return "high"
    read = _read_number(text)
    if read:
        return read
    if _NORMAL_WORDS.search(lower):
        return "normal"
    if any(w in lower for w in _POSITIVE_WORDS):
        return "abnormal"
    return ""


def _text_disagrees(text: str) -> str:
    """A result whose stated qualifier contradicts its own number ("HbA1c 5.0% (high)")."""
    lower = text.lower()
    stated = "low" if "(low)" in lower else "high" if "(high)" in lower else ""
    if not stated:
        return ""
    read = expected_flag(re.sub(r"\((low|high)\)", "", text, flags=re.I))
    return read if read in ("low", "high", "normal") and read != stated else ""


def _flag_columns(table: Table) -> list[str]:
    return [c for c in table.columns if "flag" in c.split("_") or c == "interpretation"]


def _value_columns(table: Table) -> list[str]:
    return [c for c in table.columns if c in ("result_text", "result", "value_text", "reading",
                                              "result_value")]


def flag_mismatch(subject: Subject) -> Iterator[Finding]:
    """An abnormal flag that disagrees with the value it flags ("Ferritin 12 ug/L (low)" flagged
    high), or a value whose stated qualifier disagrees with its own number."""
    for table in subject.tables.values():
        flags, values = _flag_columns(table), _value_columns(table)
        for row in table.rows:
            for value_col in values:
                text = row.get(value_col)
                if not isinstance(text, str):
                    continue
                wrong = _text_disagrees(text)
                if wrong:
                    yield subject.finding(table.name, row.get("id"), "flag_mismatch",
                                          f"{value_col} {text!r} reads {wrong} by the "
                                          f"reference range")
                expected = expected_flag(text)
                for flag_col in flags:
                    flag = row.get(flag_col)
                    if expected and isinstance(flag, str) and \
                            flag.lower() not in _FLAGS_FOR[expected]:
                        yield subject.finding(table.name, row.get("id"), "flag_mismatch",
                                              f"{value_col} {text!r} is flagged {flag}")
