"""Output schemas shared by the airline tools. Exact, because outputs are validated at run time."""

from __future__ import annotations

from agentworld.servers import schema as s

from .network import CABINS

FAMILIES = ("basic", "standard", "flexible")
TIERS = ("none", "silver", "gold", "platinum")
CENTS = s.integer("US dollar cents.", minimum=0)
PNR = s.string("Six-character booking reference, e.g. 'Q7K2MX'.", max_length=6, min_length=6,
               pattern=r"^[A-Za-z0-9]{6}$")
SOURCE = s.string("How to pay: a card id ('card_...') or voucher id ('vch_...') of the "
                  "reservation's contact passenger, or 'points' to redeem the contact's loyalty "
                  "points (1 point = 1 cent).", max_length=64, min_length=1)

AIRPORT = s.obj({
    "iata": s.string(max_length=3), "icao": s.string(max_length=4), "name": s.string(),
    "city": s.string(), "country": s.string(max_length=2), "lat": s.number(), "lon": s.number(),
    "tz": s.string(), "routes_served": s.integer(minimum=0)})

FARE = s.obj({"fare_family": s.enum(FAMILIES), "price_cents": CENTS})
CABIN_OFFER = s.obj({
    "cabin": s.enum(CABINS), "seats_total": s.integer(minimum=0),
    "seats_available": s.integer(minimum=0), "fares": s.array(FARE, max_items=3)})

FLIGHT = s.obj({
    "flight_id": s.string(), "flight_number": s.string(), "service_date": s.string(),
    "origin": s.string(), "destination": s.string(),
    "scheduled_departure": s.string(), "scheduled_arrival": s.string(),
    "estimated_departure": s.string(), "duration_minutes": s.integer(minimum=1),
    "distance_km": s.integer(minimum=1), "aircraft_code": s.string(), "aircraft_name": s.string(),
    "status": s.enum(["on_time", "delayed", "cancelled"]),
    "delay_minutes": s.integer(minimum=0), "departed": s.boolean(), "bookable": s.boolean(),
    "cabins": s.array(CABIN_OFFER, max_items=3)})

SEAT = s.obj({"seat": s.string(), "cabin": s.enum(CABINS), "row": s.integer(minimum=1),
              "letter": s.string(max_length=1), "occupied": s.boolean()})

FARE_RULE = s.obj({
    "cabin": s.enum(CABINS), "fare_family": s.enum(FAMILIES), "changeable": s.boolean(),
    "change_fee_cents": CENTS, "refundable": s.boolean(), "cancel_fee_cents": CENTS,
    "checked_bags_included": s.integer(minimum=0), "price_pct": s.integer(minimum=1)})

PASSENGER = s.obj({
    "passenger_id": s.string(), "first_name": s.string(), "last_name": s.string(),
    "email": s.string(), "date_of_birth": s.string(), "loyalty_tier": s.enum(TIERS),
    "points_balance": s.integer(minimum=0), "member_since": s.string()})
CARD = s.obj({"card_id": s.string(), "brand": s.string(), "last4": s.string(),
              "exp_month": s.integer(), "exp_year": s.integer()})
VOUCHER = s.obj({
    "voucher_id": s.string(), "passenger_id": s.string(),
    "kind": s.enum(["travel_credit", "compensation"]), "amount_cents": CENTS,
    "balance_cents": CENTS, "issued_at": s.string(), "expires_on": s.string(),
    "flight_id": s.nullable(s.string()), "reason": s.string(max_length=500)})

RES_PASSENGER = s.obj({"passenger_id": s.string(), "first_name": s.string(),
                       "last_name": s.string(), "checked_bags": s.integer(minimum=0)})
SEGMENT = s.obj({
    "seq": s.integer(minimum=1), "flight_id": s.string(), "flight_number": s.string(),
    "origin": s.string(), "destination": s.string(), "scheduled_departure": s.string(),
    "scheduled_arrival": s.string(), "flight_status": s.string(), "departed": s.boolean(),
    "fare_cents": CENTS,
    "seats": s.array(s.obj({"passenger_id": s.string(), "seat": s.string()}), max_items=9)})
PAYMENT = s.obj({
    "payment_id": s.string(), "purpose": s.enum(["fare", "change", "baggage"]),
    "method": s.enum(["card", "voucher", "points"]), "card_id": s.nullable(s.string()),
    "voucher_id": s.nullable(s.string()), "amount_cents": CENTS, "created_at": s.string()})
REFUND = s.obj({"refund_id": s.string(), "payment_id": s.string(), "amount_cents": CENTS,
                "created_at": s.string()})
RESERVATION = s.obj({
    "pnr": s.string(), "status": s.enum(["held", "confirmed", "cancelled"]),
    "contact_passenger_id": s.string(), "cabin": s.enum(CABINS),
    "fare_family": s.enum(FAMILIES), "created_at": s.string(), "hold_expires_at": s.string(),
    "hold_expired": s.boolean(), "confirmed_at": s.nullable(s.string()),
    "cancelled_at": s.nullable(s.string()),
    "passengers": s.array(RES_PASSENGER, max_items=9),
    "segments": s.array(SEGMENT, max_items=4),
    "fare_total_cents": CENTS, "paid_cents": CENTS, "refunded_cents": CENTS,
    "balance_due_cents": CENTS,
    "payments": s.array(PAYMENT), "refunds": s.array(REFUND)})
RESERVATION_SUMMARY = s.obj({
    "pnr": s.string(), "status": s.enum(["held", "confirmed", "cancelled"]),
    "contact_passenger_id": s.string(), "cabin": s.enum(CABINS),
    "fare_family": s.enum(FAMILIES), "itinerary": s.string(), "first_departure": s.string(),
    "passenger_count": s.integer(minimum=1), "fare_total_cents": CENTS,
    "created_at": s.string()})


def paging_inputs() -> dict:
    """The optional ``limit`` and ``cursor`` every listing tool takes."""
    return {"limit": s.integer("Page size, 1-100 (default 20).", minimum=1, maximum=100),
            "cursor": s.string("next_cursor from the previous page.", max_length=20)}
