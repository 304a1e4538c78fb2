"""Codes in their standards' formats: issued with correct check digits, and validated.

A seeded IBAN passes the ISO 13616 mod-97 check, an EAN-13 or UPC-A its GS1 check digit, an
ISBN-13 its own, a LOINC code its mod-10 check digit; an ISRC has the ISO 3901 layout and a
version is Semantic Versioning 2.0.0. The generators take a random source, so a seeded
environment gets the same codes on every machine. ``valid`` is what the tools enforce.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

__all__ = ["issue", "valid", "ISSUED", "FORMAT_HELP", "iban", "ean13", "upc", "isrc", "isbn13",
           "loinc",
           "semver", "loinc_check_digit", "gs1_check_digit"]

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_SLUG = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")

# IBAN length per country (ISO 13616 registry), for the countries whose BBAN is digits after
# an optional bank letter block and carries no national check digit of its own (Belgium,
# Spain, France, Italy, Norway and others do: their seeded IBANs would fail a bank's check).
_IBAN_LENGTH = {
    "AD": 24, "AT": 20, "BG": 22, "CH": 21, "CY": 28, "DE": 22, "DK": 18, "GB": 22, "GR": 27,
    "IE": 22, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MT": 31, "NL": 18, "PL": 28, "RO": 24,
    "SE": 24, "TR": 26, "UA": 29, "AE": 23, "SA": 24, "IL": 23,
}
# Countries whose BBAN opens with a bank code of letters (taken from a BIC where one is given).
_IBAN_LETTERS = {"GB": 4, "IE": 4, "NL": 4, "BG": 4, "RO": 4, "LV": 4, "MT": 4}
# Countries without IBANs still pay into accounts somewhere: their seeded IBANs are German.
_IBAN_FALLBACK = "DE"

# GS1 company prefixes by country (a representative number of each national range).
_GS1 = {"US": "0", "CA": "0", "FR": "30", "DE": "40", "JP": "45", "RU": "46", "GB": "50",
        "BE": "54", "IE": "539", "DK": "57", "PL": "590", "FI": "64", "CN": "69", "NO": "70",
        "IL": "729", "SE": "73", "MX": "750", "CH": "76", "IT": "80", "ES": "84", "CZ": "859",
        "NL": "87", "AT": "90", "AU": "93", "NZ": "94", "IN": "890", "BR": "789", "KR": "880",
        "PT": "560", "GR": "520", "TR": "869", "ZA": "600", "AR": "779", "HU": "599"}

# ISRC registrant codes are three alphanumerics; the year is the reference year of the record.
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _mod97(text: str) -> int:
    number = "".join(str(int(c, 36)) for c in text)
    return int(number) % 97


def iban(rng: random.Random, country: str = "DE", bank_letters: str = "") -> str:
    """An IBAN of ``country`` (or a German one where the country has none) whose check digits
    pass mod 97. ``bank_letters`` (a BIC's first four letters) fills letter bank codes."""
    country = country if country in _IBAN_LENGTH else _IBAN_FALLBACK
    letters = _IBAN_LETTERS.get(country, 0)
    head = (bank_letters.upper() + "XXXX")[:letters] if letters and bank_letters.isalpha() \
        else "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(letters))
    bban = head + _digits(rng, _IBAN_LENGTH[country] - 4 - letters)
    check = 98 - _mod97(bban + country + "00")
    return f"{country}{check:02d}{bban}"


def gs1_check_digit(body: str) -> str:
    """The GS1 check digit of an EAN/UPC body (weights 3 and 1 from the right)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return str((10 - total % 10) % 10)


def ean13(rng: random.Random, country: str = "") -> str:
    prefix = _GS1.get(country, "40")
    if len(prefix) == 1:
        prefix = "0" + prefix  # a UPC-A number written as EAN-13
    body = prefix + _digits(rng, 12 - len(prefix))
    return body + gs1_check_digit(body)


def upc(rng: random.Random, country: str = "") -> str:
    body = rng.choice("0167") + _digits(rng, 10)
    return body + gs1_check_digit(body)


def isbn13(rng: random.Random, country: str = "") -> str:
    body = "978" + rng.choice("0123") + _digits(rng, 8)
    return body + gs1_check_digit(body)


def isrc(rng: random.Random, country: str = "") -> str:
    """CC-XXX-YY-NNNNN, written without hyphens as registries store it."""
    cc = country if len(country) == 2 and country.isalpha() else "GB"
    registrant = "".join(rng.choice(_ALNUM) for _ in range(3))
    return f"{cc}{registrant}{rng.randint(18, 26):02d}{rng.randint(1, 99_999):05d}"


def loinc_check_digit(number: str) -> str:
    """LOINC's mod-10 check digit (the Luhn scheme over the part before the hyphen)."""
    total = 0
    for i, d in enumerate(reversed(number)):
        value = int(d) * (2 if i % 2 == 0 else 1)
        total += value // 10 + value % 10
    return str((10 - total % 10) % 10)


def loinc(rng: random.Random, country: str = "") -> str:
    number = str(rng.randint(1_000, 99_999))
    return f"{number}-{loinc_check_digit(number)}"


def semver(rng: random.Random, country: str = "") -> str:
    major = rng.choice((0, 0, 1, 1, 1, 2, 2, 3, 4, 5))
    core = f"{major}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
    if rng.random() < 0.12:
        core += f"-{rng.choice(('alpha', 'beta', 'rc'))}.{rng.randint(1, 4)}"
    return core


_ISSUERS: dict[str, Callable[..., str]] = {"iban": iban, "ean13": ean13, "upc": upc,
                                            "isrc": isrc, "isbn13": isbn13, "loinc": loinc,
                                            "semver": semver}


ISSUED = frozenset(_ISSUERS)


def issue(fmt: str, rng: random.Random, country: str = "", hint: str = "") -> str:
    """A fresh code of format ``fmt``; ``hint`` is a BIC for IBANs."""
    if fmt == "iban":
        return iban(rng, country, hint[:4])
    return _ISSUERS[fmt](rng, country)


def _gs1_ok(value: str, length: int) -> bool:
    return len(value) == length and value.isdigit() and gs1_check_digit(value[:-1]) == value[-1]


def _iban_ok(value: str) -> bool:
    v = value.replace(" ", "").upper()
    return (len(v) == _IBAN_LENGTH.get(v[:2], -1) and v[2:4].isdigit() and v.isalnum()
            and _mod97(v[4:] + v[:4]) == 1)


def _loinc_ok(value: str) -> bool:
    number, _, check = value.partition("-")
    return number.isdigit() and len(check) == 1 and loinc_check_digit(number) == check


def _isrc_ok(value: str) -> bool:
    v = value.replace("-", "").upper()
    return bool(re.fullmatch(r"[A-Z]{2}[A-Z0-9]{3}\d{7}", v))


def _currency_ok(value: str) -> bool:
    from .features._base import ecb_rates  # the currencies the environment can convert
    return value in ecb_rates() or value == "EUR"


_VALIDATORS: dict[str, Callable[[str], bool]] = {
    "iban": _iban_ok, "ean13": lambda v: _gs1_ok(v, 13), "upc": lambda v: _gs1_ok(v, 12),
    "isbn13": lambda v: _gs1_ok(v, 13) and v.startswith(("978", "979")), "isrc": _isrc_ok,
    "loinc": _loinc_ok, "semver": lambda v: bool(_SEMVER.match(v)),
    "email": lambda v: bool(_EMAIL.match(v)), "currency": _currency_ok,
    "slug": lambda v: bool(_SLUG.match(v)),
}

# What each format is, for argument descriptions and refusal messages.
FORMAT_HELP = {
    "iban": ("an IBAN (country code, two check digits, account number)", "DE89370400440532013000"),
    "ean13": ("a 13-digit EAN barcode number with its check digit", "4006381333931"),
    "upc": ("a 12-digit UPC-A barcode number with its check digit", "036000291452"),
    "isrc": ("an ISRC recording code (country, registrant, year, 5-digit number)", "GBAYE2500123"),
    "isbn13": ("a 13-digit ISBN with its check digit", "9780306406157"),
    "loinc": ("a LOINC code (number, hyphen, check digit)", "2345-7"),
    "semver": ("a semantic version MAJOR.MINOR.PATCH, optionally with -prerelease", "1.4.2"),
    "email": ("an email address", "ana.silva@example.org"),
    "currency": ("an ISO 4217 currency code with an ECB reference rate", "EUR"),
    "slug": ("lowercase letters and digits joined by hyphens", "fast-json-parse"),
}


def valid(fmt: str, value: str) -> bool:
    """Whether ``value`` is well-formed in ``fmt`` (an unknown format accepts anything)."""
    check = _VALIDATORS.get(fmt)
    return True if check is None else isinstance(value, str) and check(value)
