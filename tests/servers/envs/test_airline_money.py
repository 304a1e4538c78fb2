"""Airline environment: change costs, refunds and bag fees follow the fare rules to the cent."""

from __future__ import annotations

import pytest

from agentworld.servers import Session
from tests.servers.envs.rule_harness import ok
from tests.servers.envs.test_airline import (
    COMPANION,
    ENV,
    OUT,
    PAYER,
    PAYER_CARD,
    first,
    future_ticket,
    hold,
    next_same_route,
    reservation,
    rows,
    ticket,
)


@pytest.fixture
def session():
    s = Session(ENV, seed=23)
    yield s
    s.close()


def _price(session, flight_id, cabin, family):
    offers = ok(session.call("get_flight", {"flight_id": flight_id}))["flight"]["cabins"]
    offer = next(o for o in offers if o["cabin"] == cabin)
    return next(f["price_cents"] for f in offer["fares"] if f["fare_family"] == family)


def _points(session, passenger_id):
    return first(session, "SELECT points_balance FROM passengers WHERE id = ?",
                 (passenger_id,))["points_balance"]


# ---- changes ------------------------------------------------------------------------------

def test_standard_change_pays_fee_and_fare_increase_per_passenger(session):
    booked = future_ticket(session, "r.fare_family = 'standard' AND r.cabin = 'economy' AND "
                           "party >= 2")
    new_flight = next_same_route(session, booked["flight_id"])
    new_fare = _price(session, new_flight, "economy", "standard")
    result = ok(session.call("change_flight", {
        "pnr": booked["pnr"], "flight_id": booked["flight_id"], "new_flight_id": new_flight,
        "source": booked["card"]}))
    party = booked["party"]
    assert result["change_fee_cents"] == 7_500 * party
    assert result["fare_difference_cents"] == max(0, new_fare - booked["fare_cents"]) * party
    assert result["payment"]["amount_cents"] == result["charged_cents"]
    assert result["payment"]["purpose"] == "change"
    segments = rows(session, "SELECT flight_id, status FROM segments WHERE pnr = ? "
                    "ORDER BY status", (booked["pnr"],))
    assert segments == [{"flight_id": new_flight, "status": "active"},
                        {"flight_id": booked["flight_id"], "status": "exchanged"}]
    assert rows(session, "SELECT seat FROM seat_assignments WHERE pnr = ? AND flight_id = ?",
                (booked["pnr"], booked["flight_id"])) == []
    view = reservation(session, booked["pnr"])
    assert view["fare_total_cents"] == new_fare * party


def test_flexible_change_is_free_and_a_cheaper_fare_is_not_refunded(session):
    res = ticket(session, family="flexible")
    target = first(session, "SELECT id FROM flights WHERE route_id = 'JFK-LHR' AND status = "
                   "'on_time' AND id <> ? AND scheduled_departure > '2026-03-03' ORDER BY "
                   "demand_pct, id", (OUT,))["id"]
    # Outside the 24-hour window, so the waiver below comes from the fare, not the window.
    session.ctx.clock.calls += 24 * 120 + 10
    result = ok(session.call("change_flight", {"pnr": res["pnr"], "flight_id": OUT,
                                               "new_flight_id": target}))
    old_fare = res["segments"][0]["fare_cents"]
    new_fare = _price(session, target, "economy", "flexible")
    assert result["change_fee_cents"] == 0
    assert result["fare_difference_cents"] == max(0, new_fare - old_fare)
    if new_fare < old_fare:
        assert result["payment"] is None and result["charged_cents"] == 0


def test_change_fee_is_waived_within_24_hours_of_booking(session):
    res = ticket(session)
    later = next_same_route(session, OUT)
    result = session.call("change_flight", {"pnr": res["pnr"], "flight_id": OUT,
                                            "new_flight_id": later, "source": PAYER_CARD})
    assert ok(result)["change_fee_cents"] == 0


def test_basic_economy_may_rebook_off_an_airline_cancelled_flight(session):
    stranded = first(session, "SELECT r.pnr, sg.flight_id, f.route_id FROM reservations r "
                     "JOIN segments sg ON sg.pnr = r.pnr AND sg.status = 'active' JOIN flights "
                     "f ON f.id = sg.flight_id WHERE r.status = 'confirmed' AND f.status = "
                     "'cancelled' AND f.scheduled_departure > '2026-03-03' AND "
                     "r.fare_family = 'basic' ORDER BY r.pnr")
    target = first(session, "SELECT id FROM flights WHERE route_id = ? AND status = 'on_time' "
                   "AND scheduled_departure > '2026-03-03' ORDER BY demand_pct DESC, id",
                   (stranded["route_id"],))["id"]
    contact = first(session, "SELECT contact_passenger_id AS id FROM reservations WHERE pnr = ?",
                    (stranded["pnr"],))["id"]
    card = first(session, "SELECT MIN(id) AS id FROM payment_cards WHERE passenger_id = ?",
                 (contact,))["id"]
    result = ok(session.call("change_flight", {"pnr": stranded["pnr"],
                                               "flight_id": stranded["flight_id"],
                                               "new_flight_id": target, "source": card}))
    assert result["change_fee_cents"] == 0


def test_change_without_a_payment_source_when_money_is_due(session):
    booked = future_ticket(session, "r.fare_family = 'standard'")
    result = session.call("change_flight", {"pnr": booked["pnr"],
                                            "flight_id": booked["flight_id"],
                                            "new_flight_id": next_same_route(
                                                session, booked["flight_id"])})
    assert result.code == "VALIDATION_ERROR"


# ---- cancellations and refunds -------------------------------------------------------------

@pytest.mark.parametrize("family, expected_basis", [
    ("flexible", "fully_refundable_fare"),
    ("standard", "cancellation_fee_deducted"),
    ("basic", "non_refundable_fare"),
])
def test_refund_follows_the_fare_rule(session, family, expected_basis):
    booked = future_ticket(session, "r.fare_family = ? AND r.cabin = 'economy' AND NOT EXISTS "
                           "(SELECT 1 FROM payments p WHERE p.pnr = r.pnr AND p.purpose = "
                           "'baggage')", (family,))
    paid = first(session, "SELECT SUM(amount_cents) AS n FROM payments WHERE pnr = ?",
                 (booked["pnr"],))["n"]
    result = ok(session.call("cancel_reservation", {"pnr": booked["pnr"]}))
    expected = {"flexible": paid, "standard": max(0, paid - 10_000 * booked["party"]),
                "basic": 0}[family]
    assert result["refund_basis"] == expected_basis
    assert result["refund_cents"] == expected == sum(r["amount_cents"] for r in result["refunds"])
    view = reservation(session, booked["pnr"])
    assert view["status"] == "cancelled" and view["refunded_cents"] == expected
    assert rows(session, "SELECT * FROM seat_assignments WHERE pnr = ?", (booked["pnr"],)) == []


def test_basic_fare_cancelled_within_24_hours_is_refunded_in_full(session):
    res = ticket(session, family="basic")
    result = ok(session.call("cancel_reservation", {"pnr": res["pnr"]}))
    assert result["refund_basis"] == "free_24h_window"
    assert result["refund_cents"] == res["fare_total_cents"]


def test_basic_fare_after_24_hours_refunds_only_bag_fees(session):
    res = ticket(session, family="basic")
    bags = ok(session.call("add_baggage", {"pnr": res["pnr"], "passenger_id": PAYER,
                                           "bags": 3, "source": PAYER_CARD}))
    # PAYER is platinum: two free bags on a basic fare, so the third costs the first bag fee.
    assert (bags["allowance"], bags["fee_cents"]) == (2, 3_500)
    session.ctx.clock.calls += 24 * 120
    result = ok(session.call("cancel_reservation", {"pnr": res["pnr"]}))
    assert result["refund_basis"] == "non_refundable_fare"
    assert result["refund_cents"] == 3_500


def test_cancelling_a_hold_returns_points_to_the_balance(session):
    res = hold(session, pax=(PAYER, COMPANION))
    before = _points(session, PAYER)
    ok(session.call("add_payment", {"pnr": res["pnr"], "source": "points",
                                    "amount_cents": 12_300}))
    result = ok(session.call("cancel_reservation", {"pnr": res["pnr"]}))
    assert (result["refund_basis"], result["refund_cents"]) == ("hold_released", 12_300)
    assert _points(session, PAYER) == before
    seats = ok(session.call("get_flight", {"flight_id": OUT}))["flight"]["cabins"]
    assert next(c for c in seats if c["cabin"] == "economy")["seats_available"] == \
        next(c for c in seats if c["cabin"] == "economy")["seats_total"] - first(
            session, "SELECT COUNT(*) AS n FROM segments sg JOIN reservations r ON r.pnr = "
            "sg.pnr JOIN reservation_passengers rp ON rp.pnr = r.pnr WHERE sg.flight_id = ? "
            "AND r.cabin = 'economy' AND r.status = 'confirmed'", (OUT,))["n"]


def test_airline_cancelled_flight_refunds_even_basic_fares(session):
    stranded = first(session, "SELECT r.pnr FROM reservations r JOIN segments sg ON sg.pnr = "
                     "r.pnr JOIN flights f ON f.id = sg.flight_id WHERE r.status = 'confirmed' "
                     "AND f.status = 'cancelled' AND f.scheduled_departure > '2026-03-03' AND "
                     "r.fare_family = 'basic' ORDER BY r.pnr")
    paid = first(session, "SELECT SUM(amount_cents) AS n FROM payments WHERE pnr = ?",
                 (stranded["pnr"],))["n"]
    result = ok(session.call("cancel_reservation", {"pnr": stranded["pnr"]}))
    assert (result["refund_basis"], result["refund_cents"]) == ("airline_cancelled_flight", paid)


# ---- bags ---------------------------------------------------------------------------------

def test_bag_fees_climb_35_45_150(session):
    res = ticket(session, pax=(COMPANION,), contact=PAYER)  # gold, standard: 2 free bags
    fees = [ok(session.call("add_baggage", {"pnr": res["pnr"], "passenger_id": COMPANION,
                                            "bags": 1, "source": PAYER_CARD}))["fee_cents"]
            for _ in range(5)]
    assert fees == [0, 0, 3_500, 4_500, 15_000]
    view = reservation(session, res["pnr"])
    assert view["passengers"][0]["checked_bags"] == 5
    assert sum(p["amount_cents"] for p in view["payments"] if p["purpose"] == "baggage") == 23_000
