"""Airline environment: read tools, paging and search, booking flow, and seed consistency."""

from __future__ import annotations

import pytest

from agentworld.servers import Session
from agentworld.servers.envs.airline.network import great_circle_km
from agentworld.servers.envs.airline.pricing import COMPENSATION, fare_cents
from agentworld.servers.envs.airline.queries import parse_time
from tests.servers.envs.rule_harness import ok
from tests.servers.envs.test_airline import (
    BACK,
    COMPANION,
    ENV,
    FULL_CABINS_SQL,
    OUT,
    PAYER,
    PAYER_CARD,
    SOON,
    first,
    hold,
    reservation,
    rows,
    ticket,
)


@pytest.fixture
def session():
    s = Session(ENV, seed=11)
    yield s
    s.close()


def walk(session, tool, args, key, limit):
    """Follow next_cursor to the end; return every item and the reported total."""
    items, cursor, total = [], None, None
    while True:
        page = ok(session.call(tool, {**args, "limit": limit,
                                      **({"cursor": cursor} if cursor else {})}))
        items += page[key]
        total = page["total"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items, total


# ---- catalog: airports, flights, seats, fare rules --------------------------------------

def test_airport_paging_walks_every_row_once(session):
    airports, total = walk(session, "search_airports", {"country": "US"}, "airports", 7)
    codes = [a["iata"] for a in airports]
    assert total == len(codes) == len(set(codes)) == 23
    assert codes == sorted(codes)


def test_airport_search_by_city_and_served_flag(session):
    found = ok(session.call("search_airports", {"query": "tokyo"}))["airports"]
    assert {a["iata"]: a["routes_served"] for a in found} == {"HND": 0, "NRT": 1}
    served, total = walk(session, "search_airports", {"served_only": True}, "airports", 100)
    assert total == 17 and all(a["routes_served"] > 0 for a in served)


def test_malformed_cursor_is_rejected(session):
    result = session.call("search_airports", {"cursor": "page-two"})
    assert result.code == "VALIDATION_ERROR"


def test_flight_search_pages_a_route_and_prices_match_the_fare_formula(session):
    flights, total = walk(session, "search_flights", {"origin": "jfk", "destination": "LHR"},
                          "flights", 6)
    assert total == len(flights) == 21  # daily for three weeks
    assert len({f["flight_id"] for f in flights}) == 21
    departures = [f["scheduled_departure"] for f in flights]
    assert departures == sorted(departures)
    flight = flights[10]
    demand = first(session, "SELECT demand_pct FROM flights WHERE id = ?",
                   (flight["flight_id"],))["demand_pct"]
    for offer in flight["cabins"]:
        for fare in offer["fares"]:
            assert fare["price_cents"] == fare_cents(flight["distance_km"], offer["cabin"],
                                                     fare["fare_family"], demand)


def test_flight_search_filters_by_cabin_seats_and_marks_past_flights(session):
    full = first(session, FULL_CABINS_SQL, (SOON, "2026-03-02T10:00:00Z"))
    flight = ok(session.call("get_flight", {"flight_id": full["flight_id"]}))["flight"]
    args = {"origin": flight["origin"], "destination": flight["destination"],
            "date": flight["service_date"], "cabin": full["cabin"]}
    listed = ok(session.call("search_flights", args))["flights"]
    assert [f["cabins"][0]["seats_available"] for f in listed] == [0]
    assert ok(session.call("search_flights", {**args, "passengers": 1}))["flights"] == []
    past = ok(session.call("search_flights", {"origin": "JFK", "destination": "LHR",
                                              "date": "2026-02-25"}))["flights"][0]
    assert past["departed"] and not past["bookable"]


def test_flight_duration_and_distance_follow_the_map(session):
    for route in rows(session, "SELECT r.*, o.lat AS olat, o.lon AS olon, d.lat AS dlat, "
                      "d.lon AS dlon FROM routes r JOIN airports o ON o.iata = r.origin "
                      "JOIN airports d ON d.iata = r.destination"):
        assert route["distance_km"] == great_circle_km(route["olat"], route["olon"],
                                                       route["dlat"], route["dlon"])
    for flight in rows(session, "SELECT f.*, r.block_minutes FROM flights f JOIN routes r "
                       "ON r.id = f.route_id"):
        minutes = (parse_time(flight["scheduled_arrival"])
                   - parse_time(flight["scheduled_departure"])).total_seconds() / 60
        assert minutes == flight["block_minutes"]
    jfk_lhr = first(session, "SELECT distance_km FROM routes WHERE id = 'JFK-LHR'")
    assert 5500 < jfk_lhr["distance_km"] < 5600


def test_seat_map_matches_capacity_and_assignments(session):
    flight = first(session, "SELECT flight_id FROM seat_assignments GROUP BY flight_id "
                   "ORDER BY COUNT(*) DESC")["flight_id"]
    seat_map = ok(session.call("get_seat_map", {"flight_id": flight}))
    occupied = {s["seat"] for s in seat_map["seats"] if s["occupied"]}
    assigned = {r["seat"] for r in rows(session, "SELECT seat FROM seat_assignments "
                                        "WHERE flight_id = ?", (flight,))}
    assert occupied == assigned
    offers = ok(session.call("get_flight", {"flight_id": flight}))["flight"]["cabins"]
    assert len(seat_map["seats"]) == sum(o["seats_total"] for o in offers)
    assert seat_map["available_count"] == len(seat_map["seats"]) - len(assigned)


def test_fare_rules_and_policy(session):
    rules = ok(session.call("get_fare_rules", {}))["rules"]
    assert len(rules) == 7
    basic = ok(session.call("get_fare_rules", {"fare_family": "basic"}))["rules"]
    assert basic == [{"cabin": "economy", "fare_family": "basic", "changeable": False,
                      "change_fee_cents": 0, "refundable": False, "cancel_fee_cents": 0,
                      "checked_bags_included": 0, "price_pct": 80}]


# ---- passengers ---------------------------------------------------------------------------

def test_passenger_paging_covers_all_members_once(session):
    people, total = walk(session, "find_passengers", {}, "passengers", 100)
    assert total == len(people) == 400
    assert len({p["passenger_id"] for p in people}) == 400


def test_find_passengers_by_full_name_and_tier(session):
    found = ok(session.call("find_passengers", {"query": "liam chen"}))["passengers"]
    assert [p["passenger_id"] for p in found] == [PAYER]
    gold = ok(session.call("find_passengers", {"loyalty_tier": "gold", "limit": 100}))
    assert gold["total"] > 20 and {p["loyalty_tier"] for p in gold["passengers"]} == {"gold"}


def test_get_passenger_lists_cards_and_vouchers(session):
    owner = first(session, "SELECT passenger_id FROM vouchers ORDER BY id")["passenger_id"]
    profile = ok(session.call("get_passenger", {"passenger_id": owner}))
    assert profile["vouchers"] and all(v["passenger_id"] == owner for v in profile["vouchers"])
    assert ok(session.call("get_passenger", {"passenger_id": PAYER}))["cards"][0]["card_id"] \
        == PAYER_CARD
    assert session.call("get_passenger", {"passenger_id": "pax_9999"}).code == "NOT_FOUND"


def test_list_reservations_pages_and_filters(session):
    busiest = first(session, "SELECT passenger_id, COUNT(*) AS n FROM reservation_passengers "
                    "GROUP BY passenger_id ORDER BY n DESC, passenger_id")
    trips, total = walk(session, "list_reservations", {"passenger_id": busiest["passenger_id"]},
                        "reservations", 2)
    assert total == len(trips) >= busiest["n"]
    assert len({t["pnr"] for t in trips}) == total
    cancelled = ok(session.call("list_reservations", {"passenger_id": busiest["passenger_id"],
                                                      "status": "cancelled"}))
    assert all(t["status"] == "cancelled" for t in cancelled["reservations"])


# ---- booking flow -------------------------------------------------------------------------

def _seats_left(session, flight_id, cabin="economy"):
    offers = ok(session.call("get_flight", {"flight_id": flight_id}))["flight"]["cabins"]
    return next(o["seats_available"] for o in offers if o["cabin"] == cabin)


def test_hold_takes_inventory_and_prices_the_itinerary(session):
    before = _seats_left(session, OUT)
    res = hold(session, pax=(PAYER, COMPANION), flights=(OUT, BACK))
    assert res["status"] == "held" and len(res["pnr"]) == 6
    assert _seats_left(session, OUT) == before - 2
    fares = [s["fare_cents"] for s in res["segments"]]
    assert res["fare_total_cents"] == sum(fares) * 2 == res["balance_due_cents"]
    assert [s["origin"] + s["destination"] for s in res["segments"]] == ["JFKLHR", "LHRJFK"]
    assert res["hold_expires_at"] == "2026-03-03" + res["created_at"][10:]
    listed = ok(session.call("list_reservations", {"passenger_id": COMPANION,
                                                   "status": "held"}))["reservations"]
    assert res["pnr"] in {r["pnr"] for r in listed}


def test_pay_with_points_and_card_then_confirm(session):
    res = hold(session)
    points = first(session, "SELECT points_balance FROM passengers WHERE id = ?",
                   (PAYER,))["points_balance"]
    paid = ok(session.call("add_payment", {"pnr": res["pnr"], "source": "points",
                                           "amount_cents": 20_000}))
    assert paid["balance_due_cents"] == res["fare_total_cents"] - 20_000
    assert first(session, "SELECT points_balance FROM passengers WHERE id = ?",
                 (PAYER,))["points_balance"] == points - 20_000
    ok(session.call("add_payment", {"pnr": res["pnr"], "source": PAYER_CARD,
                                    "amount_cents": paid["balance_due_cents"]}))
    done = ok(session.call("confirm_reservation", {"pnr": res["pnr"]}))["reservation"]
    assert done["status"] == "confirmed" and done["confirmed_at"] is not None
    assert done["paid_cents"] == done["fare_total_cents"] and done["balance_due_cents"] == 0
    assert [p["method"] for p in done["payments"]] == ["points", "card"]


def test_pay_with_voucher_reduces_its_balance(session):
    voucher = first(session, "SELECT * FROM vouchers WHERE expires_on > '2026-04-01' AND "
                    "balance_cents >= 5000 ORDER BY id")
    res = hold(session, pax=(voucher["passenger_id"],))
    ok(session.call("add_payment", {"pnr": res["pnr"], "source": voucher["id"],
                                    "amount_cents": 5000}))
    left = first(session, "SELECT balance_cents FROM vouchers WHERE id = ?", (voucher["id"],))
    assert left["balance_cents"] == voucher["balance_cents"] - 5000


def test_seat_assignment_and_move(session):
    res = ticket(session)
    first_pick = ok(session.call("assign_seat", {"pnr": res["pnr"], "flight_id": OUT,
                                                 "passenger_id": PAYER, "seat": "41c"}))
    assert first_pick["seat"] == "41C" and first_pick["previous_seat"] is None
    moved = ok(session.call("assign_seat", {"pnr": res["pnr"], "flight_id": OUT,
                                            "passenger_id": PAYER, "seat": "42D"}))
    assert moved["previous_seat"] == "41C"
    assert rows(session, "SELECT seat FROM seat_assignments WHERE flight_id = ? AND "
                "passenger_id = ?", (OUT, PAYER)) == [{"seat": "42D"}]
    segment = reservation(session, res["pnr"])["segments"][0]
    assert segment["seats"] == [{"passenger_id": PAYER, "seat": "42D"}]


def test_expired_holds_free_their_seats(session):
    expired = first(session, "SELECT r.pnr, sg.flight_id, r.cabin FROM reservations r "
                    "JOIN segments sg ON sg.pnr = r.pnr WHERE r.status = 'held' AND "
                    "r.hold_expires_at < '2026-03-02T09:00:00Z' ORDER BY r.pnr")
    view = reservation(session, expired["pnr"])
    assert view["hold_expired"] and view["status"] == "held"
    sold = first(session, "SELECT COUNT(*) AS n FROM segments sg JOIN reservations r ON "
                 "r.pnr = sg.pnr JOIN reservation_passengers rp ON rp.pnr = r.pnr WHERE "
                 "sg.flight_id = ? AND r.cabin = ? AND sg.status = 'active' AND "
                 "r.status = 'confirmed'", (expired["flight_id"], expired["cabin"]))["n"]
    capacity = ok(session.call("get_seat_map", {"flight_id": expired["flight_id"],
                                                "cabin": expired["cabin"]}))["seats"]
    live_holds = first(session, "SELECT COUNT(*) AS n FROM segments sg JOIN reservations r ON "
                       "r.pnr = sg.pnr JOIN reservation_passengers rp ON rp.pnr = r.pnr WHERE "
                       "sg.flight_id = ? AND r.cabin = ? AND r.status = 'held' AND "
                       "r.hold_expires_at > ?", (expired["flight_id"], expired["cabin"],
                                                 "2026-03-02T09:00:30Z"))["n"]
    assert _seats_left(session, expired["flight_id"], expired["cabin"]) == \
        len(capacity) - sold - live_holds


def test_issue_voucher_creates_a_compensation_credit(session):
    owed = first(session, "SELECT rp.passenger_id, sg.flight_id, r.cabin, f.status FROM "
                 "reservations r JOIN segments sg ON sg.pnr = r.pnr AND sg.status = 'active' "
                 "JOIN reservation_passengers rp ON rp.pnr = r.pnr JOIN flights f ON "
                 "f.id = sg.flight_id WHERE r.status = 'confirmed' AND (f.status = 'cancelled' "
                 "OR f.delay_minutes >= 180) AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE "
                 "v.passenger_id = rp.passenger_id AND v.flight_id = f.id) ORDER BY 1, 2")
    voucher = ok(session.call("issue_voucher", {"passenger_id": owed["passenger_id"],
                                                "flight_id": owed["flight_id"]}))["voucher"]
    expected = COMPENSATION[owed["status"]][owed["cabin"]]
    assert voucher["amount_cents"] == voucher["balance_cents"] == expected
    assert voucher["expires_on"] == "2027-03-02" and voucher["kind"] == "compensation"
    profile = ok(session.call("get_passenger", {"passenger_id": owed["passenger_id"]}))
    assert voucher["voucher_id"] in {v["voucher_id"] for v in profile["vouchers"]}


# ---- the seed obeys the rules the tools enforce ------------------------------------------

def test_seed_is_consistent(session):
    assert rows(session, FULL_CABINS_SQL.replace(" = (", " < ("),
                ("2000-01-01", "2026-03-02T09:00:00Z")) == []  # never oversold
    assert len(rows(session, FULL_CABINS_SQL, (SOON, "2026-03-02T10:00:00Z"))) >= 3
    unpaid = rows(session, "SELECT r.pnr FROM reservations r WHERE r.status = 'confirmed' AND "
                  "r.fare_total_cents <> (SELECT SUM(amount_cents) FROM payments p WHERE "
                  "p.pnr = r.pnr AND p.purpose = 'fare')")
    assert unpaid == []
    wrong_cabin = rows(session, "SELECT sa.seat FROM seat_assignments sa JOIN reservations r "
                       "ON r.pnr = sa.pnr JOIN flights f ON f.id = sa.flight_id JOIN "
                       "aircraft_cabins ac ON ac.aircraft_code = f.aircraft_code AND "
                       "ac.cabin = r.cabin WHERE r.status <> 'confirmed' OR CAST(substr("
                       "sa.seat, 1, length(sa.seat) - 1) AS INTEGER) NOT BETWEEN ac.first_row "
                       "AND ac.last_row")
    assert wrong_cabin == []
    counts = {t: first(session, f"SELECT COUNT(*) AS n FROM {t}")["n"]
              for t in ("flights", "passengers", "reservations")}
    assert counts["flights"] >= 300 and counts["passengers"] == 400
    assert counts["reservations"] >= 300
    states = {r["status"] for r in rows(session, "SELECT DISTINCT status FROM reservations")}
    assert states == {"held", "confirmed", "cancelled"}
