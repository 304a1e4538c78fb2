"""Reservations as the tools see them, and the money that moves on them (payments, refunds)."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError, not_found

from .queries import has_departed, load_flight

PAYMENT_COLUMNS = ("id AS payment_id, purpose, method, card_id, voucher_id, amount_cents, "
                   "created_at")


# ---- loading and guards -------------------------------------------------------------------

def load_reservation(ctx, pnr: str) -> dict[str, Any]:
    row = ctx.one("SELECT * FROM reservations WHERE pnr = ?", (pnr.upper(),))
    if row is None:
        raise not_found("reservation", pnr.upper())
    return row


def segment_flights(ctx, pnr: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(segment, flight) for the active segments of a reservation, in itinerary order."""
    segments = ctx.all("SELECT * FROM segments WHERE pnr = ? AND status = 'active' ORDER BY seq",
                       (pnr,))
    return [(sg, load_flight(ctx, sg["flight_id"])) for sg in segments]


def passenger_rows(ctx, pnr: str) -> list[dict[str, Any]]:
    return ctx.all(
        "SELECT rp.passenger_id, p.first_name, p.last_name, rp.checked_bags, p.loyalty_tier "
        "FROM reservation_passengers rp JOIN passengers p ON p.id = rp.passenger_id "
        "WHERE rp.pnr = ? ORDER BY rp.position", (pnr,))


def require_not_cancelled(res: dict[str, Any]) -> None:
    if res["status"] == "cancelled":
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"reservation {res['pnr']} is cancelled and can no longer be modified",
                        pnr=res["pnr"], cancelled_at=res["cancelled_at"])


def require_not_departed(flight: dict[str, Any], now: str, action: str) -> None:
    if has_departed(flight, now):
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"cannot {action}: flight {flight['id']} has already departed",
                        flight_id=flight["id"])


def hold_expired(res: dict[str, Any], now: str) -> bool:
    return res["status"] == "held" and res["hold_expires_at"] <= now


def require_live_hold(res: dict[str, Any], now: str, action: str) -> None:
    if res["status"] != "held":
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"cannot {action}: reservation {res['pnr']} is {res['status']}, not held",
                        pnr=res["pnr"], status=res["status"])
    if hold_expired(res, now):
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"cannot {action}: the hold on {res['pnr']} expired at "
                        f"{res['hold_expires_at']}; create a new reservation",
                        pnr=res["pnr"], hold_expires_at=res["hold_expires_at"])


# ---- money --------------------------------------------------------------------------------

def net_paid(ctx, pnr: str, purposes: tuple[str, ...]) -> int:
    """Payments of the given purposes less what was already refunded on them."""
    marks = ", ".join("?" for _ in purposes)
    paid = ctx.scalar(f"SELECT COALESCE(SUM(amount_cents), 0) FROM payments "
                      f"WHERE pnr = ? AND purpose IN ({marks})", (pnr, *purposes))
    back = ctx.scalar(f"SELECT COALESCE(SUM(rf.amount_cents), 0) FROM refunds rf "
                      f"JOIN payments p ON p.id = rf.payment_id "
                      f"WHERE rf.pnr = ? AND p.purpose IN ({marks})", (pnr, *purposes))
    return paid - back


def _card(ctx, res: dict[str, Any], card_id: str) -> dict[str, Any]:
    card = ctx.one("SELECT * FROM payment_cards WHERE id = ?", (card_id,))
    if card is None:
        raise not_found("card", card_id)
    if card["passenger_id"] != res["contact_passenger_id"]:
        raise ToolError(ErrorCode.FORBIDDEN, f"card {card_id} does not belong to the "
                        f"reservation's contact {res['contact_passenger_id']}", card_id=card_id)
    return card


def _voucher(ctx, res: dict[str, Any], voucher_id: str, amount: int, now: str) -> dict:
    voucher = ctx.one("SELECT * FROM vouchers WHERE id = ?", (voucher_id,))
    if voucher is None:
        raise not_found("voucher", voucher_id)
    if voucher["passenger_id"] != res["contact_passenger_id"]:
        raise ToolError(ErrorCode.FORBIDDEN, f"voucher {voucher_id} does not belong to the "
                        f"reservation's contact {res['contact_passenger_id']}",
                        voucher_id=voucher_id)
    if voucher["expires_on"] < now[:10]:
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"voucher {voucher_id} expired on {voucher['expires_on']}",
                        voucher_id=voucher_id)
    if voucher["balance_cents"] < amount:
        raise ToolError(ErrorCode.LIMIT_EXCEEDED, f"voucher {voucher_id} has only "
                        f"{voucher['balance_cents']} cents left", voucher_id=voucher_id,
                        balance_cents=voucher["balance_cents"], requested_cents=amount)
    return voucher


def charge(ctx, res: dict[str, Any], source: str, amount: int, purpose: str,
           now: str) -> dict[str, Any]:
    """Take ``amount`` from the contact's card, voucher or points and record the payment."""
    payment = {"id": ctx.ids.new("pay"), "pnr": res["pnr"], "purpose": purpose,
               "card_id": None, "voucher_id": None, "amount_cents": amount, "created_at": now}
    contact = res["contact_passenger_id"]
    if source == "points":
        balance = ctx.scalar("SELECT points_balance FROM passengers WHERE id = ?", (contact,))
        if balance < amount:
            raise ToolError(ErrorCode.LIMIT_EXCEEDED, f"passenger {contact} has only {balance} "
                            "points", points_balance=balance, requested_points=amount)
        ctx.db.execute("UPDATE passengers SET points_balance = points_balance - ? WHERE id = ?",
                       (amount, contact))
        payment["method"] = "points"
    elif source.startswith("card_"):
        payment["card_id"] = _card(ctx, res, source)["id"]
        payment["method"] = "card"
    elif source.startswith("vch_"):
        payment["voucher_id"] = _voucher(ctx, res, source, amount, now)["id"]
        ctx.db.execute("UPDATE vouchers SET balance_cents = balance_cents - ? WHERE id = ?",
                       (amount, source))
        payment["method"] = "voucher"
    else:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "payment source must be a card id "
                        "('card_...'), a voucher id ('vch_...') or 'points'", source=source)
    ctx.insert("payments", payment)
    return public_payment(payment)


def public_payment(payment: dict[str, Any]) -> dict[str, Any]:
    return {"payment_id": payment["id"], "purpose": payment["purpose"],
            "method": payment["method"], "card_id": payment["card_id"],
            "voucher_id": payment["voucher_id"], "amount_cents": payment["amount_cents"],
            "created_at": payment["created_at"]}


def refund(ctx, res: dict[str, Any], amount: int, now: str) -> list[dict[str, Any]]:
    """Return ``amount`` to the original forms of payment, most recent payment first.

    Points and voucher money go back to the balance they came from; card refunds are recorded.
    """
    lines: list[dict[str, Any]] = []
    payments = ctx.all(
        "SELECT p.*, p.amount_cents - COALESCE((SELECT SUM(amount_cents) FROM refunds "
        "WHERE payment_id = p.id), 0) AS refundable FROM payments p WHERE p.pnr = ? "
        "ORDER BY p.created_at DESC, p.rowid DESC", (res["pnr"],))
    for payment in payments:
        part = min(amount, payment["refundable"])
        if part <= 0:
            continue
        amount -= part
        line = {"id": ctx.ids.new("rfd"), "payment_id": payment["id"], "pnr": res["pnr"],
                "amount_cents": part, "created_at": now}
        ctx.insert("refunds", line)
        if payment["method"] == "points":
            ctx.db.execute("UPDATE passengers SET points_balance = points_balance + ? "
                           "WHERE id = ?", (part, res["contact_passenger_id"]))
        elif payment["method"] == "voucher":
            ctx.db.execute("UPDATE vouchers SET balance_cents = balance_cents + ? WHERE id = ?",
                           (part, payment["voucher_id"]))
        lines.append({"refund_id": line["id"], "payment_id": payment["id"],
                      "amount_cents": part, "created_at": now})
    return lines


# ---- the reservation as the agent reads it -----------------------------------------------

def _segment_view(ctx, pnr: str, segment: dict, flight: dict, now: str) -> dict[str, Any]:
    seats = ctx.all("SELECT passenger_id, seat FROM seat_assignments WHERE flight_id = ? "
                    "AND pnr = ? ORDER BY seat", (flight["id"], pnr))
    return {"seq": segment["seq"], "flight_id": flight["id"],
            "flight_number": flight["flight_number"], "origin": flight["origin"],
            "destination": flight["destination"],
            "scheduled_departure": flight["scheduled_departure"],
            "scheduled_arrival": flight["scheduled_arrival"], "flight_status": flight["status"],
            "departed": has_departed(flight, now), "fare_cents": segment["fare_cents"],
            "seats": seats}


def reservation_view(ctx, pnr: str, now: str) -> dict[str, Any]:
    res = load_reservation(ctx, pnr)
    pnr = res["pnr"]
    payments = ctx.all(f"SELECT {PAYMENT_COLUMNS} FROM payments WHERE pnr = ? "
                       "ORDER BY created_at, rowid", (pnr,))
    refunds = ctx.all("SELECT id AS refund_id, payment_id, amount_cents, created_at FROM refunds "
                      "WHERE pnr = ? ORDER BY created_at, rowid", (pnr,))
    fare_paid = sum(p["amount_cents"] for p in payments if p["purpose"] == "fare")
    due = res["fare_total_cents"] - fare_paid if res["status"] == "held" else 0
    passengers = [{k: p[k] for k in ("passenger_id", "first_name", "last_name", "checked_bags")}
                  for p in passenger_rows(ctx, pnr)]
    return {
        "pnr": pnr, "status": res["status"], "contact_passenger_id": res["contact_passenger_id"],
        "cabin": res["cabin"], "fare_family": res["fare_family"],
        "created_at": res["created_at"], "hold_expires_at": res["hold_expires_at"],
        "hold_expired": hold_expired(res, now), "confirmed_at": res["confirmed_at"],
        "cancelled_at": res["cancelled_at"], "passengers": passengers,
        "segments": [_segment_view(ctx, pnr, sg, fl, now) for sg, fl in segment_flights(ctx, pnr)],
        "fare_total_cents": res["fare_total_cents"],
        "paid_cents": sum(p["amount_cents"] for p in payments),
        "refunded_cents": sum(r["amount_cents"] for r in refunds),
        "balance_due_cents": max(0, due), "payments": payments, "refunds": refunds}
