"""Payments: money taken against a target row, and refunds that never exceed what was paid.

Amounts are integer cents. A payment is in the region's currency, or in another currency the
ECB fixes, converted at the reference rate of 2026-02-27 into ``amount_local``.
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import (
    Target,
    created_of,
    ecb_rates,
    free_names,
    later,
    page,
    paging_props,
    past_stamp,
    rows,
    target,
    target_ids,
)

__all__ = ["Payments", "to_local"]
_ID_PAYMENT = s.identifier("Id of the payment, as list_payments returns it.")

METHODS = ("card", "bank_transfer", "cash", "wallet")
REASONS = ("customer_request", "duplicate", "service_issue", "cancellation")
_TOOLS = ("record_payment", "refund_payment", "list_payments")
_CURRENCY = s.string("ISO 4217 code, e.g. EUR.", max_length=3, pattern=r"^[A-Z]{3}$")


def _tables(t: Target) -> tuple[str, str]:
    return f"{t.name}_payments", f"{t.name}_refunds"


def accepted(local: str) -> dict[str, float]:
    """Currencies a payment may be made in, with units per euro (empty rate: local only)."""
    rates = ecb_rates()
    return rates if local in rates else {local: 0.0}


def to_local(amount: int, currency: str, local: str) -> int:
    """``amount`` cents of ``currency`` in cents of ``local``, at the ECB reference rate."""
    if currency == local:
        return amount
    rates = ecb_rates()
    return max(1, round(amount * rates[local] / rates[currency]))


class Payments:
    name = "payments"
    sources = frozenset({"rates"})

    def applies(self, archetype) -> bool:
        money = any(f.kind == "money" for e in archetype.entities for f in e.fields)
        return money and free_names(archetype, _TOOLS, ("{t}_payments", "{t}_refunds"))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        pay, ref = _tables(t)
        methods = ", ".join(f"'{m}'" for m in METHODS)
        reasons = ", ".join(f"'{r}'" for r in REASONS)
        b.schema.append(
            f"CREATE TABLE {pay} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    amount INTEGER NOT NULL CHECK (amount > 0),\n"
            f"    currency TEXT NOT NULL CHECK (length(currency) = 3),\n"
            f"    amount_local INTEGER NOT NULL CHECK (amount_local > 0),\n"
            f"    method TEXT NOT NULL CHECK (method IN ({methods})),\n"
            f"    created_at TEXT NOT NULL\n);\n"
            f"CREATE INDEX ix_{pay}_target ON {pay}({t.key});\n"
            f"CREATE TABLE {ref} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    payment_id TEXT NOT NULL REFERENCES {pay}(id),\n"
            f"    amount INTEGER NOT NULL CHECK (amount > 0),\n"
            f"    reason TEXT NOT NULL CHECK (reason IN ({reasons})),\n"
            f"    created_at TEXT NOT NULL\n);\n"
            f"CREATE INDEX ix_{ref}_payment ON {ref}(payment_id);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        local = b.region.currency
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t, local))
        _add_tools(b, t, local)
        _add_probes(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target, local: str) -> None:
    pay, ref = _tables(t)
    ids = target_ids(conn, t)
    per_eur = accepted(local).get(local) or 1.0
    foreign = [c for c in ("EUR", "USD", "GBP") if c in accepted(local) and c != local]
    payments, refunds, born = [], [], created_of(conn, t)
    for target_id in rng.sample(ids, min(len(ids), 70)):
        currency = rng.choice(foreign) if foreign and rng.random() < 0.2 else local
        scale = per_eur if currency == local else ecb_rates()[currency]
        amount = max(100, round(rng.randint(40, 1800) * scale) * 100)
        created = past_stamp(rng, 2, 120, born[target_id])
        pid = f"pay_{len(payments) + 1:06d}"
        payments.append((pid, target_id, amount, currency, to_local(amount, currency, local),
                         rng.choice(METHODS), created))
        if rng.random() < 0.25:
            part = amount if rng.random() < 0.4 else amount // rng.choice((2, 4, 5))
            refunds.append((f"ref_{len(refunds) + 1:06d}", pid, part, rng.choice(REASONS),
                            later(created, rng.randint(60, 20_000))))
    conn.executemany(f"INSERT INTO {pay} VALUES (?, ?, ?, ?, ?, ?, ?)", payments)
    conn.executemany(f"INSERT INTO {ref} VALUES (?, ?, ?, ?, ?)", refunds)


def _payment_schema(t: Target, local: str) -> dict[str, Any]:
    return s.obj({"id": s.string("The payment id."), t.key: s.string(),
                  "amount": s.integer("Cents of `currency`.", minimum=1),
                  "currency": s.string(max_length=3),
                  "amount_local": s.integer(f"The amount in cents of {local}.", minimum=1),
                  "method": s.enum(METHODS), "created_at": s.string(),
                  "refunded": s.integer("Cents of `currency` refunded so far.", minimum=0),
                  "refundable": s.integer("Cents of `currency` still refundable.", minimum=0)})


def _payment(ctx: ToolContext, t: Target, payment_id: str) -> dict[str, Any]:
    pay, ref = _tables(t)
    row = ctx.require(pay, payment_id, kind="payment")
    refunded = ctx.scalar(f"SELECT COALESCE(SUM(amount), 0) FROM {ref} WHERE payment_id = ?",
                          (payment_id,))
    return {**row, "refunded": refunded, "refundable": row["amount"] - refunded}


def _add_tools(b: EnvBuilder, t: Target, local: str) -> None:
    pay, ref = _tables(t)
    rates = accepted(local)

    def record_payment(ctx: ToolContext, amount: int, method: str, currency: str = local,
                       **key: str) -> dict[str, Any]:
        row = t.require(ctx, key[t.key])
        if currency not in rates:
            raise ToolError(ErrorCode.VALIDATION_ERROR,
                            f"payments are taken in {local}" + (
                                " or a currency with an ECB reference rate" if len(rates) > 1
                                else "") + f"; {currency} is not accepted", currency=currency)
        new = {"id": ctx.ids.new("pay"), t.key: row["id"], "amount": amount,
               "currency": currency, "amount_local": to_local(amount, currency, local),
               "method": method, "created_at": ctx.clock.iso()}
        ctx.insert(pay, new)
        b.mutated(ctx, pay, new["id"], "create")
        return {"payment": {**new, "refunded": 0, "refundable": amount}}

    b.tools.tool(
        name="record_payment",
        description=f"Record a payment against {t.a_noun}. The amount is in cents and must be "
                    f"positive; the currency defaults to {local}, and another currency is "
                    "accepted only if the ECB fixes a reference rate for it (it is converted "
                    f"into amount_local, in {local}, at the rate of 2026-02-27).",
        input=s.obj({t.key: t.key_schema(),
                     "amount": s.integer("How much, in cents of the currency (12500 is 125.00).",
                                       minimum=1),
                     "currency": _CURRENCY, "method": s.enum(METHODS, "How it was paid.")},
                    required=[t.key, "amount", "method"]),
        output=s.obj({"payment": _payment_schema(t, local)}))(record_payment)

    def refund_payment(ctx: ToolContext, payment_id: str, amount: int,
                       reason: str) -> dict[str, Any]:
        payment = _payment(ctx, t, payment_id)
        if amount > payment["refundable"]:
            raise ToolError(ErrorCode.LIMIT_EXCEEDED,
                            f"payment {payment_id} has {payment['refundable']} cents of "
                            f"{payment['currency']} left to refund; {amount} asked",
                            refundable=payment["refundable"])
        new = {"id": ctx.ids.new("ref"), "payment_id": payment_id, "amount": amount,
               "reason": reason, "created_at": ctx.clock.iso()}
        ctx.insert(ref, new)
        b.mutated(ctx, ref, new["id"], "create")
        return {"refund": new, "payment": _payment(ctx, t, payment_id)}

    b.tools.tool(
        name="refund_payment", destructive=True,
        description=f"Refund part or all of a payment on {t.a_noun}, in the payment's currency "
                    "(cents). Refunds of one payment never add up to more than it was.",
        input=s.obj({"payment_id": _ID_PAYMENT,
                     "amount": s.integer("Cents to refund, in the payment's currency.",
                                         minimum=1),
                     "reason": s.enum(REASONS, "Why the money goes back.")}),
        output=s.obj({"refund": s.obj({"id": s.string("The refund id."),
                                       "payment_id": s.string(), "amount": s.integer(minimum=1),
                                       "reason": s.enum(REASONS), "created_at": s.string()}),
                      "payment": _payment_schema(t, local)}))(refund_payment)

    refunded = f"(SELECT COALESCE(SUM(r.amount), 0) FROM {ref} r WHERE r.payment_id = p.id)"
    listing = (f"(SELECT p.*, {refunded} AS refunded, p.amount - {refunded} AS refundable "
               f"FROM {pay} p)")

    def list_payments(ctx: ToolContext, limit: int = 20, cursor: str | None = None,
                      **key: str) -> dict[str, Any]:
        t.require(ctx, key[t.key])
        return page(ctx, select=listing, where=[f"{t.key} = ?"], params=[key[t.key]],
                    order="created_at DESC, id", limit=limit, cursor=cursor, key="payments")

    b.tools.tool(
        name="list_payments", read_only=True,
        description=f"List the payments of {t.a_noun}, newest first, paged, each with what was "
                    "refunded and what can still be.",
        input=s.obj({t.key: t.key_schema(), **paging_props()}, required=[t.key]),
        output=s.page_of(_payment_schema(t, local), "payments"))(list_payments)


def _add_probes(b: EnvBuilder, t: Target) -> None:
    pay, ref = _tables(t)
    refunded = f"(SELECT COALESCE(SUM(r.amount), 0) FROM {ref} r WHERE r.payment_id = p.id)"

    def paid(db):
        return rows(db, f"SELECT p.* FROM {pay} p WHERE p.amount > {refunded} ORDER BY p.id "
                        "LIMIT 3")

    b.probes["record_payment"] = Probe(
        lambda db: [{t.key: r["id"], "amount": 12_500, "method": "card"}
                    for r in rows(db, f"SELECT id FROM {t.table} ORDER BY id LIMIT 2")],
        lambda db: [{t.key: t.missing, "amount": 12_500, "method": "card"}], "NOT_FOUND",
        changes=pay)
    b.probes["refund_payment"] = Probe(
        lambda db: [{"payment_id": r["id"], "amount": 100, "reason": "customer_request"}
                    for r in paid(db)],
        lambda db: [{"payment_id": "pay_0000000000", "amount": 100, "reason": "duplicate"}],
        "NOT_FOUND", changes=ref)
    b.probes["list_payments"] = Probe(lambda db: [{t.key: r[t.key]} for r in paid(db)],
                                      lambda db: [{t.key: t.missing}], "NOT_FOUND")


def _add_rules(b: EnvBuilder, t: Target) -> None:
    pay, ref = _tables(t)

    def over(db):
        some = rows(db, f"SELECT p.id, p.amount - (SELECT COALESCE(SUM(r.amount), 0) FROM {ref} "
                        f"r WHERE r.payment_id = p.id) AS left FROM {pay} p ORDER BY left, p.id "
                        "LIMIT 3")
        return [("refund_payment", {"payment_id": r["id"], "amount": r["left"] + 1,
                                    "reason": "customer_request"}) for r in some]

    b.add_rule(Rule("payment-refund-cap", "The refunds of a payment never add up to more than "
                    "the payment.", ("refund_payment",), "LIMIT_EXCEEDED"), over)

    def bad(db):
        some = rows(db, f"SELECT id FROM {t.table} ORDER BY id LIMIT 1")
        return [("record_payment", {t.key: r["id"], **args, "method": "card"}) for r in some
                for args in ({"amount": 0}, {"amount": 5_000, "currency": "XTS"})]

    b.add_rule(Rule("payment-amount-currency", f"A payment is a positive amount, in "
                    f"{b.region.currency} or a currency with an ECB reference rate.",
                    ("record_payment",), "VALIDATION_ERROR"), bad)
