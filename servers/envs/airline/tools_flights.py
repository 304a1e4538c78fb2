"""Read-only tools over the network and inventory: airports, flights, seat maps, fare rules."""

from __future__ import annotations

from agentworld.servers import ErrorCode, ToolError
from agentworld.servers import schema as s

from . import pricing
from .network import CABINS
from .queries import FLIGHT_SQL, cabin_layouts, flight_view, load_flight, page
from .shapes import AIRPORT, FAMILIES, FARE_RULE, FLIGHT, SEAT, paging_inputs
from .toolset import airport_code, now, page_list, tools

IATA = s.string("Three-letter IATA airport code, e.g. 'JFK'.", max_length=3, min_length=3,
                pattern=r"^[A-Za-z]{3}$")
FLIGHT_ID = s.identifier("Flight id: flight number and service date, e.g. 'MW101-2026-03-04'.")


@tools.tool(
    description="Search the airport directory by IATA code, airport name or city (substring, "
                "case-insensitive), optionally within one country (ISO 3166 alpha-2 code). "
                "routes_served says how many Meridian Airways routes leave the airport; 0 means "
                "the airline does not fly there. Paged, ordered by IATA code.",
    read_only=True,
    input=s.obj({"query": s.string("Code, name or city fragment.", max_length=80),
                 "country": s.string("ISO country code, e.g. 'US'.", max_length=2, min_length=2),
                 "served_only": s.boolean("Only airports Meridian Airways flies from."),
                 **paging_inputs()}, required=[]),
    output=s.page_of(AIRPORT, "airports"))
def search_airports(ctx, query=None, country=None, served_only=False, limit=None, cursor=None):
    where, params = ["1 = 1"], []
    if query:
        like = f"%{query}%"
        where.append("(a.iata = ? COLLATE NOCASE OR a.name LIKE ? OR a.city LIKE ?)")
        params += [query, like, like]
    if country:
        where.append("a.country = ?")
        params.append(country.upper())
    if served_only:
        where.append("EXISTS (SELECT 1 FROM routes r WHERE r.origin = a.iata)")
    sql = ("SELECT a.*, (SELECT COUNT(*) FROM routes r WHERE r.origin = a.iata) AS routes_served "
           f"FROM airports a WHERE {' AND '.join(where)} ORDER BY a.iata")
    return page(ctx, sql, tuple(params), key="airports", limit=limit, cursor=cursor)


@tools.tool(
    description="Search nonstop Meridian Airways flights from an origin airport, optionally to a "
                "destination and on one UTC service date. Each flight lists, per cabin, the "
                "seats still for sale and the current fare of each fare family in USD cents "
                "(per passenger, one way). Give `cabin` to see only that cabin and "
                "`passengers` to keep only flights with that many seats left in it. "
                "`bookable` is false for cancelled flights and within 2 hours of departure. "
                "For a connection, search each leg (connections need at least 60 minutes). "
                "Paged, ordered by departure time.",
    read_only=True,
    input=s.obj({"origin": IATA, "destination": IATA,
                 "date": s.date("Service date (UTC), YYYY-MM-DD."),
                 "cabin": s.enum(CABINS), "passengers": s.integer(
                     "Seats needed in `cabin` (requires cabin).", minimum=1, maximum=9),
                 **paging_inputs()}, required=["origin"]),
    output=s.page_of(FLIGHT, "flights"))
def search_flights(ctx, origin, destination=None, date=None, cabin=None, passengers=None,
                   limit=None, cursor=None):
    if passengers and not cabin:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "`passengers` needs `cabin` to count seats")
    where, params = ["r.origin = ?"], [airport_code(ctx, origin, "origin")]
    if destination:
        where.append("r.destination = ?")
        params.append(airport_code(ctx, destination, "destination"))
    if date:
        where.append("f.service_date = ?")
        params.append(date)
    rows = ctx.all(f"{FLIGHT_SQL} WHERE {' AND '.join(where)} "
                   "ORDER BY f.scheduled_departure, f.id", tuple(params))
    at = now(ctx)
    views = [flight_view(ctx, row, at, cabin) for row in rows]
    if cabin:
        views = [v for v in views if v["cabins"]
                 and v["cabins"][0]["seats_available"] >= (passengers or 0)]
    return page_list(views, key="flights", limit=limit, cursor=cursor)


@tools.tool(
    description="One flight in full: route, UTC schedule and estimated departure (schedule plus "
                "delay), duration, aircraft, operational status, whether it has departed, and "
                "for every cabin the seats total and still for sale and the fare of each fare "
                "family in USD cents per passenger.",
    read_only=True,
    input=s.obj({"flight_id": FLIGHT_ID}),
    output=s.obj({"flight": FLIGHT}))
def get_flight(ctx, flight_id):
    return {"flight": flight_view(ctx, load_flight(ctx, flight_id), now(ctx))}


@tools.tool(
    description="The seat map of a flight: every seat (row number plus letter) of every cabin, "
                "or of one cabin, and whether it is already assigned. A passenger can only be "
                "seated in the cabin the reservation was booked in.",
    read_only=True,
    input=s.obj({"flight_id": FLIGHT_ID, "cabin": s.enum(CABINS)}, required=["flight_id"]),
    output=s.obj({"flight_id": s.string(), "aircraft_code": s.string(),
                  "seats": s.array(SEAT, max_items=400),
                  "available_count": s.integer(minimum=0)}))
def get_seat_map(ctx, flight_id, cabin=None):
    flight = load_flight(ctx, flight_id)
    layouts = cabin_layouts(ctx, flight["aircraft_code"])
    if cabin and cabin not in layouts:
        raise ToolError(ErrorCode.NOT_FOUND, f"a {flight['aircraft_name']} has no {cabin} cabin",
                        kind="cabin", id=cabin)
    taken = {r["seat"] for r in ctx.all("SELECT seat FROM seat_assignments WHERE flight_id = ?",
                                        (flight["id"],))}
    seats = []
    for name in CABINS:
        layout = layouts.get(name)
        if layout is None or (cabin and name != cabin):
            continue
        for row in range(layout["first_row"], layout["last_row"] + 1):
            seats += [{"seat": f"{row}{letter}", "cabin": name, "row": row, "letter": letter,
                       "occupied": f"{row}{letter}" in taken} for letter in layout["letters"]]
    return {"flight_id": flight["id"], "aircraft_code": flight["aircraft_code"], "seats": seats,
            "available_count": sum(1 for seat in seats if not seat["occupied"])}


POLICY = s.obj({
    "hold_hours": s.integer(), "free_cancellation_hours": s.integer(),
    "booking_cutoff_minutes": s.integer(), "min_connection_minutes": s.integer(),
    "max_passengers_per_reservation": s.integer(), "max_checked_bags_per_passenger": s.integer(),
    "paid_bag_fees_cents": s.array(s.integer(), max_items=5),
    "tier_extra_bags": s.obj({t: s.integer() for t in pricing.TIER_EXTRA_BAGS}),
    "disruption_delay_minutes": s.integer(),
    "compensation_cents": s.obj({kind: s.obj({c: s.integer() for c in CABINS})
                                 for kind in pricing.COMPENSATION}),
    "summary": s.string(max_length=2000)})
POLICY_SUMMARY = (
    "Holds last 24 hours (never past 2 hours before departure) and must be paid in full, "
    "exactly, before ticketing. Any reservation cancelled within 24 hours of booking is refunded "
    "in full, as is one that includes a flight the airline cancelled. Otherwise: basic economy "
    "cannot be changed and is not refunded; standard fares pay the change fee plus any fare "
    "increase per passenger and refund what was paid minus the cancellation fee per passenger; "
    "flexible fares change and refund free. A cheaper new fare is not refunded. Change fees are "
    "waived within the 24-hour window and when the original flight was cancelled by the "
    "airline. Nothing can be changed or cancelled once its flight has departed. Bag fees are "
    "refunded on cancellation. Refunds go back to the original forms of payment, latest first.")


@tools.tool(
    description="Fare rules per cabin and fare family (change and cancellation fees per "
                "passenger, refundability, included checked bags, price level in percent of the "
                "standard fare) plus the airline's booking, change, refund, baggage and "
                "disruption-compensation policy.",
    read_only=True,
    input=s.obj({"cabin": s.enum(CABINS), "fare_family": s.enum(FAMILIES)}, required=[]),
    output=s.obj({"rules": s.array(FARE_RULE, max_items=10), "policy": POLICY}))
def get_fare_rules(ctx, cabin=None, fare_family=None):
    rows = ctx.all("SELECT * FROM fare_rules WHERE (? IS NULL OR cabin = ?) AND "
                   "(? IS NULL OR fare_family = ?) ORDER BY price_pct",
                   (cabin, cabin, fare_family, fare_family))
    rules = [{**r, "changeable": bool(r["changeable"]), "refundable": bool(r["refundable"])}
             for r in sorted(rows, key=lambda r: (CABINS.index(r["cabin"]), r["price_pct"]))]
    policy = {
        "hold_hours": pricing.HOLD_HOURS, "free_cancellation_hours": pricing.FREE_CANCEL_HOURS,
        "booking_cutoff_minutes": pricing.BOOKING_CUTOFF_MINUTES,
        "min_connection_minutes": pricing.MIN_CONNECTION_MINUTES,
        "max_passengers_per_reservation": pricing.MAX_PASSENGERS,
        "max_checked_bags_per_passenger": pricing.MAX_BAGS,
        "paid_bag_fees_cents": list(pricing.PAID_BAG_FEES),
        "tier_extra_bags": dict(pricing.TIER_EXTRA_BAGS),
        "disruption_delay_minutes": pricing.DISRUPTION_DELAY_MINUTES,
        "compensation_cents": {k: dict(v) for k, v in pricing.COMPENSATION.items()},
        "summary": POLICY_SUMMARY}
    return {"rules": rules, "policy": policy}
