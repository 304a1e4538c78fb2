"""Customer tools: find and read passengers, list their trips, compensate disrupted flights."""

from __future__ import annotations

from datetime import timedelta

from agentworld.servers import ErrorCode, ToolError, not_found
from agentworld.servers import schema as s

from .pricing import COMPENSATION, DISRUPTION_DELAY_MINUTES, VOUCHER_VALID_DAYS
from .queries import load_flight, page, parse_time
from .shapes import CARD, PASSENGER, RESERVATION_SUMMARY, TIERS, VOUCHER, paging_inputs
from .toolset import now, tools

PASSENGER_ID = s.identifier("Passenger id, e.g. 'pax_1001'.")
PASSENGER_COLUMNS = ("id AS passenger_id, first_name, last_name, email, date_of_birth, "
                     "loyalty_tier, points_balance, member_since")
VOUCHER_COLUMNS = ("id AS voucher_id, passenger_id, kind, amount_cents, balance_cents, "
                   "issued_at, expires_on, flight_id, reason")


@tools.tool(
    description="Find loyalty members by name or email (substring, case-insensitive; a full "
                "name like 'Grace Okafor' also matches) and optionally by loyalty tier. Paged, "
                "ordered by last name, first name, id.",
    read_only=True,
    input=s.obj({"query": s.string("Name or email fragment.", max_length=120),
                 "loyalty_tier": s.enum(TIERS), **paging_inputs()}, required=[]),
    output=s.page_of(PASSENGER, "passengers"))
def find_passengers(ctx, query=None, loyalty_tier=None, limit=None, cursor=None):
    where, params = ["1 = 1"], []
    if query:
        like = f"%{query.strip()}%"
        where.append("(first_name || ' ' || last_name LIKE ? OR email LIKE ? OR id = ?)")
        params += [like, like, query.strip()]
    if loyalty_tier:
        where.append("loyalty_tier = ?")
        params.append(loyalty_tier)
    sql = (f"SELECT {PASSENGER_COLUMNS} FROM passengers WHERE {' AND '.join(where)} "
           "ORDER BY last_name, first_name, id")
    return page(ctx, sql, tuple(params), key="passengers", limit=limit, cursor=cursor)


@tools.tool(
    description="One passenger's profile: contact details, loyalty tier and points balance, "
                "saved payment cards and travel vouchers (with remaining balance and expiry).",
    read_only=True,
    input=s.obj({"passenger_id": PASSENGER_ID}),
    output=s.obj({"passenger": PASSENGER, "cards": s.array(CARD, max_items=20),
                  "vouchers": s.array(VOUCHER, max_items=100)}))
def get_passenger(ctx, passenger_id):
    passenger = ctx.one(f"SELECT {PASSENGER_COLUMNS} FROM passengers WHERE id = ?",
                        (passenger_id,))
    if passenger is None:
        raise not_found("passenger", passenger_id)
    cards = ctx.all("SELECT id AS card_id, brand, last4, exp_month, exp_year FROM payment_cards "
                    "WHERE passenger_id = ? ORDER BY id", (passenger_id,))
    vouchers = ctx.all(f"SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE passenger_id = ? "
                       "ORDER BY issued_at, id", (passenger_id,))
    return {"passenger": passenger, "cards": cards, "vouchers": vouchers}


RESERVATION_LIST_SQL = """
SELECT r.pnr, r.status, r.contact_passenger_id, r.cabin, r.fare_family, r.fare_total_cents,
       r.created_at,
       (SELECT COUNT(*) FROM reservation_passengers x WHERE x.pnr = r.pnr) AS passenger_count,
       (SELECT MIN(f.scheduled_departure) FROM segments sg JOIN flights f ON f.id = sg.flight_id
        WHERE sg.pnr = r.pnr AND sg.status = 'active') AS first_departure
FROM reservations r
WHERE (r.contact_passenger_id = ?
       OR EXISTS (SELECT 1 FROM reservation_passengers rp
                  WHERE rp.pnr = r.pnr AND rp.passenger_id = ?))
  AND (? IS NULL OR r.status = ?)
ORDER BY first_departure, r.pnr
"""


@tools.tool(
    description="Reservations a passenger made or travels on, with status, itinerary as "
                "airport codes (e.g. 'BOS-JFK-LHR'), first departure, party size and fare total. "
                "Optionally only one status. Paged, ordered by first departure.",
    read_only=True,
    input=s.obj({"passenger_id": PASSENGER_ID,
                 "status": s.enum(["held", "confirmed", "cancelled"]), **paging_inputs()},
                required=["passenger_id"]),
    output=s.page_of(RESERVATION_SUMMARY, "reservations"))
def list_reservations(ctx, passenger_id, status=None, limit=None, cursor=None):
    ctx.require("passengers", passenger_id, kind="passenger")
    return page(ctx, RESERVATION_LIST_SQL, (passenger_id, passenger_id, status, status),
                key="reservations", limit=limit, cursor=cursor,
                row_fn=lambda row: {**row, "itinerary": _itinerary(ctx, row["pnr"])})


def _itinerary(ctx, pnr: str) -> str:
    legs = ctx.all("SELECT rt.origin, rt.destination FROM segments sg "
                   "JOIN flights f ON f.id = sg.flight_id JOIN routes rt ON rt.id = f.route_id "
                   "WHERE sg.pnr = ? AND sg.status = 'active' ORDER BY sg.seq", (pnr,))
    return "-".join([legs[0]["origin"], *(leg["destination"] for leg in legs)])


@tools.tool(
    description="Issue a disruption-compensation voucher to a passenger ticketed on a flight "
                "that the airline cancelled or delayed by at least 3 hours. The amount is set "
                "by the policy (by disruption and cabin; see get_fare_rules), the voucher is "
                "valid for one year and pays for future bookings. Only once per passenger and "
                "flight.",
    destructive=False,
    input=s.obj({"passenger_id": PASSENGER_ID,
                 "flight_id": s.identifier("The disrupted flight, e.g. 'MW101-2026-02-25'.")}),
    output=s.obj({"voucher": VOUCHER}))
def issue_voucher(ctx, passenger_id, flight_id):
    ctx.require("passengers", passenger_id, kind="passenger")
    flight = load_flight(ctx, flight_id)
    kind = _disruption(flight)
    cabin = ctx.scalar(
        "SELECT r.cabin FROM reservations r JOIN segments sg ON sg.pnr = r.pnr "
        "JOIN reservation_passengers rp ON rp.pnr = r.pnr WHERE sg.flight_id = ? "
        "AND sg.status = 'active' AND r.status = 'confirmed' AND rp.passenger_id = ?",
        (flight["id"], passenger_id))
    if cabin is None:
        raise ToolError(ErrorCode.PRECONDITION_FAILED, f"passenger {passenger_id} holds no "
                        f"ticket on flight {flight['id']}", passenger_id=passenger_id)
    if ctx.scalar("SELECT id FROM vouchers WHERE passenger_id = ? AND flight_id = ?",
                  (passenger_id, flight["id"])):
        raise ToolError(ErrorCode.CONFLICT, f"passenger {passenger_id} was already compensated "
                        f"for flight {flight['id']}", passenger_id=passenger_id)
    issued = now(ctx)
    voucher = {"id": ctx.ids.new("vch"), "passenger_id": passenger_id, "kind": "compensation",
               "amount_cents": COMPENSATION[kind][cabin],
               "balance_cents": COMPENSATION[kind][cabin], "issued_at": issued,
               "expires_on": (parse_time(issued) + timedelta(days=VOUCHER_VALID_DAYS))
               .date().isoformat(),
               "flight_id": flight["id"],
               "reason": f"Compensation for {kind} flight {flight['id']}"}
    ctx.insert("vouchers", voucher)
    return {"voucher": {"voucher_id": voucher.pop("id"), **voucher}}


def _disruption(flight: dict) -> str:
    if flight["status"] == "cancelled":
        return "cancelled"
    if flight["delay_minutes"] >= DISRUPTION_DELAY_MINUTES:
        return "delayed"
    raise ToolError(ErrorCode.PRECONDITION_FAILED,
                    f"flight {flight['id']} was not disrupted: compensation needs a cancellation "
                    f"or a delay of at least {DISRUPTION_DELAY_MINUTES} minutes",
                    flight_id=flight["id"], status=flight["status"],
                    delay_minutes=flight["delay_minutes"])
