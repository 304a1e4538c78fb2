"""Currency: the ECB euro reference rates of 2026-02-27, and conversions between them."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ToolContext
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import ecb_rates, free_names, rows

__all__ = ["Currency", "AS_OF", "convert"]

AS_OF = "2026-02-27"
TABLE = "fx_rates"
_TOOLS = ("convert_amount", "list_rates")
_ZERO_DECIMALS = frozenset({"JPY", "KRW", "ISK"})  # ISO 4217 currencies without minor units
_CODE = {"type": "string", "maxLength": 3, "pattern": "^[A-Z]{3}$"}


def convert(amount: float, per_eur_from: float, per_eur_to: float, to: str) -> tuple[float, float]:
    """The rate from one currency to another and the converted amount, rounded as the target
    currency is (no decimals for JPY, KRW and ISK, two otherwise)."""
    rate = per_eur_to / per_eur_from
    digits = 0 if to in _ZERO_DECIMALS else 2
    converted = round(amount * rate, digits)
    return round(rate, 6), int(converted) if digits == 0 else converted


class Currency:
    name = "currency"
    sources = frozenset({"rates"})

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, (TABLE,))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        b.schema.append(
            f"CREATE TABLE {TABLE} (\n"
            f"    currency TEXT PRIMARY KEY CHECK (length(currency) = 3),\n"
            f"    per_eur REAL NOT NULL CHECK (per_eur > 0),\n"
            f"    as_of TEXT NOT NULL\n);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        b.seeders.append(lambda conn, rng: conn.executemany(
            f"INSERT INTO {TABLE} VALUES (?, ?, ?)",
            [(code, rate, AS_OF) for code, rate in sorted(ecb_rates().items())]))
        _add_tools(b)
        home = b.region.currency
        b.add_rule(Rule("currency-known", "Amounts convert only between currencies with an ECB "
                        "reference rate.", ("convert_amount",), "NOT_FOUND"),
                   lambda db: [("convert_amount", {"amount": 100, "from_currency": "XTS",
                                                   "to_currency": "EUR"}),
                               ("convert_amount", {"amount": 100, "from_currency": home,
                                                   "to_currency": "XAU"})])


def _rate(ctx: ToolContext, code: str) -> dict[str, Any]:
    return ctx.require(TABLE, code, kind="currency", column="currency")


def _add_tools(b: EnvBuilder) -> None:
    home = b.region.currency

    def convert_amount(ctx: ToolContext, amount: float, from_currency: str,
                       to_currency: str) -> dict[str, Any]:
        source, target = _rate(ctx, from_currency), _rate(ctx, to_currency)
        rate, converted = convert(amount, source["per_eur"], target["per_eur"], to_currency)
        return {"amount": amount, "from_currency": from_currency, "to_currency": to_currency,
                "rate": rate, "converted": converted, "as_of": target["as_of"]}

    b.tools.tool(
        name="convert_amount", read_only=True,
        description="Convert an amount between two currencies at the ECB euro reference rates "
                    f"of {AS_OF} (cross rates go through the euro). The result is rounded to "
                    "the target currency's minor unit. Unknown currencies are NOT_FOUND.",
        input=s.obj({"amount": s.number("The amount, in units (not cents).", minimum=0,
                                         maximum=1e12),
                     "from_currency": {**_CODE, "description": "ISO 4217 code, e.g. USD."},
                     "to_currency": {**_CODE, "description": f"ISO 4217 code, e.g. {home}."}}),
        output=s.obj({"amount": s.number(), "from_currency": s.string(max_length=3),
                      "to_currency": s.string(max_length=3),
                      "rate": s.number("Units of to_currency per unit of from_currency."),
                      "converted": s.number(), "as_of": s.date()}))(convert_amount)

    def list_rates(ctx: ToolContext, base: str = "EUR") -> dict[str, Any]:
        base_row = _rate(ctx, base)
        found = ctx.all(f"SELECT * FROM {TABLE} WHERE currency <> ? ORDER BY currency", (base,))
        return {"base": base, "as_of": base_row["as_of"],
                "rates": [{"currency": r["currency"],
                           "rate": round(r["per_eur"] / base_row["per_eur"], 6)} for r in found]}

    b.tools.tool(
        name="list_rates", read_only=True,
        description="List the ECB reference rates: units of each currency per one unit of the "
                    "base currency (EUR unless given).",
        input=s.obj({"base": {**_CODE, "description": "ISO 4217 code (default EUR)."}},
                    required=[]),
        output=s.obj({"base": s.string(max_length=3), "as_of": s.date(),
                      "rates": s.array(s.obj({"currency": s.string(max_length=3),
                                              "rate": s.number(minimum=0)}))}))(list_rates)

    def pairs(db):
        codes = [r["currency"] for r in rows(db, f"SELECT currency FROM {TABLE} ORDER BY "
                                                 "currency = ? DESC, currency LIMIT 3", (home,))]
        return [{"amount": 250.0, "from_currency": c, "to_currency": "USD" if c != "USD"
                 else "EUR"} for c in codes]

    b.probes["convert_amount"] = Probe(pairs, lambda db: [{"amount": 10, "from_currency": "XTS",
                                                           "to_currency": "EUR"}], "NOT_FOUND")
    b.probes["list_rates"] = Probe(lambda db: [{}, {"base": home}],
                                   lambda db: [{"base": "XTS"}], "NOT_FOUND")
