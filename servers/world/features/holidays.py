"""Holidays: the region's public holidays of 2026, and business-day arithmetic over them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import free_names, rows

__all__ = ["Holidays", "YEAR", "weekend_days"]

YEAR = 2026
TABLE = "public_holidays"
_TOOLS = ("list_holidays", "is_business_day", "next_business_day")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# Regions whose weekend is not Saturday and Sunday (date.weekday(): Monday is 0).
_WEEKENDS = {"IL": (4, 5), "PS": (4, 5)}


def weekend_days(region: str) -> tuple[int, ...]:
    return _WEEKENDS.get(region, (5, 6))


def _day(value: str) -> dt.date:
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{value!r} is not a calendar date") from None
    if day.year != YEAR:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"the holiday calendar covers {YEAR} only",
                        year=YEAR)
    return day


class Holidays:
    name = "holidays"
    sources = frozenset({"holidays"})

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, (TABLE,))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        b.schema.append(
            f"CREATE TABLE {TABLE} (\n"
            f"    holiday_date TEXT NOT NULL CHECK (holiday_date GLOB "
            f"'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),\n"
            f"    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),\n"
            f"    PRIMARY KEY (holiday_date, name)\n);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        holidays = sorted({(h["date"], h["name"]) for h in b.region.holidays})
        b.seeders.append(lambda conn, rng: conn.executemany(
            f"INSERT INTO {TABLE} VALUES (?, ?)", holidays))
        _add_tools(b, weekend_days(b.region.code))
        b.add_rule(Rule("holidays-calendar-year", f"Business-day questions are answered for "
                        f"dates in {YEAR} only.", ("is_business_day", "next_business_day"),
                        "VALIDATION_ERROR"),
                   lambda db: [("is_business_day", {"date": f"{YEAR + 1}-01-04"}),
                               ("next_business_day", {"date": f"{YEAR}-12-31"})])


def _why_not(ctx: ToolContext, day: dt.date, weekend: tuple[int, ...]) -> str | None:
    """Why a day is not a business day, or None when it is."""
    names = [r["name"] for r in ctx.all(f"SELECT name FROM {TABLE} WHERE holiday_date = ? "
                                        "ORDER BY name", (day.isoformat(),))]
    if names:
        return "holiday: " + "; ".join(names)
    if day.weekday() in weekend:
        return "weekend"
    return None


_REASON = s.nullable(s.string("Why it is not a business day: 'weekend' or 'holiday: <name>'."))


def _add_tools(b: EnvBuilder, weekend: tuple[int, ...]) -> None:
    region = b.region
    off = " or ".join(_WEEKDAYS[d] for d in weekend)

    def list_holidays(ctx: ToolContext, month: int | None = None) -> dict[str, Any]:
        where, params = "1 = 1", ()
        if month is not None:
            where, params = "substr(holiday_date, 6, 2) = ?", (f"{month:02d}",)
        found = ctx.all(f"SELECT * FROM {TABLE} WHERE {where} ORDER BY holiday_date, name",
                        params)
        return {"region": region.name, "year": YEAR, "holidays": [
            {"date": r["holiday_date"], "name": r["name"],
             "weekday": _WEEKDAYS[dt.date.fromisoformat(r["holiday_date"]).weekday()]}
            for r in found]}

    b.tools.tool(
        name="list_holidays", read_only=True,
        description=f"List the public holidays of {region.name} in {YEAR}, in date order; "
                    "optionally of one month only.",
        input=s.obj({"month": s.integer("Month number, 1-12.", minimum=1, maximum=12)},
                    required=[]),
        output=s.obj({"region": s.string(), "year": s.integer(),
                      "holidays": s.array(s.obj({"date": s.date(), "name": s.string(),
                                                 "weekday": s.enum(_WEEKDAYS)}))}))(
        list_holidays)

    def is_business_day(ctx: ToolContext, date: str) -> dict[str, Any]:
        day = _day(date)
        reason = _why_not(ctx, day, weekend)
        return {"date": date, "weekday": _WEEKDAYS[day.weekday()],
                "business_day": reason is None, "reason": reason}

    b.tools.tool(
        name="is_business_day", read_only=True,
        description=f"Whether a date of {YEAR} is a business day in {region.name}: not a "
                    f"{off} and not a public holiday.",
        input=s.obj({"date": s.date(f"A date in {YEAR}, YYYY-MM-DD.")}),
        output=s.obj({"date": s.date(), "weekday": s.enum(_WEEKDAYS),
                      "business_day": s.boolean(), "reason": _REASON}))(is_business_day)

    def next_business_day(ctx: ToolContext, date: str) -> dict[str, Any]:
        day, skipped = _day(date) + dt.timedelta(days=1), []
        while (reason := _why_not(ctx, day, weekend)) is not None:
            skipped.append({"date": day.isoformat(), "reason": reason})
            day += dt.timedelta(days=1)
        if day.year != YEAR:
            raise ToolError(ErrorCode.VALIDATION_ERROR, f"the next business day after {date} "
                            f"falls outside the {YEAR} holiday calendar", year=YEAR)
        return {"date": date, "next_business_day": day.isoformat(),
                "weekday": _WEEKDAYS[day.weekday()], "skipped": skipped}

    b.tools.tool(
        name="next_business_day", read_only=True,
        description=f"The first business day in {region.name} strictly after a date of {YEAR}, "
                    "with the weekend days and holidays skipped on the way.",
        input=s.obj({"date": s.date(f"A date in {YEAR}, YYYY-MM-DD.")}),
        output=s.obj({"date": s.date(), "next_business_day": s.date(),
                      "weekday": s.enum(_WEEKDAYS),
                      "skipped": s.array(s.obj({"date": s.date(), "reason": s.string()}))}))(
        next_business_day)

    def months(db):
        return [{"month": int(r["m"])} for r in rows(
            db, f"SELECT DISTINCT substr(holiday_date, 6, 2) AS m FROM {TABLE} ORDER BY m "
                "LIMIT 2")]

    def dates(db):
        return [{"date": r["holiday_date"]} for r in rows(
            db, f"SELECT holiday_date FROM {TABLE} ORDER BY holiday_date LIMIT 2")] + \
            [{"date": "2026-03-02"}]

    b.probes["list_holidays"] = Probe(lambda db: [{}] + months(db),
                                      lambda db: [{"month": 13}], "VALIDATION_ERROR")
    b.probes["is_business_day"] = Probe(dates, lambda db: [{"date": "2026-02-30"}],
                                        "VALIDATION_ERROR")
    b.probes["next_business_day"] = Probe(dates, lambda db: [{"date": "2026-13-01"}],
                                          "VALIDATION_ERROR")
