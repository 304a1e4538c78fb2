"""Codes in their standard's format, with correct check digits where the standard has one.

A column's standard is read from its name (``loinc_code``, ``isrc``, ``upc``, ``iban``,
``version``) or its real-data pool (``icd10``, ``currency``). The check-digit algorithms are the
published ones: LOINC's mod 10, GS1's weights 3 and 1 (UPC, EAN, GTIN, ISBN-13), ISBN-10's
mod 11 and IBAN's mod 97.
"""

from __future__ import annotations

import json

import re
from collections.abc import Callable, Iterator

from .model import Finding, Subject, Table, words

__all__ = ["STANDARDS", "standard_of", "code_format", "luhn_digit", "gtin_ok", "loinc_ok",
           "isbn_ok", "iban_ok", "isrc_ok", "semver_ok", "icd10_ok", "currency_ok",
           "currency_pair_ok", "bic_ok", "email_ok"]

# Active ISO 4217 codes (2025), without the test and no-currency codes.
_CURRENCIES = frozenset("""
AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN
BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD
FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS
KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK
MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR
SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH
UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XDR XOF XPF YER ZAR ZMW ZWG
""".split())


def luhn_digit(digits: str) -> int:
    """The mod 10 check digit (Luhn) for a string of digits; LOINC uses it too."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return (10 - total % 10) % 10


def loinc_ok(code: str) -> bool:
    """``NNNNN-C``: up to seven digits, a hyphen and the mod 10 check digit."""
    match = re.fullmatch(r"(\d{1,7})-(\d)", code)
    return bool(match) and luhn_digit(match.group(1)) == int(match.group(2))


def gtin_ok(code: str, lengths: tuple[int, ...] = (8, 12, 13, 14)) -> bool:
    """GS1 check digit: weights 3 and 1 from the right, over UPC-A, EAN-8, EAN-13 or GTIN-14."""
    digits = code.replace("-", "").replace(" ", "")
    if not digits.isdigit() or len(digits) not in lengths:
        return False
    body = digits[:-1]
    total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(body)))
    return (10 - total % 10) % 10 == int(digits[-1])


def isbn_ok(code: str) -> bool:
    """ISBN-13 (a 978/979 EAN) or ISBN-10 (mod 11, X for ten), hyphens allowed."""
    digits = code.replace("-", "").replace(" ", "")
    if len(digits) == 13:
        return digits[:3] in ("978", "979") and gtin_ok(digits, (13,))
    if len(digits) == 10 and digits[:9].isdigit() and (digits[9].isdigit() or digits[9] in "Xx"):
        values = [int(c) for c in digits[:9]] + [10 if digits[9] in "Xx" else int(digits[9])]
        return sum((10 - i) * v for i, v in enumerate(values)) % 11 == 0
    return False


def iban_ok(code: str) -> bool:
    """Country, two check digits, a national account number; mod 97 of the rearranged number
    is 1."""
    text = code.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", text):
        return False
    rearranged = text[4:] + text[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def isrc_ok(code: str) -> bool:
    """Country, registrant, year and designation: ``CC-XXX-YY-NNNNN`` (no check digit)."""
    return bool(re.fullmatch(r"[A-Z]{2}-?[A-Z0-9]{3}-?\d{2}-?\d{5}", code))


_SEMVER = re.compile(r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?")


def semver_ok(code: str) -> bool:
    """Semantic Versioning 2.0.0 (a leading ``v`` allowed, as tags write it)."""
    return bool(_SEMVER.fullmatch(code))


def icd10_ok(code: str) -> bool:
    """ICD-10(-CM) shape: a letter, two characters, then up to four after a dot."""
    return bool(re.fullmatch(r"[A-TV-Z]\d[0-9A-Z](\.[0-9A-Z]{1,4})?", code))


def currency_ok(code: str) -> bool:
    return code in _CURRENCIES


def currency_pair_ok(code: str) -> bool:
    """Two ISO 4217 codes, base then quote: EUR/USD (or EURUSD)."""
    parts = code.split("/") if "/" in code else [code[:3], code[3:]]
    return len(parts) == 2 and all(currency_ok(p) for p in parts) and parts[0] != parts[1]


def bic_ok(code: str) -> bool:
    """Bank, country, location and an optional branch: 8 or 11 characters."""
    return bool(re.fullmatch(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?", code))


def email_ok(code: str) -> bool:
    return bool(re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", code))


# Standard -> (validator, what a valid value looks like).
STANDARDS: dict[str, tuple[Callable[[str], bool], str]] = {
    "loinc": (loinc_ok, "a LOINC code with its check digit, e.g. 2345-7"),
    "gtin": (gtin_ok, "a UPC/EAN/GTIN with its check digit, e.g. 036000291452"),
    "isbn": (isbn_ok, "an ISBN with its check digit, e.g. 978-0-306-40615-7"),
    "iban": (iban_ok, "an IBAN passing mod 97, e.g. GB82WEST12345698765432"),
    "isrc": (isrc_ok, "an ISRC, e.g. USRC17607839"),
    "semver": (semver_ok, "a semantic version, e.g. 1.4.2"),
    "icd10": (icd10_ok, "an ICD-10 code, e.g. E11.9"),
    "currency": (currency_ok, "an ISO 4217 currency code, e.g. EUR"),
    "currency_pair": (currency_pair_ok, "a pair of ISO 4217 codes, e.g. EUR/USD"),
    "bic": (bic_ok, "a BIC, e.g. DEUTDEFF"),
    "email": (email_ok, "an email address"),
}
_BY_WORD = {"loinc": "loinc", "upc": "gtin", "ean": "gtin", "gtin": "gtin", "isbn": "isbn",
            "iban": "iban", "isrc": "isrc", "semver": "semver", "icd10": "icd10",
            "icd": "icd10", "currency": "currency", "bic": "bic", "swift": "bic",
            "email": "email"}
_CODE_TAILS = frozenset("code id number no address value list".split())
_VERSIONS = frozenset({"version", "version_tag", "package_version", "release_version",
                       "build_version", "app_version", "sdk_version"})


def standard_of(table: Table, column: str) -> str:
    """The standard a column's values follow, or "" when none is known."""
    col = table.columns.get(column)
    f = col.field if col else None
    if f is not None and f.kind == "email":
        return "email"
    if f is not None and f.kind == "pool" and f.source in ("icd10", "currency", "bic"):
        return f.source
    if f is not None and f.kind not in ("text", "code", "pool"):
        return ""
    if column in _VERSIONS:
        return "semver"
    if {"currency", "fx"} & set(words(column)) and "pair" in words(column):
        return "currency_pair"
    parts = words(column)
    for i, word in enumerate(parts):
        after = parts[i + 1] if i + 1 < len(parts) else ""
        # ``currency`` and ``currency_code`` hold a code; ``currency_type`` holds a kind.
        if word in _BY_WORD and (not after or after in _CODE_TAILS or after.isdigit()):
            return _BY_WORD[word]
    return ""


def code_format(subject: Subject) -> Iterator[Finding]:
    """A value that claims a standard (by its column) and fails the standard's format or check."""
    for table in subject.tables.values():
        checked = {c: standard_of(table, c) for c in table.columns}
        for column, standard in checked.items():
            if not standard:
                continue
            valid, example = STANDARDS[standard]
            for row in table.rows:
                value = row.get(column)
                if isinstance(value, str) and value[:1] == "[":
                    # A JSON list column (owners_email): each item is held to the standard.
                    try:
                        items = json.loads(value)
                    except ValueError:
                        items = [value]
                    bad = [i for i in items if not isinstance(i, str) or not valid(i)]
                    if bad:
                        yield subject.finding(table.name, row.get("id"), "code_format",
                                              f"{column} item {bad[0]!r} is not {example}")
                    continue
                if isinstance(value, str) and not valid(value):
                    yield subject.finding(table.name, row.get("id"), "code_format",
                                          f"{column} {value!r} is not {example}")
