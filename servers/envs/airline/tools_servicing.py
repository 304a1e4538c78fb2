"""Servicing tools on ticketed reservations: seats, flight changes, bags and cancellation."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError, not_found
from agentworld.servers import schema as s

from . import ledger
from .pricing import (
    FREE_CANCEL_HOURS,
    MAX_BAGS,
    RULES,
    FareRule,
    bag_allowance,
    change_cost,
    paid_bag_fee,
    refund_quote,
)
from .queries import cabin_layouts, load_flight, price, require_bookable, shift
from .shapes import CENTS, PAYMENT, PNR, REFUND, RESERVATION, SOURCE
from .tools_reservations import require_cabin, require_connects, require_room
from .toolset import now, tools

OPTIONAL_SOURCE = {**SOURCE, "description": SOURCE["description"] + " Required when there is "
                   "something to pay."}


def _ticketed(ctx, pnr: str, action: str) -> dict[str, Any]:
    res = ledger.load_reservation(ctx, pnr)
    ledger.require_not_cancelled(res)
    if res["status"] != "confirmed":
        raise ToolError(ErrorCode.PRECONDITION_FAILED, f"cannot {action}: reservation "
                        f"{res['pnr']} is not ticketed yet; confirm it first", pnr=res["pnr"])
    return res


def _segment(ctx, res: dict[str, Any], flight_id: str) -> dict[str, Any]:
    segment = ctx.one("SELECT * FROM segments WHERE pnr = ? AND flight_id = ? AND "
                      "status = 'active'", (res["pnr"], flight_id))
    if segment is None:
        raise not_found("segment", f"{res['pnr']}/{flight_id}")
    return segment


def _traveller(ctx, res: dict[str, Any], passenger_id: str) -> dict[str, Any]:
    row = ctx.one("SELECT rp.*, p.loyalty_tier FROM reservation_passengers rp "
                  "JOIN passengers p ON p.id = rp.passenger_id "
                  "WHERE rp.pnr = ? AND rp.passenger_id = ?", (res["pnr"], passenger_id))
    if row is None:
        raise not_found("passenger on reservation", f"{res['pnr']}/{passenger_id}")
    return row


def _in_free_window(res: dict[str, Any], at: str) -> bool:
    return at < shift(res["created_at"], hours=FREE_CANCEL_HOURS)


def _pay(ctx, res, source: str | None, amount: int, purpose: str, at: str):
    if amount == 0:
        return None
    if source is None:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{amount} cents are due: pass a payment "
                        "`source`", amount_cents=amount)
    return ledger.charge(ctx, res, source, amount, purpose, at)


@tools.tool(
    description="Assign (or move) a passenger's seat on one flight of a ticketed reservation. "
                "The seat must exist on the aircraft, be in the reservation's cabin and be "
                "free; the flight must not have departed.",
    input=s.obj({"pnr": PNR, "flight_id": s.identifier(), "passenger_id": s.identifier(),
                 "seat": s.string("Seat such as '14C'.", max_length=4, min_length=2)}),
    output=s.obj({"pnr": s.string(), "flight_id": s.string(), "passenger_id": s.string(),
                  "seat": s.string(), "previous_seat": s.nullable(s.string())}))
def assign_seat(ctx, pnr, flight_id, passenger_id, seat):
    at, seat = now(ctx), seat.upper()
    res = _ticketed(ctx, pnr, "assign a seat")
    flight = load_flight(ctx, _segment(ctx, res, flight_id)["flight_id"])
    _traveller(ctx, res, passenger_id)
    ledger.require_not_departed(flight, at, "assign a seat")
    cabin = _cabin_of_seat(ctx, flight, seat)
    if cabin != res["cabin"]:
        raise ToolError(ErrorCode.FORBIDDEN, f"seat {seat} is in {cabin}; reservation "
                        f"{res['pnr']} is booked in {res['cabin']}", seat=seat, cabin=cabin)
    holder = ctx.one("SELECT * FROM seat_assignments WHERE flight_id = ? AND seat = ?",
                     (flight["id"], seat))
    if holder and holder["passenger_id"] != passenger_id:
        raise ToolError(ErrorCode.CONFLICT, f"seat {seat} on {flight['id']} is already taken",
                        seat=seat, flight_id=flight["id"])
    previous = ctx.scalar("SELECT seat FROM seat_assignments WHERE flight_id = ? AND "
                          "passenger_id = ?", (flight["id"], passenger_id))
    if previous != seat:
        ctx.db.execute("DELETE FROM seat_assignments WHERE flight_id = ? AND passenger_id = ?",
                       (flight["id"], passenger_id))
        ctx.insert("seat_assignments", {"flight_id": flight["id"], "seat": seat,
                                        "pnr": res["pnr"], "passenger_id": passenger_id,
                                        "assigned_at": at})
    return {"pnr": res["pnr"], "flight_id": flight["id"], "passenger_id": passenger_id,
            "seat": seat, "previous_seat": previous}


def _cabin_of_seat(ctx, flight: dict[str, Any], seat: str) -> str:
    row, letter = seat[:-1], seat[-1:]
    for cabin, layout in cabin_layouts(ctx, flight["aircraft_code"]).items():
        if (row.isdigit() and layout["first_row"] <= int(row) <= layout["last_row"]
                and letter in layout["letters"]):
            return cabin
    raise ToolError(ErrorCode.NOT_FOUND, f"seat {seat} does not exist on a "
                    f"{flight['aircraft_name']}", kind="seat", id=seat)


@tools.tool(
    description="Move one segment of a ticketed reservation to another flight on the same "
                "route (same origin and destination), in the same cabin and fare family. Costs "
                "the fare family's change fee per passenger plus any fare increase per "
                "passenger (a cheaper fare is not refunded); the fee is waived within 24 hours "
                "of booking or when the original flight was cancelled by the airline. Basic "
                "economy cannot be changed (unless the airline cancelled the flight). Not "
                "possible once the original flight has departed. Seats on the old flight are "
                "released.",
    destructive=True,
    input=s.obj({"pnr": PNR, "flight_id": s.identifier("The flight being replaced."),
                 "new_flight_id": s.identifier("The replacement flight."),
                 "source": OPTIONAL_SOURCE}, required=["pnr", "flight_id", "new_flight_id"]),
    output=s.obj({"reservation": RESERVATION, "change_fee_cents": CENTS,
                  "fare_difference_cents": CENTS, "charged_cents": CENTS,
                  "payment": s.nullable(PAYMENT),
                  "seats_released": s.array(s.string(), max_items=9)}))
def change_flight(ctx, pnr, flight_id, new_flight_id, source=None):
    at = now(ctx)
    res = _ticketed(ctx, pnr, "change a flight")
    segment = _segment(ctx, res, flight_id)
    old = load_flight(ctx, segment["flight_id"])
    ledger.require_not_departed(old, at, "change this segment")
    rule = RULES[(res["cabin"], res["fare_family"])]
    airline_cancelled = old["status"] == "cancelled"
    if not rule.changeable and not airline_cancelled:
        raise ToolError(ErrorCode.FORBIDDEN, f"{res['fare_family']} {res['cabin']} fares cannot "
                        "be changed; the reservation can only be cancelled", pnr=res["pnr"])
    new = _replacement(ctx, res, segment, old, new_flight_id, at)
    fee, diff = change_cost(rule, segment["fare_cents"], price(new, res["cabin"],
                            res["fare_family"]), _party_size(ctx, res),
                            fee_waived=airline_cancelled or _in_free_window(res, at))
    payment = _pay(ctx, res, source, fee + diff, "change", at)
    released = _swap(ctx, res, segment, new, rule)
    return {"reservation": ledger.reservation_view(ctx, res["pnr"], at),
            "change_fee_cents": fee, "fare_difference_cents": diff,
            "charged_cents": fee + diff, "payment": payment, "seats_released": released}


def _party_size(ctx, res: dict[str, Any]) -> int:
    return ctx.scalar("SELECT COUNT(*) FROM reservation_passengers WHERE pnr = ?", (res["pnr"],))


def _replacement(ctx, res, segment, old, new_flight_id: str, at: str) -> dict[str, Any]:
    new = load_flight(ctx, new_flight_id)
    if new["id"] == old["id"]:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "the new flight is the current flight")
    if (new["origin"], new["destination"]) != (old["origin"], old["destination"]):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{new['id']} flies {new['origin']}-"
                        f"{new['destination']}, not {old['origin']}-{old['destination']}; a "
                        "change keeps the route", new_flight_id=new["id"])
    require_bookable(new, at)
    require_cabin(ctx, new, res["cabin"])
    neighbours = {sg["seq"]: load_flight(ctx, sg["flight_id"]) for sg in ctx.all(
        "SELECT seq, flight_id FROM segments WHERE pnr = ? AND status = 'active'",
        (res["pnr"],))}
    if segment["seq"] - 1 in neighbours:
        require_connects(neighbours[segment["seq"] - 1], new)
    if segment["seq"] + 1 in neighbours:
        require_connects(new, neighbours[segment["seq"] + 1])
    pax = [r["passenger_id"] for r in ctx.all(
        "SELECT passenger_id FROM reservation_passengers WHERE pnr = ?", (res["pnr"],))]
    require_room(ctx, new, res["cabin"], pax, at)
    return new


def _swap(ctx, res, segment, new, rule: FareRule) -> list[str]:
    released = [r["seat"] for r in ctx.all(
        "SELECT seat FROM seat_assignments WHERE flight_id = ? AND pnr = ? ORDER BY seat",
        (segment["flight_id"], res["pnr"]))]
    ctx.db.execute("DELETE FROM seat_assignments WHERE flight_id = ? AND pnr = ?",
                   (segment["flight_id"], res["pnr"]))
    ctx.update("segments", segment["id"], {"status": "exchanged"})
    ctx.insert("segments", {"id": ctx.ids.new("seg"), "pnr": res["pnr"], "seq": segment["seq"],
                            "flight_id": new["id"], "status": "active",
                            "fare_cents": price(new, rule.cabin, rule.fare_family)})
    total = ctx.scalar("SELECT SUM(fare_cents) FROM segments WHERE pnr = ? AND "
                       "status = 'active'", (res["pnr"],)) * _party_size(ctx, res)
    ctx.update("reservations", res["pnr"], {"fare_total_cents": total}, column="pnr")
    return released


@tools.tool(
    description="Cancel a reservation and refund it by the fare rules: a hold, a cancellation "
                "within 24 hours of booking, or a trip with an airline-cancelled flight is "
                "refunded in full; otherwise flexible fares in full, standard fares minus the "
                "cancellation fee per passenger, basic economy nothing. Bag fees are always "
                "refunded. Refunds go back to the original payments. Not possible once any "
                "flight of the reservation has departed.",
    destructive=True,
    input=s.obj({"pnr": PNR}),
    output=s.obj({"pnr": s.string(), "status": s.enum(["cancelled"]),
                  "refund_cents": CENTS, "refund_basis": s.string(),
                  "refunds": s.array(REFUND), "seats_released": s.integer(minimum=0)}))
def cancel_reservation(ctx, pnr):
    at = now(ctx)
    res = ledger.load_reservation(ctx, pnr)
    ledger.require_not_cancelled(res)
    flights = [flight for _, flight in ledger.segment_flights(ctx, res["pnr"])]
    for flight in flights:
        ledger.require_not_departed(flight, at, "cancel")
    quote = refund_quote(
        status=res["status"], rule=RULES[(res["cabin"], res["fare_family"])],
        within_free_window=_in_free_window(res, at),
        airline_cancelled=any(f["status"] == "cancelled" for f in flights),
        fare_paid=ledger.net_paid(ctx, res["pnr"], ("fare", "change")),
        bags_paid=ledger.net_paid(ctx, res["pnr"], ("baggage",)),
        passengers=_party_size(ctx, res))
    refunds = ledger.refund(ctx, res, quote.amount_cents, at) if quote.amount_cents else []
    seats = ctx.db.execute("DELETE FROM seat_assignments WHERE pnr = ?", (res["pnr"],)).rowcount
    ctx.update("reservations", res["pnr"], {"status": "cancelled", "cancelled_at": at},
               column="pnr")
    return {"pnr": res["pnr"], "status": "cancelled", "refund_cents": quote.amount_cents,
            "refund_basis": quote.basis, "refunds": refunds, "seats_released": seats}


@tools.tool(
    description="Add checked bags for one passenger of a ticketed reservation (for the whole "
                "trip). Bags within the allowance (fare family's included bags plus the loyalty "
                "tier's extra bags) are free; paid bags cost 35, 45, then 150 USD each. At most "
                "5 checked bags per passenger; not possible after the first flight departed.",
    input=s.obj({"pnr": PNR, "passenger_id": s.identifier(),
                 "bags": s.integer("Bags to add.", minimum=1, maximum=10),
                 "source": OPTIONAL_SOURCE}, required=["pnr", "passenger_id", "bags"]),
    output=s.obj({"pnr": s.string(), "passenger_id": s.string(),
                  "checked_bags": s.integer(minimum=0), "allowance": s.integer(minimum=0),
                  "fee_cents": CENTS, "payment": s.nullable(PAYMENT)}))
def add_baggage(ctx, pnr, passenger_id, bags, source=None):
    at = now(ctx)
    res = _ticketed(ctx, pnr, "add bags")
    traveller = _traveller(ctx, res, passenger_id)
    first = ledger.segment_flights(ctx, res["pnr"])[0][1]
    ledger.require_not_departed(first, at, "add bags")
    have = traveller["checked_bags"]
    if have + bags > MAX_BAGS:
        raise ToolError(ErrorCode.LIMIT_EXCEEDED, f"at most {MAX_BAGS} checked bags per "
                        f"passenger; {passenger_id} already has {have}",
                        checked_bags=have, limit=MAX_BAGS)
    allowance = bag_allowance(RULES[(res["cabin"], res["fare_family"])],
                              traveller["loyalty_tier"])
    paid_before = max(0, have - allowance)
    fee = paid_bag_fee(paid_before, max(0, have + bags - allowance) - paid_before)
    payment = _pay(ctx, res, source, fee, "baggage", at)
    ctx.db.execute("UPDATE reservation_passengers SET checked_bags = ? WHERE pnr = ? AND "
                   "passenger_id = ?", (have + bags, res["pnr"], passenger_id))
    return {"pnr": res["pnr"], "passenger_id": passenger_id, "checked_bags": have + bags,
            "allowance": allowance, "fee_cents": fee, "payment": payment}

