"""The code standards the data audit checks: published valid codes pass, a changed digit fails,
and a column's standard is read from its name."""

from __future__ import annotations

import pytest

from agentworld.servers.world.data_audit import codes
from agentworld.servers.world.spec import Entity, Field

from ._audit_fixture import archetype, rules_of, subject

# Codes published as valid by their standards' own examples or registries.
VALID = {
    "loinc": ["2345-7", "718-7", "4548-4", "2160-0", "1742-6"],
    "gtin": ["036000291452", "4006381333931", "96385074", "10614141000415"],
    "isbn": ["978-0-306-40615-7", "0-306-40615-2", "080442957X"],
    "iban": ["GB82WEST12345698765432", "DE89370400440532013000", "FR1420041010050500013M02606"],
    "isrc": ["USRC17607839", "GB-EMI-76-12345"],
    "semver": ["1.0.0", "0.9.2", "v1.8.1", "4.12.0-rc.1", "1.0.0+build.5"],
    "icd10": ["E11.9", "S92.424D", "J45", "Z00.00"],
    "currency": ["EUR", "USD", "JPY", "KES"],
    "currency_pair": ["EUR/USD", "GBPJPY", "USD/CHF"],
    "bic": ["DEUTDEFF", "NEDSZAJJXXX"],
    "email": ["ana.silva@example.pt"],
}
INVALID = {
    "loinc": ["2345-8", "LN-Z53DMZ", "2345"],
    "gtin": ["036000291453", "UPC-HDN4PG", "12345"],
    "isbn": ["978-0-306-40615-8", "978-0-571-1021"],
    "iban": ["GB82WEST12345698765433", "IBAN-4F7K2Q"],
    "isrc": ["ISRC-242KY7", "US-RC1-76-0783"],
    "semver": ["not-a-version", "1.0", "01.2.3", "V2.0.0"],
    "icd10": ["U07", "E1", "ICD-E11"],
    "currency": ["EURO", "XXX", "usd", "ABC"],
    "currency_pair": ["EUR", "EUR/EUR", "EUR-USD", "atlas-currency-pair"],
    "bic": ["DEUT-DE-FF", "DEUTDEF"],
    "email": ["ana.silva", "a@b"],
}


@pytest.mark.parametrize("standard", sorted(VALID))
def test_standards_accept_valid_and_refuse_invalid_codes(standard):
    valid, _ = codes.STANDARDS[standard]
    assert [c for c in VALID[standard] if not valid(c)] == []
    assert [c for c in INVALID[standard] if valid(c)] == []


def test_every_single_digit_change_breaks_a_gs1_or_loinc_check_digit():
    for code in ("036000291452", "4006381333931"):
        for i, ch in enumerate(code):
            for d in "0123456789":
                if d != ch:
                    assert not codes.gtin_ok(code[:i] + d + code[i + 1:])
    for d in "012345689":
        assert not codes.loinc_ok(f"2345-{d}")


def test_luhn_digit_matches_the_published_loinc_check_digits():
    assert [codes.luhn_digit(n) for n in ("2345", "718", "4548", "2160")] == [7, 7, 4, 0]


def test_code_format_reads_the_standard_from_the_column_and_flags_only_bad_values(tmp_path):
    track = Entity("track", "tracks", label="title", fields=(
        Field("title", "text"), Field("isrc", "code", vocab=("ISRC",)),
        Field("upc_code", "text"), Field("version", "text"),
        Field("currency", "pool", source="currency"), Field("barcode", "code")))
    s = subject(tmp_path, archetype(track), {"tracks": [
        {"id": "tra_000001", "title": "Blue", "isrc": "USRC17607839", "upc_code": "036000291452",
         "version": "1.2.0", "currency": "EUR", "barcode": "BC-4F7K2Q"},
        {"id": "tra_000002", "title": "Red", "isrc": "ISRC-242KY7", "upc_code": "036000291453",
         "version": "not-a-version", "currency": "EURO", "barcode": "BC-4F7K2Q"}]})
    found = list(codes.code_format(s))
    assert rules_of(found) == [("tracks", "tra_000002", "code_format")] * 4
    assert [f.message.split()[0] for f in found] == ["isrc", "upc_code", "version", "currency"]


def test_a_column_about_a_code_but_not_holding_one_is_not_checked(tmp_path):
    account = Entity("account", "accounts", label="name", fields=(
        Field("name", "text"), Field("currency_type", "text"), Field("email_count", "text"),
        Field("base_currency", "text"), Field("currency_code", "text")))
    s = subject(tmp_path, archetype(account), {"accounts": [
        {"id": "acc_000001", "name": "Main", "currency_type": "external", "email_count": "3",
         "base_currency": "EURO", "currency_code": "EUR"}]})
    found = list(codes.code_format(s))
    assert [f.message.split()[0] for f in found] == ["base_currency"]
