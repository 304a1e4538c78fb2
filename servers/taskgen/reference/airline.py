"""Reference tasks for the airline environment (Meridian Airways reservations)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentworld.servers.envs.airline.pricing import fare_cents

from ..record import TaskRecord
from ._common import (
    added,
    answer,
    dollars,
    guard,
    load,
    one,
    record,
    rows,
    scalar,
    simulate,
    values,
)

__all__ = ["airline_tasks"]

ENV = "airline"
# Flights after this moment are comfortably ahead of the session clock for a whole episode.
SOON = "2026-03-03T00:00:00Z"
FIRST_CALL = "2026-03-02T09:00:30Z"
UNIQUE_NAME = ("(SELECT COUNT(*) FROM passengers q WHERE q.first_name = {p}.first_name "
               "AND q.last_name = {p}.last_name) = 1")
FIRST_DEPARTURE = ("(SELECT MIN(f.scheduled_departure) FROM segments sg JOIN flights f "
                   "ON f.id = sg.flight_id WHERE sg.pnr = {r}.pnr AND sg.status = 'active')")
SOLD = """
SELECT COUNT(*) FROM segments sg JOIN reservations r ON r.pnr = sg.pnr
JOIN reservation_passengers rp ON rp.pnr = r.pnr
WHERE sg.flight_id = ? AND sg.status = 'active' AND r.cabin = ?
  AND (r.status = 'confirmed' OR (r.status = 'held' AND r.hold_expires_at > ?))
"""


def _name(db, pid: str) -> str:
    p = one(db, "SELECT first_name, last_name FROM passengers WHERE id = ?", pid)
    return f"{p['first_name']} {p['last_name']}"


def _card(db, pid: str) -> dict[str, Any]:
    return one(db, "SELECT * FROM payment_cards WHERE passenger_id = ? ORDER BY id", pid)


def _find(db, pid: str) -> list[Any]:
    return ["find_passengers", {"query": _name(db, pid)}]


def _layout(db, flight_id: str, cabin: str) -> dict[str, Any]:
    return one(db, "SELECT ac.* FROM aircraft_cabins ac JOIN flights f "
               "ON f.aircraft_code = ac.aircraft_code WHERE f.id = ? AND ac.cabin = ?",
               flight_id, cabin)


def _seats(db, flight_id: str, cabin: str) -> list[str]:
    """Every seat of a cabin, front to back, then by letter."""
    lay = _layout(db, flight_id, cabin)
    return [f"{row}{letter}" for row in range(lay["first_row"], lay["last_row"] + 1)
            for letter in lay["letters"]]


def _taken(db, flight_id: str) -> set[str]:
    return {r["seat"] for r in rows(db, "SELECT seat FROM seat_assignments WHERE flight_id = ?",
                                     flight_id)}


def _seats_left(db, flight_id: str, cabin: str) -> int:
    lay = _layout(db, flight_id, cabin)
    total = (lay["last_row"] - lay["first_row"] + 1) * len(lay["letters"])
    return total - scalar(db, SOLD, flight_id, cabin, FIRST_CALL)


def _flight_words(db, flight_id: str) -> str:
    f = one(db, "SELECT f.*, r.origin, r.destination FROM flights f JOIN routes r "
            "ON r.id = f.route_id WHERE f.id = ?", flight_id)
    return f"flight {f['flight_number']} from {f['origin']} to {f['destination']} on " \
           f"{f['service_date']}"


# ---- short tasks ----------------------------------------------------------------------------

def _seats_left_task(env, db, n):
    for f in rows(db, "SELECT f.id FROM flights f JOIN aircraft_cabins ac ON ac.aircraft_code "
                  "= f.aircraft_code AND ac.cabin = 'business' WHERE f.status = 'on_time' "
                  "AND f.scheduled_departure > ? ORDER BY f.scheduled_departure, f.id", SOON):
        left = _seats_left(db, f["id"], "business")
        if 3 <= left < len(_seats(db, f["id"], "business")) - 1:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    prompt = (f"How many business-class seats are still for sale on "
              f"{_flight_words(db, f['id'])}?")
    return record(ENV, n, prompt, [["get_flight", {"flight_id": f["id"]}]],
                  [answer(left)], str(left), template="seats_left")


def _voucher_balance(env, db, n):
    p = one(db, f"""SELECT p.id, SUM(v.balance_cents) AS total FROM passengers p
        JOIN vouchers v ON v.passenger_id = p.id AND v.balance_cents > 0
             AND v.expires_on > '2026-03-02'
        WHERE {UNIQUE_NAME.format(p='p')}
        AND EXISTS (SELECT 1 FROM vouchers x WHERE x.passenger_id = p.id
                    AND (x.balance_cents = 0 OR x.expires_on <= '2026-03-02'))
        GROUP BY p.id HAVING COUNT(*) >= 2 ORDER BY p.id""")
    prompt = (f"How much travel credit does {_name(db, p['id'])} still have available? Add up "
              "the remaining balances of their vouchers that have not expired and answer in "
              "US dollars.")
    calls = [_find(db, p["id"]), ["get_passenger", {"passenger_id": p["id"]}]]
    return record(ENV, n, prompt, calls, [answer(p["total"] / 100)], dollars(p["total"]),
                  template="voucher_balance")


def _cheapest_day(env, db, n):
    route = one(db, """SELECT r.* FROM routes r WHERE (SELECT COUNT(*) FROM flights f
        WHERE f.route_id = r.id AND f.service_date BETWEEN '2026-03-05' AND '2026-03-12'
        AND f.status = 'on_time') >= 5 ORDER BY r.distance_km DESC, r.id""")
    flights = rows(db, "SELECT * FROM flights WHERE route_id = ? AND service_date BETWEEN "
                   "'2026-03-05' AND '2026-03-12' AND status = 'on_time' ORDER BY id", route["id"])
    priced = sorted((fare_cents(route["distance_km"], "economy", "standard", f["demand_pct"]),
                     f["service_date"], f["flight_number"]) for f in flights)
    if priced[0][0] == priced[1][0]:
        raise LookupError("no single cheapest day")
    price, day, number = priced[0]
    prompt = (f"I'm flexible: which day between 2026-03-05 and 2026-03-12 has the cheapest "
              f"standard economy fare from {route['origin']} to {route['destination']}? Only "
              "count flights that are operating on schedule. Tell me the date, the flight "
              "number and the fare in US dollars.")
    calls = [["search_flights", {"origin": route["origin"], "destination": route["destination"],
                                 "cabin": "economy", "limit": 50}]]
    return record(ENV, n, prompt, calls,
                  [answer(day, number, points=2), answer(price // 100, points=1, name="fare")],
                  f"{day} {number} {dollars(price)}", template="cheapest_day")


def _window_seat(env, db, n):
    for c in rows(db, f"""SELECT sa.*, r.cabin FROM seat_assignments sa
            JOIN reservations r ON r.pnr = sa.pnr JOIN passengers p ON p.id = sa.passenger_id
            JOIN flights f ON f.id = sa.flight_id
            WHERE r.status = 'confirmed' AND f.scheduled_departure > ? AND f.status = 'on_time'
            AND {UNIQUE_NAME.format(p='p')} ORDER BY sa.flight_id, sa.seat""", SOON):
        letters = _layout(db, c["flight_id"], c["cabin"])["letters"]
        if c["seat"][-1] in (letters[0], letters[-1]):
            continue
        windows = [s for s in _seats(db, c["flight_id"], c["cabin"])
                   if s[-1] in (letters[0], letters[-1]) and s not in _taken(db, c["flight_id"])]
        if windows and int(windows[0][:-1]) > int(_seats(db, c["flight_id"], c["cabin"])[0][:-1]):
            break  # the front row is full, so the agent has to read the map
    else:
        raise LookupError("the seed has no situation for this task")
    target = windows[0]
    flight = one(db, "SELECT * FROM flights WHERE id = ?", c["flight_id"])
    prompt = (f"{_name(db, c['passenger_id'])} would like a window seat on flight "
              f"{flight['flight_number']} on {flight['service_date']}. Move them to the "
              "front-most free window seat in the cabin they booked (if both windows of that "
              "row are free, take the left-hand one, the lower letter).")
    calls = [_find(db, c["passenger_id"]),
             ["list_reservations", {"passenger_id": c["passenger_id"], "status": "confirmed"}],
             ["get_seat_map", {"flight_id": c["flight_id"], "cabin": c["cabin"]}],
             ["assign_seat", {"pnr": c["pnr"], "flight_id": c["flight_id"],
                              "passenger_id": c["passenger_id"], "seat": target}]]
    checks = [values("seat_assignments", {"flight_id": c["flight_id"],
                                          "passenger_id": c["passenger_id"]},
                     {"seat": target}, points=2),
              guard("seat_assignments", 2)]
    return record(ENV, n, prompt, calls, checks, None, template="window_seat")


def _cancel_refundable(env, db, n, since="2026-03-06"):
    sql = f"""SELECT r.*, {FIRST_DEPARTURE.format(r='r')} AS first_dep, fr.refundable
        FROM reservations r JOIN fare_rules fr ON fr.cabin = r.cabin
        AND fr.fare_family = r.fare_family WHERE r.contact_passenger_id = ?
        AND r.status = 'confirmed' ORDER BY r.pnr"""
    for p in rows(db, f"SELECT p.id FROM passengers p WHERE {UNIQUE_NAME.format(p='p')} "
                  "ORDER BY p.id"):
        mine = rows(db, sql, p["id"])
        targets = [r for r in mine if r["refundable"] and r["first_dep"] >= f"{since}T00:00:00Z"]
        others = [r for r in mine if r not in targets and r["first_dep"] > SOON]
        if len(targets) >= 2 and others:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    pid = p["id"]
    calls = [_find(db, pid), ["list_reservations", {"passenger_id": pid, "status": "confirmed"}]]
    calls += [["cancel_reservation", {"pnr": r["pnr"]}] for r in targets]
    refunded = sum(out.get("refund_cents", 0) for out in simulate(env, calls))
    prompt = (f"{_name(db, pid)} has to call off all travel from {since} on. Cancel every "
              "confirmed reservation they booked (they are the contact) on a refundable fare "
              f"whose first flight departs on or after {since} (UTC); leave basic-economy and "
              "earlier trips alone. Tell me the total amount refunded in US dollars.")
    checks = [values("reservations", {"pnr": r["pnr"]}, {"status": "cancelled"})
              for r in targets]
    checks += [answer(refunded / 100), guard("reservations", len(targets))]
    return record(ENV, n, prompt, calls, checks, dollars(refunded), template="cancel_refundable")


def _change_next_day(env, db, n):
    for r in rows(db, f"""SELECT r.*, sg.id AS seg, sg.flight_id, f.flight_number,
            f.service_date, rt.origin, rt.destination,
            (SELECT n.id FROM flights n WHERE n.flight_number = f.flight_number
             AND n.service_date = date(f.service_date, '+1 day')
             AND n.status = 'on_time') AS next_id
        FROM reservations r JOIN segments sg ON sg.pnr = r.pnr AND sg.status = 'active'
        JOIN flights f ON f.id = sg.flight_id JOIN routes rt ON rt.id = f.route_id
        JOIN passengers p ON p.id = r.contact_passenger_id
        WHERE r.status = 'confirmed' AND r.fare_family = 'standard' AND f.status = 'on_time'
        AND f.scheduled_departure > ? AND {UNIQUE_NAME.format(p='p')}
        AND (SELECT COUNT(*) FROM segments x WHERE x.pnr = r.pnr AND x.status = 'active') = 1
        AND (SELECT COUNT(*) FROM reservation_passengers x WHERE x.pnr = r.pnr) = 1
        AND (SELECT COUNT(*) FROM payment_cards c WHERE c.passenger_id = p.id) = 1
        AND r.created_at < '2026-03-01T00:00:00Z' ORDER BY r.pnr""", SOON):
        if r["next_id"] and _seats_left(db, r["next_id"], r["cabin"]) >= 1:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    pid, card = r["contact_passenger_id"], _card(db, r["contact_passenger_id"])
    calls = [_find(db, pid), ["list_reservations", {"passenger_id": pid, "status": "confirmed"}],
             ["get_passenger", {"passenger_id": pid}],
             ["search_flights", {"origin": r["origin"], "destination": r["destination"],
                                 "date": one(db, "SELECT service_date FROM flights WHERE id = ?",
                                             r["next_id"])["service_date"]}],
             ["change_flight", {"pnr": r["pnr"], "flight_id": r["flight_id"],
                                "new_flight_id": r["next_id"], "source": card["id"]}]]
    charged = simulate(env, calls)[-1]["charged_cents"]
    prompt = (f"{_name(db, pid)} needs to fly one day later: move their {r['origin']} to "
              f"{r['destination']} flight {r['flight_number']} on {r['service_date']} to the "
              f"same flight number the next day. Pay any charge with their card on file and "
              "tell me how much was charged in US dollars.")
    checks = [added("segments", {"pnr": r["pnr"], "flight_id": r["next_id"], "status": "active"},
                    points=2),
              values("segments", {"id": r["seg"]}, {"status": "exchanged"}),
              answer(charged / 100), guard("segments", 2)]
    return record(ENV, n, prompt, calls, checks, dollars(charged), template="change_next_day")


def _bags_for_party(env, db, n):
    res = one(db, f"""SELECT r.* FROM reservations r
        WHERE r.status = 'confirmed' AND r.fare_family = 'basic' AND {FIRST_DEPARTURE
        .format(r='r')} > ? AND (SELECT COUNT(*) FROM reservation_passengers x
        WHERE x.pnr = r.pnr) BETWEEN 3 AND 5 AND (SELECT COUNT(*) FROM payment_cards c
        WHERE c.passenger_id = r.contact_passenger_id) = 1 ORDER BY r.pnr""", SOON)
    party = rows(db, "SELECT * FROM reservation_passengers WHERE pnr = ? ORDER BY position",
                 res["pnr"])
    card = _card(db, res["contact_passenger_id"])
    calls = [["get_reservation", {"pnr": res["pnr"]}],
             ["get_passenger", {"passenger_id": res["contact_passenger_id"]}]]
    calls += [["add_baggage", {"pnr": res["pnr"], "passenger_id": p["passenger_id"], "bags": 1,
                               "source": card["id"]}] for p in party]
    fees = sum(out["fee_cents"] for out in simulate(env, calls)[2:])
    prompt = (f"Add one checked bag for every traveller on reservation {res['pnr']}. Charge any "
              "bag fees to the reservation contact's card on file, then tell me the total bag "
              "fees in US dollars.")
    checks = [values("reservation_passengers", {"pnr": res["pnr"], "passenger_id": p[
        "passenger_id"]}, {"checked_bags": p["checked_bags"] + 1}) for p in party]
    checks += [answer(fees / 100), guard("reservation_passengers", len(party))]
    return record(ENV, n, prompt, calls, checks, dollars(fees), template="bags_for_party")


def _confirmed_spend(env, db, n):
    p = one(db, f"""SELECT p.id, COUNT(*) AS k, SUM(r.fare_total_cents) AS total
        FROM passengers p JOIN reservation_passengers rp ON rp.passenger_id = p.id
        JOIN reservations r ON r.pnr = rp.pnr AND r.status = 'confirmed'
        WHERE {UNIQUE_NAME.format(p='p')} AND EXISTS (SELECT 1 FROM reservations c
        WHERE c.contact_passenger_id = p.id AND c.status <> 'confirmed')
        GROUP BY p.id HAVING COUNT(*) >= 3 ORDER BY COUNT(*) DESC, p.id""")
    prompt = (f"What is the combined fare total, in US dollars, of all confirmed reservations "
              f"{_name(db, p['id'])} travels on (including those someone else booked)? Leave "
              "out held and cancelled ones.")
    calls = [_find(db, p["id"]),
             ["list_reservations", {"passenger_id": p["id"], "status": "confirmed"}]]
    return record(ENV, n, prompt, calls, [answer(p["total"] / 100)], dollars(p["total"]),
                  template="confirmed_spend")


def _compensate_party(env, db, n):
    res = one(db, """SELECT r.pnr, f.id AS flight_id, f.flight_number, f.service_date, r.cabin,
        f.status FROM reservations r JOIN segments sg ON sg.pnr = r.pnr AND sg.status = 'active'
        JOIN flights f ON f.id = sg.flight_id WHERE r.status = 'confirmed'
        AND (f.status = 'cancelled' OR f.delay_minutes >= 180)
        AND (SELECT COUNT(*) FROM reservation_passengers rp WHERE rp.pnr = r.pnr
             AND NOT EXISTS (SELECT 1 FROM vouchers v WHERE v.passenger_id = rp.passenger_id
                             AND v.flight_id = f.id)) >= 2
        ORDER BY (SELECT COUNT(*) FROM reservation_passengers rp WHERE rp.pnr = r.pnr) DESC,
        r.pnr""")
    owed = [r["passenger_id"] for r in rows(
        db, "SELECT rp.passenger_id FROM reservation_passengers rp WHERE rp.pnr = ? AND NOT "
        "EXISTS (SELECT 1 FROM vouchers v WHERE v.passenger_id = rp.passenger_id AND "
        "v.flight_id = ?) ORDER BY rp.position", res["pnr"], res["flight_id"])]
    calls = [["get_reservation", {"pnr": res["pnr"]}],
             ["get_flight", {"flight_id": res["flight_id"]}],
             ["get_fare_rules", {"cabin": res["cabin"]}]]
    calls += [["issue_voucher", {"passenger_id": pid, "flight_id": res["flight_id"]}]
              for pid in owed]
    vouchers = [out["voucher"] for out in simulate(env, calls)[3:]]
    total = sum(v["amount_cents"] for v in vouchers)
    prompt = (f"Flight {res['flight_number']} on {res['service_date']} was disrupted. Issue the "
              f"compensation voucher due to every traveller on reservation {res['pnr']} who has "
              "not been compensated for that flight yet, and tell me the total value of the "
              "vouchers you issued in US dollars.")
    checks = [added("vouchers", {"passenger_id": v["passenger_id"], "flight_id": v["flight_id"],
                                 "kind": "compensation", "amount_cents": v["amount_cents"]})
              for v in vouchers]
    checks += [answer(total / 100), guard("vouchers", len(vouchers))]
    return record(ENV, n, prompt, calls, checks, dollars(total), template="compensate_party")


def _priciest_trip(env, db, n):
    for p in rows(db, f"SELECT p.id FROM passengers p WHERE {UNIQUE_NAME.format(p='p')} "
                  "ORDER BY p.id"):
        trips = rows(db, f"""SELECT r.pnr, r.fare_total_cents FROM reservations r
            WHERE r.status = 'confirmed' AND {FIRST_DEPARTURE.format(r='r')} > ?
            AND (r.contact_passenger_id = ? OR EXISTS (SELECT 1 FROM reservation_passengers x
            WHERE x.pnr = r.pnr AND x.passenger_id = ?))
            ORDER BY r.fare_total_cents DESC""", SOON, p["id"], p["id"])
        if len(trips) >= 3 and trips[0]["fare_total_cents"] != trips[1]["fare_total_cents"]:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    top = trips[0]
    prompt = (f"Of the upcoming confirmed trips {_name(db, p['id'])} is on, which reservation "
              "has the highest fare total? Give me its PNR and the fare total in US dollars.")
    calls = [_find(db, p["id"]),
             ["list_reservations", {"passenger_id": p["id"], "status": "confirmed"}]]
    return record(ENV, n, prompt, calls,
                  [answer(top["pnr"]), answer(top["fare_total_cents"] / 100, points=1,
                                              name="fare")],
                  f"{top['pnr']} {dollars(top['fare_total_cents'])}", template="priciest_trip")


def _book_single(env, db, n):
    flight = one(db, """SELECT f.*, r.origin, r.destination FROM flights f
        JOIN routes r ON r.id = f.route_id WHERE f.status = 'on_time'
        AND f.scheduled_departure > '2026-03-06T00:00:00Z' AND f.service_date = (
        SELECT MIN(g.service_date) FROM flights g WHERE g.route_id = f.route_id
        AND g.scheduled_departure > '2026-03-06T00:00:00Z') ORDER BY r.distance_km, f.id""")
    pax = one(db, f"""SELECT p.id FROM passengers p WHERE {UNIQUE_NAME.format(p='p')}
        AND (SELECT COUNT(*) FROM payment_cards c WHERE c.passenger_id = p.id) = 1
        AND NOT EXISTS (SELECT 1 FROM reservation_passengers rp WHERE rp.passenger_id = p.id)
        ORDER BY p.id""")["id"]
    card = _card(db, pax)
    calls = [_find(db, pax), ["get_passenger", {"passenger_id": pax}],
             ["search_flights", {"origin": flight["origin"], "destination": flight["destination"],
                                 "date": flight["service_date"], "cabin": "economy"}],
             ["create_reservation", {"passenger_ids": [pax], "flight_ids": [flight["id"]],
                                     "cabin": "economy", "fare_family": "standard"}]]
    made = simulate(env, calls)[-1]["reservation"]
    calls += [["add_payment", {"pnr": made["pnr"], "source": card["id"],
                               "amount_cents": made["fare_total_cents"]}],
              ["confirm_reservation", {"pnr": made["pnr"]}]]
    simulate(env, calls)
    prompt = (f"Book {_name(db, pax)} on the first Meridian flight from {flight['origin']} to "
              f"{flight['destination']} on {flight['service_date']}, economy standard fare, one "
              "way. Pay the whole fare with their card on file and make sure it is ticketed.")
    checks = [added("reservations", {"contact_passenger_id": pax, "status": "confirmed",
                                     "cabin": "economy", "fare_family": "standard"}, points=2),
              added("segments", {"flight_id": flight["id"], "seq": 1, "status": "active"}),
              added("payments", {"card_id": card["id"], "purpose": "fare",
                                 "amount_cents": made["fare_total_cents"]}),
              guard("reservations", 1)]
    return record(ENV, n, prompt, calls, checks, made["pnr"], template="book_single")


# ---- long-horizon tasks --------------------------------------------------------------------

def _front_row(db, flight_id: str, cabin: str, need: int) -> tuple[int, list[str]]:
    """The front-most row of a cabin with no seat taken, and its first ``need`` seats."""
    lay, taken = _layout(db, flight_id, cabin), _taken(db, flight_id)
    for row in range(lay["first_row"], lay["last_row"] + 1):
        seats = [f"{row}{letter}" for letter in lay["letters"]]
        if not taken & set(seats):
            return row, seats[:need]
    raise LookupError(f"no free row on {flight_id}")


def _group_booking(env, db, n):
    """Book four people on a round trip, pay, ticket, and seat them together on both flights."""
    pair = one(db, """SELECT o.id AS out_id, b.id AS back_id, r.origin, r.destination,
        o.flight_number AS out_no, o.service_date AS out_day, b.flight_number AS back_no,
        b.service_date AS back_day FROM flights o JOIN routes r ON r.id = o.route_id
        JOIN routes rb ON rb.origin = r.destination AND rb.destination = r.origin
        JOIN flights b ON b.route_id = rb.id AND b.service_date = date(o.service_date, '+4 day')
        WHERE o.status = 'on_time' AND b.status = 'on_time' AND o.scheduled_departure > ?
        AND r.distance_km > 1500 ORDER BY o.scheduled_departure, o.id, b.id""", SOON)
    free = [r["id"] for r in rows(db, f"""SELECT p.id FROM passengers p
        WHERE {UNIQUE_NAME.format(p='p')} AND NOT EXISTS (SELECT 1 FROM reservation_passengers
        rp WHERE rp.passenger_id = p.id) ORDER BY p.member_since DESC, p.id""")]
    payer = next(pid for pid in free if scalar(
        db, "SELECT COUNT(*) FROM payment_cards WHERE passenger_id = ?", pid) == 1)
    group = [payer, *[pid for pid in free if pid != payer][:3]]
    flights = [pair["out_id"], pair["back_id"]]
    calls = [_find(db, pid) for pid in group]
    calls += [["search_flights", {"origin": pair["origin"], "destination": pair["destination"],
                                  "date": pair["out_day"], "cabin": "economy", "passengers": 4}],
              ["search_flights", {"origin": pair["destination"], "destination": pair["origin"],
                                  "date": pair["back_day"], "cabin": "economy", "passengers": 4}],
              ["create_reservation", {"passenger_ids": group, "flight_ids": flights,
                                      "cabin": "economy", "fare_family": "standard"}]]
    made = simulate(env, calls)[-1]["reservation"]
    pnr, card = made["pnr"], _card(db, group[0])
    calls += [["get_passenger", {"passenger_id": group[0]}],
              ["add_payment", {"pnr": pnr, "source": card["id"],
                               "amount_cents": made["fare_total_cents"]}],
              ["confirm_reservation", {"pnr": pnr}]]
    seating = []
    for fid in flights:
        calls.append(["get_seat_map", {"flight_id": fid, "cabin": "economy"}])
        _, seats = _front_row(db, fid, "economy", len(group))
        for pid, seat in zip(group, seats, strict=True):
            calls.append(["assign_seat", {"pnr": pnr, "flight_id": fid, "passenger_id": pid,
                                          "seat": seat}])
            seating.append((fid, seat, pid))
    simulate(env, calls)
    names = [_name(db, pid) for pid in group]
    prompt = (f"Book a round trip in economy on the standard fare for {', '.join(names[:3])} and "
              f"{names[3]}: flight {pair['out_no']} from {pair['origin']} to "
              f"{pair['destination']} on {pair['out_day']} and flight {pair['back_no']} back on "
              f"{pair['back_day']}. {names[0]} is the contact and pays the whole fare with their "
              "card on file; make sure it is ticketed. Then seat the four together on both "
              "flights: in the front-most economy row that is still completely empty, give them "
              "that row's seats in letter order, in the order I listed the travellers.")
    checks = [added("reservations", {"contact_passenger_id": group[0], "status": "confirmed",
                                     "cabin": "economy", "fare_family": "standard"}, points=2)]
    checks += [added("seat_assignments", {"flight_id": fid, "seat": seat, "passenger_id": pid})
               for fid, seat, pid in seating]
    checks += [guard("reservations", 1), guard("seat_assignments", len(seating))]
    return record(ENV, n, prompt, calls, checks, pnr, long=True, template="group_booking")


def _bags_for_all_trips(env, db, n):
    """One extra bag for every traveller on every upcoming trip a contact booked."""
    p = one(db, f"""SELECT p.id FROM passengers p WHERE {UNIQUE_NAME.format(p='p')}
        AND (SELECT COUNT(*) FROM payment_cards c WHERE c.passenger_id = p.id) = 1
        AND (SELECT COUNT(*) FROM reservations r JOIN reservation_passengers rp
             ON rp.pnr = r.pnr WHERE r.contact_passenger_id = p.id AND r.status = 'confirmed'
             AND {FIRST_DEPARTURE.format(r='r')} > ?) >= 9
        AND (SELECT COUNT(*) FROM reservations r WHERE r.contact_passenger_id = p.id
             AND r.status = 'confirmed') >= 3 ORDER BY p.id""", SOON)
    pid, card = p["id"], _card(db, p["id"])
    trips = rows(db, f"""SELECT r.pnr FROM reservations r WHERE r.contact_passenger_id = ?
        AND r.status = 'confirmed' AND {FIRST_DEPARTURE.format(r='r')} > ?
        ORDER BY {FIRST_DEPARTURE.format(r='r')}, r.pnr""", pid, SOON)
    calls = [_find(db, pid), ["get_passenger", {"passenger_id": pid}],
             ["list_reservations", {"passenger_id": pid, "status": "confirmed"}]]
    travellers = []
    for trip in trips:
        calls.append(["get_reservation", {"pnr": trip["pnr"]}])
        for t in rows(db, "SELECT * FROM reservation_passengers WHERE pnr = ? ORDER BY position",
                      trip["pnr"]):
            calls.append(["add_baggage", {"pnr": t["pnr"], "passenger_id": t["passenger_id"],
                                          "bags": 1, "source": card["id"]}])
            travellers.append(t)
    fees = sum(out.get("fee_cents", 0) for name_args, out in zip(calls, simulate(env, calls),
                                                                 strict=True)
               if name_args[0] == "add_baggage")
    prompt = (f"{_name(db, pid)} wants one more checked bag for everybody on every upcoming "
              "confirmed trip they booked (where they are the contact). Add one bag per "
              "traveller per reservation, charge any fees to their card on file, and tell me "
              "the total bag fees in US dollars.")
    checks = [values("reservation_passengers", {"pnr": t["pnr"], "passenger_id": t[
        "passenger_id"]}, {"checked_bags": t["checked_bags"] + 1}) for t in travellers]
    checks += [answer(fees / 100), guard("reservation_passengers", len(travellers))]
    return record(ENV, n, prompt, calls, checks, dollars(fees), long=True,
                  template="bags_for_all_trips")


def _party_bags_and_seats(env, db, n):
    """Bags for a whole party, then seats for everyone still unseated, front to back."""
    for res in rows(db, f"""SELECT r.* FROM reservations r WHERE r.status = 'confirmed'
            AND {FIRST_DEPARTURE.format(r='r')} > ? AND (SELECT COUNT(*) FROM payment_cards c
            WHERE c.passenger_id = r.contact_passenger_id) >= 1
            ORDER BY (SELECT COUNT(*) FROM reservation_passengers x WHERE x.pnr = r.pnr) DESC,
            r.pnr""", SOON):
        party = rows(db, "SELECT * FROM reservation_passengers WHERE pnr = ? ORDER BY position",
                     res["pnr"])
        legs = rows(db, "SELECT flight_id FROM segments WHERE pnr = ? AND status = 'active' "
                    "ORDER BY seq", res["pnr"])
        unseated = [(leg["flight_id"], p["passenger_id"]) for leg in legs for p in party
                    if not scalar(db, "SELECT COUNT(*) FROM seat_assignments WHERE flight_id = ? "
                                  "AND passenger_id = ?", leg["flight_id"], p["passenger_id"])]
        if len(party) + len(unseated) >= 11 and len(unseated) < len(party) * len(legs):
            break
    else:
        raise LookupError("the seed has no situation for this task")
    card = _card(db, res["contact_passenger_id"])
    calls = [["get_reservation", {"pnr": res["pnr"]}],
             ["get_passenger", {"passenger_id": res["contact_passenger_id"]}]]
    calls += [["add_baggage", {"pnr": res["pnr"], "passenger_id": p["passenger_id"], "bags": 1,
                               "source": card["id"]}] for p in party]
    seating = []
    for leg in legs:
        fid = leg["flight_id"]
        calls.append(["get_seat_map", {"flight_id": fid, "cabin": res["cabin"]}])
        free = [s for s in _seats(db, fid, res["cabin"]) if s not in _taken(db, fid)]
        for (flight, pid), seat in zip([u for u in unseated if u[0] == fid], free, strict=False):
            calls.append(["assign_seat", {"pnr": res["pnr"], "flight_id": flight,
                                          "passenger_id": pid, "seat": seat}])
            seating.append((flight, pid, seat))
    outs = simulate(env, calls)
    fees = sum(out["fee_cents"] for out in outs[2:2 + len(party)])
    prompt = (f"Prepare reservation {res['pnr']} for the trip: add one checked bag for every "
              "traveller (charge any fees to the contact's card on file), then give every "
              "traveller who has no seat yet on a flight of the reservation the front-most free "
              "seat of the booked cabin (lowest row, then lowest letter), going through the "
              "travellers in the order they are listed on the reservation, flight by flight. "
              "Tell me the total bag fees in US dollars.")
    checks = [values("reservation_passengers", {"pnr": res["pnr"], "passenger_id": p[
        "passenger_id"]}, {"checked_bags": p["checked_bags"] + 1}) for p in party]
    checks += [values("seat_assignments", {"flight_id": fid, "passenger_id": pid},
                      {"seat": seat}) for fid, pid, seat in seating]
    checks += [answer(fees / 100), guard("reservation_passengers", len(party)),
               guard("seat_assignments", len(seating))]
    return record(ENV, n, prompt, calls, checks, dollars(fees), long=True,
                  template="party_bags_and_seats")


BUILDERS: tuple[Callable, ...] = (
    _seats_left_task, _voucher_balance, _cheapest_day, _window_seat, _cancel_refundable,
    _change_next_day, _bags_for_party, _confirmed_spend, _compensate_party, _priciest_trip,
    _book_single, _group_booking, _bags_for_all_trips, _party_bags_and_seats,
)


def airline_tasks() -> list[TaskRecord]:
    """The airline reference tasks, computed from the template database."""
    env, db = load(ENV)
    try:
        return [build(env, db, n) for n, build in enumerate(BUILDERS, start=1)]
    finally:
        db.close()
