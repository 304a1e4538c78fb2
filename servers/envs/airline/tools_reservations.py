"""Booking tools: hold seats on a new reservation, pay for it, ticket it, read it back."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError
from agentworld.servers import schema as s

from . import ledger
from .network import CABINS
from .pricing import (
    BOOKING_CUTOFF_MINUTES,
    HOLD_HOURS,
    MAX_PASSENGERS,
    MIN_CONNECTION_MINUTES,
    RULES,
)
from .queries import (
    cabin_layouts,
    estimated_departure,
    load_flight,
    price,
    require_bookable,
    seats_available,
    shift,
)
from .shapes import CENTS, FAMILIES, PAYMENT, PNR, RESERVATION, SOURCE
from .toolset import now, tools

PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
# Passengers already on a flight through a ticket or a live hold.
ON_FLIGHT_SQL = """
SELECT rp.passenger_id, r.pnr FROM segments sg
JOIN reservations r ON r.pnr = sg.pnr JOIN reservation_passengers rp ON rp.pnr = r.pnr
WHERE sg.flight_id = ? AND sg.status = 'active'
  AND (r.status = 'confirmed' OR (r.status = 'held' AND r.hold_expires_at > ?))
"""


def _new_pnr(ctx) -> str:
    while True:
        number = int(ctx.ids.new("pnr").split("_")[1], 16)
        pnr = ""
        for _ in range(6):
            number, digit = divmod(number, len(PNR_ALPHABET))
            pnr += PNR_ALPHABET[digit]
        if ctx.scalar("SELECT 1 FROM reservations WHERE pnr = ?", (pnr,)) is None:
            return pnr


def require_cabin(ctx, flight: dict[str, Any], cabin: str) -> None:
    if cabin not in cabin_layouts(ctx, flight["aircraft_code"]):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"flight {flight['id']} "
                        f"({flight['aircraft_name']}) has no {cabin} cabin",
                        flight_id=flight["id"], cabin=cabin)


def require_connects(before: dict[str, Any], after: dict[str, Any]) -> None:
    """``after`` must leave from where ``before`` lands, at least the minimum connection later."""
    if after["origin"] != before["destination"]:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"flight {after['id']} leaves from "
                        f"{after['origin']}, but {before['id']} arrives at "
                        f"{before['destination']}")
    landing = shift(before["scheduled_arrival"], minutes=before["delay_minutes"])
    if estimated_departure(after) < shift(landing, minutes=MIN_CONNECTION_MINUTES):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"flight {after['id']} departs less than "
                        f"{MIN_CONNECTION_MINUTES} minutes after {before['id']} lands",
                        arrival=landing, departure=estimated_departure(after))


def require_room(ctx, flight: dict[str, Any], cabin: str, passenger_ids: list[str],
                 at: str) -> None:
    """No passenger may be on the flight twice, and the cabin may not be oversold."""
    already = [r for r in ctx.all(ON_FLIGHT_SQL, (flight["id"], at))
               if r["passenger_id"] in passenger_ids]
    if already:
        raise ToolError(ErrorCode.CONFLICT, f"passenger {already[0]['passenger_id']} is already "
                        f"booked on flight {flight['id']} in reservation {already[0]['pnr']}",
                        passenger_id=already[0]["passenger_id"], pnr=already[0]["pnr"])
    left = seats_available(ctx, flight, cabin, at)
    if left < len(passenger_ids):
        raise ToolError(ErrorCode.CONFLICT, f"the {cabin} cabin of flight {flight['id']} has "
                        f"{left} seats left, {len(passenger_ids)} needed",
                        flight_id=flight["id"], seats_available=left)


def _check_party(ctx, passenger_ids: list[str], contact: str) -> None:
    if len(passenger_ids) > MAX_PASSENGERS:
        raise ToolError(ErrorCode.LIMIT_EXCEEDED, f"a reservation holds at most "
                        f"{MAX_PASSENGERS} passengers; split the party",
                        requested=len(passenger_ids), limit=MAX_PASSENGERS)
    if len(set(passenger_ids)) != len(passenger_ids):
        raise ToolError(ErrorCode.VALIDATION_ERROR, "a passenger is listed twice")
    for pid in [*passenger_ids, contact]:
        ctx.require("passengers", pid, kind="passenger")


def _check_itinerary(ctx, flight_ids: list[str], cabin: str, at: str) -> list[dict]:
    if len(set(flight_ids)) != len(flight_ids):
        raise ToolError(ErrorCode.VALIDATION_ERROR, "a flight is listed twice")
    flights = [load_flight(ctx, fid) for fid in flight_ids]
    for before, after in zip(flights, flights[1:], strict=False):
        require_connects(before, after)
    for flight in flights:
        require_bookable(flight, at)
        require_cabin(ctx, flight, cabin)
    return flights


@tools.tool(
    description="Create a reservation on HOLD for 1-9 passengers (loyalty member ids) on 1-4 "
                "flights in travel order (connections need 60+ minutes; a round trip is the "
                "outbound and return flights in order), all in one cabin and fare family "
                "('basic' exists only in economy). Seats are held until hold_expires_at (24 "
                "hours, never later than 2 hours before departure); pay the whole "
                "fare_total_cents with add_payment, then confirm_reservation to ticket. The "
                "contact passenger (default: the first passenger) pays and is contacted.",
    input=s.obj({
        "passenger_ids": s.array(s.identifier(), "Travellers, in order.", min_items=1,
                                 max_items=20),
        "flight_ids": s.array(s.identifier(), "Flights in travel order.", min_items=1,
                              max_items=4),
        "cabin": s.enum(CABINS), "fare_family": s.enum(FAMILIES),
        "contact_passenger_id": s.identifier("Who pays; defaults to the first passenger.")},
        required=["passenger_ids", "flight_ids", "cabin", "fare_family"]),
    output=s.obj({"reservation": RESERVATION}))
def create_reservation(ctx, passenger_ids, flight_ids, cabin, fare_family,
                       contact_passenger_id=None):
    at = now(ctx)
    contact = contact_passenger_id or passenger_ids[0]
    _check_party(ctx, passenger_ids, contact)
    if (cabin, fare_family) not in RULES:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"no {fare_family} fare in {cabin}; basic "
                        "fares are sold in economy only", cabin=cabin, fare_family=fare_family)
    flights = _check_itinerary(ctx, flight_ids, cabin, at)
    for flight in flights:
        require_room(ctx, flight, cabin, passenger_ids, at)
    fares = [price(f, cabin, fare_family) for f in flights]
    cutoff = shift(estimated_departure(flights[0]), minutes=-BOOKING_CUTOFF_MINUTES)
    pnr = _new_pnr(ctx)
    ctx.insert("reservations", {
        "pnr": pnr, "contact_passenger_id": contact, "status": "held", "cabin": cabin,
        "fare_family": fare_family, "created_at": at,
        "hold_expires_at": min(shift(at, hours=HOLD_HOURS), cutoff), "confirmed_at": None,
        "cancelled_at": None, "fare_total_cents": sum(fares) * len(passenger_ids)})
    for position, pid in enumerate(passenger_ids, start=1):
        ctx.insert("reservation_passengers", {"pnr": pnr, "passenger_id": pid,
                                              "position": position, "checked_bags": 0})
    for seq, (flight, fare) in enumerate(zip(flights, fares, strict=True), start=1):
        ctx.insert("segments", {"id": ctx.ids.new("seg"), "pnr": pnr, "seq": seq,
                                "flight_id": flight["id"], "fare_cents": fare,
                                "status": "active"})
    return {"reservation": ledger.reservation_view(ctx, pnr, at)}


@tools.tool(
    description="Pay toward a HELD reservation's fare from the contact passenger's card, "
                "voucher or loyalty points. Partial payments add up, but together they may not "
                "exceed fare_total_cents; the hold must not have expired.",
    input=s.obj({"pnr": PNR, "source": SOURCE,
                 "amount_cents": s.integer("Amount to pay in USD cents.", minimum=1)}),
    output=s.obj({"payment": PAYMENT, "balance_due_cents": CENTS}))
def add_payment(ctx, pnr, source, amount_cents):
    at = now(ctx)
    res = ledger.load_reservation(ctx, pnr)
    ledger.require_not_cancelled(res)
    ledger.require_live_hold(res, at, "take a payment")
    due = res["fare_total_cents"] - ledger.net_paid(ctx, res["pnr"], ("fare",))
    if amount_cents > due:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"payment of {amount_cents} cents exceeds "
                        f"the {due} cents still due on {res['pnr']}", balance_due_cents=due)
    payment = ledger.charge(ctx, res, source, amount_cents, "fare", at)
    return {"payment": payment, "balance_due_cents": due - amount_cents}


@tools.tool(
    description="Ticket a HELD reservation. Payments must add up to exactly fare_total_cents "
                "and the hold must not have expired; the reservation becomes confirmed.",
    input=s.obj({"pnr": PNR}),
    output=s.obj({"reservation": RESERVATION}))
def confirm_reservation(ctx, pnr):
    at = now(ctx)
    res = ledger.load_reservation(ctx, pnr)
    ledger.require_not_cancelled(res)
    ledger.require_live_hold(res, at, "confirm")
    paid = ledger.net_paid(ctx, res["pnr"], ("fare",))
    if paid != res["fare_total_cents"]:
        raise ToolError(ErrorCode.PRECONDITION_FAILED, f"{res['pnr']} is paid {paid} of "
                        f"{res['fare_total_cents']} cents; pay the balance before confirming",
                        paid_cents=paid, fare_total_cents=res["fare_total_cents"])
    ctx.update("reservations", res["pnr"], {"status": "confirmed", "confirmed_at": at},
               column="pnr")
    return {"reservation": ledger.reservation_view(ctx, res["pnr"], at)}


@tools.tool(
    description="A reservation by its six-character PNR: status and hold deadline, "
                "passengers with checked bags, flight segments with seats, fare total, payments "
                "and refunds.",
    read_only=True,
    input=s.obj({"pnr": PNR}),
    output=s.obj({"reservation": RESERVATION}))
def get_reservation(ctx, pnr):
    return {"reservation": ledger.reservation_view(ctx, pnr, now(ctx))}

