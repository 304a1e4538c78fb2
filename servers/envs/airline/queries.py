"""Shared reads of the airline tools: paging, time, flights with their live seat inventory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from agentworld.servers import ErrorCode, ToolError, not_found

from .network import CABINS
from .pricing import BOOKING_CUTOFF_MINUTES, RULES, fare_cents

DEFAULT_LIMIT = 20
FLIGHT_SQL = """
SELECT f.*, r.origin, r.destination, r.distance_km, r.block_minutes, a.name AS aircraft_name
FROM flights f JOIN routes r ON r.id = f.route_id JOIN aircraft_types a ON a.code = f.aircraft_code
"""
# Seats count as sold for ticketed reservations and for holds that have not yet expired.
SOLD_SQL = """
SELECT COUNT(*) FROM segments sg
JOIN reservations r ON r.pnr = sg.pnr
JOIN reservation_passengers rp ON rp.pnr = r.pnr
WHERE sg.flight_id = ? AND sg.status = 'active' AND r.cabin = ?
  AND (r.status = 'confirmed' OR (r.status = 'held' AND r.hold_expires_at > ?))
"""


# ---- time ---------------------------------------------------------------------------------

def parse_time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def shift(stamp_: str, *, minutes: int = 0, hours: int = 0) -> str:
    return stamp(parse_time(stamp_) + timedelta(minutes=minutes, hours=hours))


# ---- paging -------------------------------------------------------------------------------

def offset_of(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        "cursor is malformed: pass next_cursor from a previous page unchanged",
                        cursor=cursor)
    return int(cursor)


def page(ctx, sql: str, params: tuple, *, key: str, limit: int | None, cursor: str | None,
         row_fn=dict) -> dict[str, Any]:
    """One page of ``sql`` (which must carry its own ORDER BY) as {key, next_cursor, total}."""
    limit = limit or DEFAULT_LIMIT
    start = offset_of(cursor)
    total = ctx.scalar(f"SELECT COUNT(*) FROM ({sql})", params)
    rows = ctx.all(f"{sql} LIMIT ? OFFSET ?", (*params, limit, start))
    following = start + limit
    return {key: [row_fn(r) for r in rows],
            "next_cursor": str(following) if following < total else None, "total": total}


# ---- flights ------------------------------------------------------------------------------

def load_flight(ctx, flight_id: str) -> dict[str, Any]:
    row = ctx.one(f"{FLIGHT_SQL} WHERE f.id = ?", (flight_id,))
    if row is None:
        raise not_found("flight", flight_id)
    return row


def estimated_departure(flight: dict[str, Any]) -> str:
    return shift(flight["scheduled_departure"], minutes=flight["delay_minutes"])


def has_departed(flight: dict[str, Any], now: str) -> bool:
    return flight["status"] != "cancelled" and estimated_departure(flight) <= now


def is_bookable(flight: dict[str, Any], now: str) -> bool:
    """Sales close 2 hours before the estimated departure and never open on cancelled flights."""
    cutoff = shift(estimated_departure(flight), minutes=-BOOKING_CUTOFF_MINUTES)
    return flight["status"] != "cancelled" and now < cutoff


def require_bookable(flight: dict[str, Any], now: str) -> None:
    if flight["status"] == "cancelled":
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"flight {flight['id']} is cancelled and cannot be sold",
                        flight_id=flight["id"])
    if not is_bookable(flight, now):
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"sales for flight {flight['id']} closed {BOOKING_CUTOFF_MINUTES} minutes "
                        "before departure", flight_id=flight["id"],
                        estimated_departure=estimated_departure(flight))


def cabin_layouts(ctx, aircraft_code: str) -> dict[str, dict[str, Any]]:
    rows = ctx.all("SELECT * FROM aircraft_cabins WHERE aircraft_code = ?", (aircraft_code,))
    return {r["cabin"]: r for r in rows}


def capacity(layout: dict[str, Any]) -> int:
    return (layout["last_row"] - layout["first_row"] + 1) * len(layout["letters"])


def seats_sold(ctx, flight_id: str, cabin: str, now: str) -> int:
    return ctx.scalar(SOLD_SQL, (flight_id, cabin, now))


def seats_available(ctx, flight: dict[str, Any], cabin: str, now: str) -> int:
    layout = cabin_layouts(ctx, flight["aircraft_code"]).get(cabin)
    if layout is None:
        return 0
    return max(0, capacity(layout) - seats_sold(ctx, flight["id"], cabin, now))


def price(flight: dict[str, Any], cabin: str, fare_family: str) -> int:
    return fare_cents(flight["distance_km"], cabin, fare_family, flight["demand_pct"])


def cabin_offers(ctx, flight: dict[str, Any], now: str,
                 only: str | None = None) -> list[dict[str, Any]]:
    offers = []
    layouts = cabin_layouts(ctx, flight["aircraft_code"])
    for cabin in CABINS:
        if cabin not in layouts or (only and cabin != only):
            continue
        total = capacity(layouts[cabin])
        sold = seats_sold(ctx, flight["id"], cabin, now)
        fares = [{"fare_family": fam, "price_cents": price(flight, cabin, fam)}
                 for (cab, fam) in RULES if cab == cabin]
        offers.append({"cabin": cabin, "seats_total": total,
                       "seats_available": max(0, total - sold), "fares": fares})
    return offers


def flight_view(ctx, flight: dict[str, Any], now: str, cabin: str | None = None) -> dict:
    return {
        "flight_id": flight["id"], "flight_number": flight["flight_number"],
        "service_date": flight["service_date"], "origin": flight["origin"],
        "destination": flight["destination"],
        "scheduled_departure": flight["scheduled_departure"],
        "scheduled_arrival": flight["scheduled_arrival"],
        "estimated_departure": estimated_departure(flight),
        "duration_minutes": flight["block_minutes"], "distance_km": flight["distance_km"],
        "aircraft_code": flight["aircraft_code"], "aircraft_name": flight["aircraft_name"],
        "status": flight["status"], "delay_minutes": flight["delay_minutes"],
        "departed": has_departed(flight, now), "bookable": is_bookable(flight, now),
        "cabins": cabin_offers(ctx, flight, now, cabin)}
