"""Codes in their standards' formats: what the seeder issues passes independent validators, and
the real-data pools hold real codes."""

import random

import pytest

from agentworld.servers.world import codes
from agentworld.servers.world.data import table

COUNTRIES = ("DE", "GB", "NL", "PL", "SE", "US", "JP", "BR", "FR", "IE", "AT", "CZ")


@pytest.mark.parametrize("fmt", ["iban", "ean13", "upc", "isbn13", "isrc", "loinc", "semver"])
def test_issued_codes_are_valid_in_their_format(fmt):
    rng = random.Random(7)
    for country in COUNTRIES:
        for _ in range(30):
            value = codes.issue(fmt, rng, country, "DEUTDEFF")
            assert codes.valid(fmt, value), (fmt, country, value)


def test_issued_codes_pass_python_stdnum():
    stdnum = pytest.importorskip("stdnum")
    from stdnum import ean, iban, isbn, isrc

    rng = random.Random(3)
    for country in COUNTRIES:
        for _ in range(25):
            assert iban.is_valid(codes.iban(rng, country, "ABNA")), country
            assert ean.is_valid(codes.ean13(rng, country))
            assert ean.is_valid(codes.upc(rng, country))
            assert isbn.is_valid(codes.isbn13(rng, country))
            assert isrc.is_valid(codes.isrc(rng, country))
    assert stdnum


@pytest.mark.parametrize("fmt,bad", [("semver", "not-a-version"), ("semver", "1.2"),
                                      ("iban", "DE00370400440532013000"),
                                      ("ean13", "4006381333932"), ("loinc", "LN-Z53DMZ"),
                                      ("loinc", "2345-8"), ("isrc", "US-XXX-1"),
                                      ("email", "ana@"), ("currency", "EURO"),
                                      ("slug", "Not A Slug!")])
def test_malformed_values_are_refused(fmt, bad):
    assert not codes.valid(fmt, bad)


def test_known_good_values_are_accepted():
    for fmt, good in (("iban", "DE89370400440532013000"), ("iban", "GB82WEST12345698765432"),
                      ("ean13", "4006381333931"), ("upc", "036000291452"),
                      ("isbn13", "9780306406157"), ("loinc", "2345-7"), ("loinc", "718-7"),
                      ("semver", "2.0.0-rc.1+build.5"), ("email", "ana.silva@example.org"),
                      ("currency", "JPY")):
        assert codes.valid(fmt, good), (fmt, good)


def test_lab_pool_loinc_codes_carry_their_check_digits():
    rows = table("lab_tests")
    assert len(rows) >= 30
    for row in rows:
        assert codes.valid("loinc", row["loinc"]), row
        assert row["specimen"] in ("serum", "plasma", "whole_blood", "urine", "swab")


def test_lab_results_are_flagged_as_their_values_read():
    tests = {r["loinc"]: r for r in table("lab_tests")}
    for row in table("lab_results"):
        test = tests[row["loinc"]]
        if not test["low"]:
            continue
        value = float(row["result"].split()[-2] if test["unit"] else row["result"].split()[-1])
        low, high = float(test["low"]), float(test["high"])
        expected = "normal" if low <= value <= high else ("low" if value < low else "high")
        assert row["flag"] == expected or row["flag"] == "critical", row


def test_order_reasons_carry_real_icd10_codes():
    icd = pytest.importorskip("simple_icd_10_cm")
    for row in table("clinical_reasons"):
        assert icd.is_valid_item(row["icd10"]), row
