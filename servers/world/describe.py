"""Sentences a person would write about generated tools: articles, lists, argument descriptions.

An argument's description says what the value means, in what format it is given and shows an
example, instead of repeating the field's name.
"""

from __future__ import annotations

from .codes import FORMAT_HELP
from .spec import Field

__all__ = ["article", "a_an", "either", "describe_field", "words"]

# Words that start with a vowel letter but a consonant sound, and the reverse.
_CONSONANT_SOUND = ("uni", "use", "usu", "usa", "uti", "eu", "one", "once", "ubiq", "ura", "ure",
                    "uro")
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir", "mri", "sms", "sla", "nda", "rma",
                "mfa", "fbo", "llm", "xml", "html", "rsvp", "ml ")


def words(name: str) -> str:
    return name.replace("_", " ")


def article(phrase: str) -> str:
    """``a`` or ``an`` for a phrase, by the sound of its first word ("an active", "a user",
    "an hour")."""
    low = words(phrase).lower().lstrip()
    if low.startswith(_VOWEL_SOUND):
        return "an"
    if low.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if low[:1] in "aeiou" else "a"


def a_an(phrase: str) -> str:
    """The phrase with its indefinite article: "an application", "a booking"."""
    return f"{article(phrase)} {words(phrase)}"


def either(values: tuple[str, ...] | list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``, with underscores read as spaces."""
    items = [words(v) for v in values]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


# What a value drawn from each real-data pool (data.POOLS) looks like.
_POOL_HELP = {
    "city": "a city name, e.g. Lisbon", "company": "a company name, e.g. Siemens",
    "industry": "an industry, e.g. Telecommunications", "bank": "a bank's name",
    "bic": "a BIC (SWIFT) code of 8 or 11 characters, e.g. DEUTDEFF",
    "icd10": "an ICD-10-CM diagnosis code, e.g. E11.9",
    "diagnosis": "a diagnosis as ICD-10-CM words it, e.g. Type 2 diabetes mellitus without "
                 "complications",
    "airport": "a three-letter IATA airport code, e.g. LIS", "country": "a country name",
    "currency": "an ISO 4217 currency code, e.g. EUR",
    "loinc": "a LOINC code (number, hyphen, check digit), e.g. 2345-7",
    "result_loinc": "a LOINC code (number, hyphen, check digit), e.g. 2345-7",
    "lab_test": "the test's name, e.g. Ferritin", "result_test": "the test's name, e.g. Ferritin",
    "lab_specimen": "the specimen type, e.g. serum, whole_blood or urine",
    "lab_unit": "the unit results are reported in, e.g. mg/dL",
    "lab_container": "the tube or container the specimen is collected in, e.g. gold_sst",
    "lab_result": "the measured value with its unit, e.g. Ferritin 12.0 ug/L",
    "result_flag": "normal, low, high, critical or abnormal, as the value reads against the "
                   "reference range",
    "order_reason": "why the test is ordered, e.g. Query anaemia",
    "order_icd10": "the ICD-10-CM code of the reason, e.g. D64.9",
}


def _meaning(f: Field, noun: str) -> str:
    if f.description:
        return f.description.rstrip(".")
    name = words(f.name)
    if f.kind == "ref":
        role = words(f.name.removesuffix("_id"))
        return (f"Id of the {role}" if role == words(f.ref)
                else f"Id of the {role} ({a_an(f.ref)})")
    if noun and f.kind == "date":
        head, *rest = f.name.split("_")
        if rest in (["on"], ["at"]) and head.endswith("ed"):
            return f"The date the {noun} was {head}"  # received_on: "the date ... was received"
        return f"The {noun}'s {name.removesuffix(' on').removesuffix(' date')} date"
    if noun:
        # "account name" of an account reads "name"; "email" of a customer stays "email".
        short = name.removeprefix(noun + " ") if name != noun else name
        if f.kind == "bool":
            return f"Whether the {noun} is {short}" if not short.startswith(
                ("has ", "is ", "can ", "needs ", "requires ")) else f"Whether the {noun} {short}"
        return f"The {noun}'s {short}"
    return f"The {name}"


def _money(f: Field, currency: str) -> str:
    unit = f"minor units (cents) of {currency}" if currency else "minor units (cents)"
    example = int(f.min or 0) + 12_500 if f.max is None or f.max >= 12_500 else int(f.max)
    return f"{unit}, e.g. {example} for {example / 100:,.2f}"


def _range(f: Field) -> str:
    low = "" if f.min is None else f"{f.min:g}"
    high = "" if f.max is None else f"{f.max:g}"
    if low and high:
        return f" from {low} to {high}"
    return f" of at least {low}" if low else (f" of at most {high}" if high else "")


def describe_field(f: Field, *, noun: str = "", currency: str = "") -> str:
    """What an argument means, its format and an example."""
    meaning = _meaning(f, noun)
    if f.format in FORMAT_HELP:
        what, example = FORMAT_HELP[f.format]
        return f"{meaning}: {what}, e.g. {f.example or example}."
    if f.kind == "ref":
        return f"{meaning}: the id of an existing {words(f.ref)}, as the search and get tools " \
               "return it."
    if f.kind == "money":
        return f"{meaning}, in {_money(f, currency)}."
    if f.kind == "int":
        example = f.example or (f"{int(f.min or 0) + 1}" if f.max is None
                                else f"{int((f.min or 0) + (f.max - (f.min or 0)) // 3)}")
        return f"{meaning}: a whole number{_range(f)}, e.g. {example}."
    if f.kind == "float":
        low, high = f.min or 0.0, f.max if f.max is not None else 100.0
        return f"{meaning}: a number{_range(f)}, e.g. {f.example or round((low + high) / 3, 2)}."
    if f.kind == "date":
        return f"{meaning}, as YYYY-MM-DD, e.g. {f.example or '2026-03-16'}."
    if f.kind == "bool":
        return f"{meaning}: true or false."
    if f.kind == "enum":
        return f"{meaning}: one of {either(f.values)}."
    if f.kind == "name":
        return f"{meaning}: a person's full name, e.g. {f.example or 'Ana Silva'}."
    if f.kind == "email":
        return f"{meaning}: an email address, e.g. {f.example or 'ana.silva@example.org'}."
    if f.kind == "code":
        return f"{meaning}: a reference code the system issues."
    if f.kind == "pool":
        what = _POOL_HELP.get(f.source, "")
        return f"{meaning}: {what}." if what else f"{meaning}."
    example = f.example or (f.vocab[0] if f.vocab else "")
    return f"{meaning}: free text, e.g. \"{example}\"." if example else f"{meaning}: free text."
