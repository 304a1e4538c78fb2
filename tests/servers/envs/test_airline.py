"""Airline environment: every business rule has a breaker; example calls; determinism.

The helpers here (ENV, rows, hold, ticket, ...) are shared by the other test_airline_* files.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.database import Template
from agentworld.servers.envs.airline import DEFINITION, EXAMPLE_CALLS
from agentworld.servers.envs.airline.seed import SCHEMA_SQL, seed
from tests.servers.envs.rule_harness import assert_every_rule_covered, check_breaker, ok

ENV = Environment(DEFINITION)
PAYER, PAYER_CARD, COMPANION = "pax_1003", "card_000001", "pax_1004"
OUT, BACK = "MW101-2026-03-05", "MW102-2026-03-10"
SOON = "2026-03-03T00:00:00Z"  # comfortably after the session clock, for "future" flights
# Seats sold per flight and cabin, as the tools count them at the epoch.
FULL_CABINS_SQL = """
SELECT f.id AS flight_id, ac.cabin FROM flights f
JOIN aircraft_cabins ac ON ac.aircraft_code = f.aircraft_code
WHERE f.scheduled_departure > ? AND (ac.last_row - ac.first_row + 1) * length(ac.letters) = (
    SELECT COUNT(*) FROM segments sg JOIN reservations r ON r.pnr = sg.pnr
    JOIN reservation_passengers rp ON rp.pnr = r.pnr
    WHERE sg.flight_id = f.id AND sg.status = 'active' AND r.cabin = ac.cabin
      AND (r.status = 'confirmed' OR (r.status = 'held' AND r.hold_expires_at > ?)))
ORDER BY f.id, ac.cabin
"""
# Confirmed reservations whose every flight is still ahead, with the contact's first card.
FUTURE_TICKETS_SQL = """
SELECT r.*, sg.flight_id, sg.fare_cents,
       (SELECT MIN(id) FROM payment_cards c WHERE c.passenger_id = r.contact_passenger_id) AS card,
       (SELECT COUNT(*) FROM reservation_passengers x WHERE x.pnr = r.pnr) AS party
FROM reservations r JOIN segments sg ON sg.pnr = r.pnr AND sg.status = 'active' AND sg.seq = 1
JOIN flights f ON f.id = sg.flight_id
WHERE r.status = 'confirmed' AND f.scheduled_departure > ? AND f.status = 'on_time'
  AND r.created_at < '2026-03-01T09:00:00Z'
  AND (SELECT COUNT(*) FROM segments x WHERE x.pnr = r.pnr AND x.status = 'active') = 1
"""


def rows(session: Session, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
    return [dict(r) for r in session.db.execute(sql, params).fetchall()]


def first(session: Session, sql: str, params: tuple = ()) -> dict[str, Any]:
    found = rows(session, sql, params)
    assert found, f"the seed has no row for: {sql.strip()[:120]}"
    return found[0]


def future_ticket(session: Session, where: str = "1 = 1", params: tuple = ()) -> dict[str, Any]:
    """A seeded one-flight confirmed booking, ahead of us, booked over 24 hours ago."""
    return first(session, f"{FUTURE_TICKETS_SQL} AND {where} ORDER BY r.pnr", (SOON, *params))


def next_same_route(session: Session, flight_id: str) -> str:
    """The next on-time flight on the same route as ``flight_id``."""
    return first(session, "SELECT n.id FROM flights f JOIN flights n ON n.route_id = f.route_id "
                 "WHERE f.id = ? AND n.scheduled_departure > f.scheduled_departure "
                 "AND n.status = 'on_time' ORDER BY n.scheduled_departure",
                 (flight_id,))["id"]


def hold(session: Session, *, pax=(PAYER,), flights=(OUT,), cabin="economy",
         family="standard", contact=None) -> dict[str, Any]:
    args = {"passenger_ids": list(pax), "flight_ids": list(flights), "cabin": cabin,
            "fare_family": family}
    if contact:
        args["contact_passenger_id"] = contact
    return ok(session.call("create_reservation", args))["reservation"]


def ticket(session: Session, *, card=PAYER_CARD, **kwargs) -> dict[str, Any]:
    res = hold(session, **kwargs)
    ok(session.call("add_payment", {"pnr": res["pnr"], "source": card,
                                    "amount_cents": res["fare_total_cents"]}))
    return ok(session.call("confirm_reservation", {"pnr": res["pnr"]}))["reservation"]


def reservation(session: Session, pnr: str) -> dict[str, Any]:
    return ok(session.call("get_reservation", {"pnr": pnr}))["reservation"]


# ---- breakers: each returns the call that breaks its rule --------------------------------

def _full_cabin(session):
    full = first(session, FULL_CABINS_SQL, (SOON, "2026-03-02T10:00:00Z"))
    on_board = {r["passenger_id"] for r in rows(
        session, "SELECT rp.passenger_id FROM segments sg JOIN reservation_passengers rp "
        "ON rp.pnr = sg.pnr WHERE sg.flight_id = ?", (full["flight_id"],))}
    traveller = next(p for p in ("pax_1003", "pax_1004", "pax_1005") if p not in on_board)
    return "create_reservation", {"passenger_ids": [traveller], "flight_ids": [full["flight_id"]],
                                  "cabin": full["cabin"], "fare_family": "flexible"}


def _double_booking(session):
    booked = future_ticket(session)
    return "create_reservation", {"passenger_ids": [booked["contact_passenger_id"]],
                                  "flight_ids": [booked["flight_id"]], "cabin": "economy",
                                  "fare_family": "flexible"}


def _ten_passengers(session):
    pax = [f"pax_{1100 + n}" for n in range(10)]
    return "create_reservation", {"passenger_ids": pax, "flight_ids": [OUT],
                                  "cabin": "economy", "fare_family": "standard"}


def _departed_flight(session):
    return "create_reservation", {"passenger_ids": [PAYER], "flight_ids": ["MW101-2026-02-25"],
                                  "cabin": "economy", "fare_family": "standard"}


def _disconnected(session):
    return "create_reservation", {"passenger_ids": [PAYER],
                                  "flight_ids": [OUT, "MW111-2026-03-06"],
                                  "cabin": "economy", "fare_family": "standard"}


def _basic_business(session):
    return "create_reservation", {"passenger_ids": [PAYER], "flight_ids": [OUT],
                                  "cabin": "business", "fare_family": "basic"}


def _expired_hold(session):
    held = first(session, "SELECT pnr FROM reservations WHERE status = 'held' AND "
                 "hold_expires_at < '2026-03-02T09:00:00Z' ORDER BY pnr")
    return "confirm_reservation", {"pnr": held["pnr"]}


def _underpaid(session):
    res = hold(session)
    ok(session.call("add_payment", {"pnr": res["pnr"], "source": PAYER_CARD,
                                    "amount_cents": res["fare_total_cents"] - 100}))
    return "confirm_reservation", {"pnr": res["pnr"]}


def _overpaid(session):
    res = hold(session)
    return "add_payment", {"pnr": res["pnr"], "source": PAYER_CARD,
                           "amount_cents": res["fare_total_cents"] + 1}


def _someone_elses_card(session):
    res = hold(session)
    other = first(session, "SELECT id FROM payment_cards WHERE passenger_id <> ? ORDER BY id",
                  (PAYER,))
    return "add_payment", {"pnr": res["pnr"], "source": other["id"], "amount_cents": 100}


def _too_few_points(session):
    poor = first(session, "SELECT p.id FROM passengers p WHERE points_balance < 5000 AND "
                 "EXISTS (SELECT 1 FROM payment_cards c WHERE c.passenger_id = p.id) ORDER BY id")
    res = hold(session, pax=(poor["id"],))
    points = first(session, "SELECT points_balance FROM passengers WHERE id = ?",
                   (poor["id"],))["points_balance"]
    return "add_payment", {"pnr": res["pnr"], "source": "points", "amount_cents": points + 1}


def _expired_voucher(session):
    stale = first(session, "SELECT id, passenger_id FROM vouchers WHERE expires_on < "
                  "'2026-03-02' AND balance_cents > 0 ORDER BY id")
    res = hold(session, pax=(stale["passenger_id"],))
    return "add_payment", {"pnr": res["pnr"], "source": stale["id"], "amount_cents": 100}


def _seat_on_hold(session):
    res = hold(session)
    return "assign_seat", {"pnr": res["pnr"], "flight_id": OUT, "passenger_id": PAYER,
                           "seat": "31C"}


def _cancel_after_departure(session):
    flown = first(session, "SELECT r.pnr FROM reservations r JOIN segments sg ON sg.pnr = r.pnr "
                  "JOIN flights f ON f.id = sg.flight_id WHERE r.status = 'confirmed' AND "
                  "f.status <> 'cancelled' AND f.scheduled_departure < '2026-03-01' "
                  "ORDER BY r.pnr")
    return "cancel_reservation", {"pnr": flown["pnr"]}


def _change_basic(session):
    basic = future_ticket(session, "r.fare_family = 'basic'")
    return "change_flight", {"pnr": basic["pnr"], "flight_id": basic["flight_id"],
                             "new_flight_id": next_same_route(session, basic["flight_id"]),
                             "source": basic["card"]}


def _change_route(session):
    res = ticket(session)
    return "change_flight", {"pnr": res["pnr"], "flight_id": OUT,
                             "new_flight_id": "MW111-2026-03-05", "source": PAYER_CARD}


def _touch_cancelled(session):
    gone = first(session, "SELECT pnr FROM reservations WHERE status = 'cancelled' ORDER BY pnr")
    return "cancel_reservation", {"pnr": gone["pnr"]}


def _missing_seat(session):
    res = ticket(session)
    return "assign_seat", {"pnr": res["pnr"], "flight_id": OUT, "passenger_id": PAYER,
                           "seat": "99Z"}


def _business_seat_on_economy(session):
    res = ticket(session)
    return "assign_seat", {"pnr": res["pnr"], "flight_id": OUT, "passenger_id": PAYER,
                           "seat": "1A"}


def _taken_seat(session):
    taken = first(session, "SELECT sa.flight_id, sa.seat, r.cabin FROM seat_assignments sa "
                  "JOIN reservations r ON r.pnr = sa.pnr JOIN flights f ON f.id = sa.flight_id "
                  "WHERE f.scheduled_departure > ? AND f.status = 'on_time' AND "
                  "r.cabin = 'economy' ORDER BY sa.flight_id, sa.seat", (SOON,))
    on_board = {r["passenger_id"] for r in rows(
        session, "SELECT rp.passenger_id FROM segments sg JOIN reservation_passengers rp "
        "ON rp.pnr = sg.pnr WHERE sg.flight_id = ?", (taken["flight_id"],))}
    traveller = next(p for p in ("pax_1003", "pax_1004", "pax_1005") if p not in on_board)
    res = ticket(session, pax=(traveller,), contact=PAYER, flights=(taken["flight_id"],))
    return "assign_seat", {"pnr": res["pnr"], "flight_id": taken["flight_id"],
                           "passenger_id": traveller, "seat": taken["seat"]}


def _six_bags(session):
    res = ticket(session)
    return "add_baggage", {"pnr": res["pnr"], "passenger_id": PAYER, "bags": 6,
                           "source": PAYER_CARD}


def _undisrupted(session):
    booked = future_ticket(session)
    return "issue_voucher", {"passenger_id": booked["contact_passenger_id"],
                             "flight_id": booked["flight_id"]}


def _compensated_twice(session):
    paid = first(session, "SELECT passenger_id, flight_id FROM vouchers WHERE kind = "
                 "'compensation' ORDER BY id")
    return "issue_voucher", dict(paid)


BREAKERS = {
    "cabin-capacity": _full_cabin,
    "no-double-booking": _double_booking,
    "max-nine-passengers": _ten_passengers,
    "sales-close-before-departure": _departed_flight,
    "segments-must-connect": _disconnected,
    "fare-family-by-cabin": _basic_business,
    "hold-deadline": _expired_hold,
    "exact-payment": _underpaid,
    "no-overpayment": _overpaid,
    "payer-owns-payment": _someone_elses_card,
    "sufficient-funds": _too_few_points,
    "voucher-not-expired": _expired_voucher,
    "ticketed-before-servicing": _seat_on_hold,
    "no-change-after-departure": _cancel_after_departure,
    "basic-economy-unchangeable": _change_basic,
    "change-keeps-route": _change_route,
    "cancelled-is-final": _touch_cancelled,
    "seat-must-exist": _missing_seat,
    "seat-in-booked-cabin": _business_seat_on_economy,
    "seat-not-taken": _taken_seat,
    "bag-limit": _six_bags,
    "compensation-needs-disruption": _undisrupted,
    "compensation-once": _compensated_twice,
}


def test_every_rule_has_a_breaker():
    assert_every_rule_covered(ENV, BREAKERS)


@pytest.mark.parametrize("rule_id", sorted(BREAKERS))
def test_rule_is_enforced(rule_id):
    check_breaker(ENV, rule_id, BREAKERS[rule_id])


# ---- example calls and determinism -------------------------------------------------------

def _replay(seed: int = 0) -> tuple[list[dict], str]:
    session = Session(ENV, seed=seed)
    try:
        outputs = [session.call(name, args) for name, args in EXAMPLE_CALLS]
        return [r.payload() for r in outputs], session.hash()
    finally:
        session.close()


def test_example_calls_all_succeed_and_cover_every_tool():
    outputs, _ = _replay()
    failures = [(name, out) for (name, _), out in zip(EXAMPLE_CALLS, outputs, strict=True)
                if "error" in out]
    assert not failures
    assert {name for name, _ in EXAMPLE_CALLS} == set(ENV.tools.names())


def test_same_seed_and_calls_give_same_outputs_and_hash():
    assert _replay() == _replay()


def test_template_is_rebuilt_identically():
    assert Template(SCHEMA_SQL, seed).hash == ENV.template.hash


def test_manifest_rules_name_real_tools_and_codes():
    assert len(ENV.tools) >= 12 and len(ENV.manifest.rules) >= 8
    for rule in ENV.manifest.rules:
        assert set(rule.tools) <= set(ENV.tools.names())
        assert rule.code in {"NOT_FOUND", "VALIDATION_ERROR", "CONFLICT", "FORBIDDEN",
                             "PRECONDITION_FAILED", "LIMIT_EXCEEDED"}
