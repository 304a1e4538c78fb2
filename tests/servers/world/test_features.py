"""Feature modules on the lodging archetype: each alone and all together pass the three filters,
and each behaves as its rules say."""

from __future__ import annotations

import dataclasses
import random
import sqlite3

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.world.archetypes.lodging import STAY_RESERVATIONS
from agentworld.servers.world.compile import compile_card
from agentworld.servers.world.data import table
from agentworld.servers.world.features import FEATURES
from agentworld.servers.world.features._base import seed_people, target
from agentworld.servers.world.features.attachments import MAX_BYTES
from agentworld.servers.world.features.geo import great_circle_km
from agentworld.servers.world.filters import run_filters
from agentworld.servers.world.spec import ThemeCard

ALL = ("comments", "tags", "attachments", "sharing", "notifications", "payments", "scheduling",
       "inventory", "reviews", "search", "audit_log", "currency", "holidays", "geo")


def _card(features: tuple[str, ...], region: str = "PT", seed: int = 7) -> ThemeCard:
    return ThemeCard(id=f"lodging-{'-'.join(features) or 'plain'}", title="Harbor Hotels",
                     description="A hotel chain's reservation desk.", l1="Travel & Transportation",
                     l2="Lodging", l3="Hotel chain reservations", archetype=STAY_RESERVATIONS.id,
                     features=features, region=region, seed=seed)


def test_registry_holds_every_feature():
    assert sorted(FEATURES) == sorted(ALL)
    for name, feature in FEATURES.items():
        assert feature.name == name
        assert isinstance(feature.sources, frozenset)


@pytest.mark.parametrize("feature", ALL)
def test_each_feature_alone_passes_the_filters(feature):
    report = run_filters(compile_card(_card((feature,)), STAY_RESERVATIONS))
    assert report.problems == []
    assert report.passed


@pytest.mark.parametrize("region,people", [("PT", True), ("IL", False)])
def test_all_features_together_pass_the_filters(region, people):
    archetype = STAY_RESERVATIONS if people else dataclasses.replace(STAY_RESERVATIONS, people="")
    compiled = compile_card(_card(ALL, region), archetype)
    report = run_filters(compiled)
    assert report.problems == []
    assert report.passed
    assert report.tools >= 22 + 14 * 2
    tags = compiled.definition.manifest.tags
    assert all(f"feature:{f}" in tags for f in ALL)
    names = {d.name for d in compiled.definition.manifest.data_sources}
    assert len(names) >= 4  # people, cities, holidays, rates


def test_generated_people_are_distinct():
    archetype = dataclasses.replace(STAY_RESERVATIONS, people="")
    t = target(archetype, {e.name: e.plural for e in archetype.entities})
    names = seed_people(sqlite3.connect(":memory:"), t, random.Random(3), 300)
    assert len(names) == len(set(names)) > 100


def test_applies_reflects_the_archetype():
    assert FEATURES["comments"].applies(STAY_RESERVATIONS)
    assert FEATURES["payments"].applies(STAY_RESERVATIONS)
    # A reservation is itself a booking, not a resource with slots or stock.
    assert not FEATURES["scheduling"].applies(STAY_RESERVATIONS)
    assert not FEATURES["inventory"].applies(STAY_RESERVATIONS)


# --- behaviour, on one environment with every feature -------------------------------------


@pytest.fixture(scope="module")
def env():
    return Environment(compile_card(_card(ALL), STAY_RESERVATIONS).definition).warm()


@pytest.fixture()
def session(env):
    s = Session(env, seed=1)
    yield s
    s.close()


def _one(session, sql, params=()):
    row = session.db.execute(sql, params).fetchone()
    return None if row is None else dict(row)


def _ok(session, tool, args):
    result = session.call(tool, args)
    assert result.ok, result.error
    return result.data


def _refused(session, tool, args, code):
    before = session.hash()
    result = session.call(tool, args)
    assert result.code == code, result
    assert session.hash() == before
    return result


def test_comments_refused_when_blank_or_thread_closed(session):
    guest = _one(session, "SELECT id FROM guests ORDER BY id")["id"]
    open_ = _one(session, "SELECT id FROM reservations WHERE status = 'confirmed' ORDER BY id")
    done = _one(session, "SELECT id FROM reservations WHERE status = 'cancelled' ORDER BY id")
    _refused(session, "add_comment", {"reservation_id": open_["id"], "author_id": guest,
                                      "body": "  "}, "VALIDATION_ERROR")
    _refused(session, "add_comment", {"reservation_id": done["id"], "author_id": guest,
                                      "body": "Hello"}, "PRECONDITION_FAILED")
    added = _ok(session, "add_comment", {"reservation_id": open_["id"], "author_id": guest,
                                         "body": "Late arrival, around 23:00."})["comment"]
    listed = _ok(session, "list_comments", {"reservation_id": open_["id"], "limit": 100})
    assert added["id"] in [c["id"] for c in listed["comments"]]
    other = _one(session, "SELECT id FROM guests WHERE id <> ? ORDER BY id", (guest,))["id"]
    _refused(session, "delete_comment", {"id": added["id"], "author_id": other}, "FORBIDDEN")


def test_tags_unique_ignoring_case_and_capped(session):
    full = _one(session, "SELECT reservation_id AS id FROM reservation_tags GROUP BY "
                         "reservation_id HAVING COUNT(*) = 10")["id"]
    _refused(session, "tag_item", {"reservation_id": full, "tag": "brand-new"}, "LIMIT_EXCEEDED")
    some = _one(session, "SELECT * FROM reservation_tags WHERE reservation_id <> ? ORDER BY id",
                (full,))
    _refused(session, "tag_item", {"reservation_id": some["reservation_id"],
                                   "tag": some["tag"].upper()}, "CONFLICT")
    _ok(session, "untag_item", {"reservation_id": some["reservation_id"],
                                "tag": some["tag"].upper()})
    assert some["tag"] not in _ok(session, "list_tags",
                                  {"reservation_id": some["reservation_id"]})["tags"]


def test_attachments_size_and_duplicate_name(session):
    row = _one(session, "SELECT * FROM reservation_attachments ORDER BY id")
    args = {"reservation_id": row["reservation_id"], "filename": "big.pdf",
            "content_type": "application/pdf", "size_bytes": MAX_BYTES + 1,
            "uploaded_by_id": row["uploaded_by_id"]}
    _refused(session, "attach_file", args, "VALIDATION_ERROR")
    _refused(session, "attach_file", {**args, "content_type": "application/x-msdownload",
                                      "size_bytes": 10}, "VALIDATION_ERROR")
    _refused(session, "attach_file", {**args, "filename": row["filename"], "size_bytes": 10},
             "CONFLICT")
    assert _ok(session, "attach_file", {**args, "size_bytes": MAX_BYTES})["attachment"]


def test_sharing_only_by_owner_and_owner_kept(session):
    share = _one(session, "SELECT g.reservation_id, g.grantee_id, o.grantee_id AS owner FROM "
                          "reservation_shares g JOIN reservation_shares o ON o.reservation_id = "
                          "g.reservation_id AND o.role = 'owner' WHERE g.role <> 'owner' "
                          "ORDER BY g.id")
    rid, grantee, owner = share["reservation_id"], share["grantee_id"], share["owner"]
    guest = _one(session, "SELECT guest_id FROM reservations WHERE id = ?", (rid,))["guest_id"]
    assert owner == guest  # a reservation is owned by its guest
    _refused(session, "revoke_share", {"reservation_id": rid, "grantee_id": grantee,
                                       "requested_by_id": grantee}, "FORBIDDEN")
    _refused(session, "revoke_share", {"reservation_id": rid, "grantee_id": owner,
                                       "requested_by_id": owner}, "PRECONDITION_FAILED")
    _ok(session, "revoke_share", {"reservation_id": rid, "grantee_id": grantee,
                                  "requested_by_id": owner})
    shares = _ok(session, "list_shares", {"reservation_id": rid})
    assert shares["owner"] == owner and grantee not in [s["grantee_id"]
                                                        for s in shares["shares"]]


def test_notifications_follow_transitions_and_read_once(session):
    held = _one(session, "SELECT * FROM reservations WHERE status = 'held' ORDER BY id")
    _ok(session, "confirm_reservation", {"id": held["id"]})
    unread = _ok(session, "list_notifications", {"reservation_id": held["id"],
                                                 "unread_only": True})["notifications"]
    latest = unread[0]
    assert latest["kind"] == "status_changed" and "confirmed" in latest["message"]
    assert latest["recipient"] == held["guest_id"]
    _ok(session, "mark_notification_read", {"id": latest["id"]})
    _refused(session, "mark_notification_read", {"id": latest["id"]}, "CONFLICT")


def test_refund_never_exceeds_payment(session):
    rid = _one(session, "SELECT id FROM reservations ORDER BY id")["id"]
    paid = _ok(session, "record_payment", {"reservation_id": rid, "amount": 10_000,
                                           "method": "card"})["payment"]
    assert paid["currency"] == "EUR" and paid["amount_local"] == 10_000
    _ok(session, "refund_payment", {"payment_id": paid["id"], "amount": 6_000,
                                    "reason": "customer_request"})
    _refused(session, "refund_payment", {"payment_id": paid["id"], "amount": 4_001,
                                         "reason": "customer_request"}, "LIMIT_EXCEEDED")
    left = _ok(session, "refund_payment", {"payment_id": paid["id"], "amount": 4_000,
                                           "reason": "cancellation"})["payment"]
    assert left["refunded"] == 10_000 and left["refundable"] == 0
    usd = _ok(session, "record_payment", {"reservation_id": rid, "amount": 11_805,
                                          "currency": "USD", "method": "card"})["payment"]
    assert usd["amount_local"] == 10_000  # 1 EUR = 1.1805 USD on 2026-02-27
    _refused(session, "record_payment", {"reservation_id": rid, "amount": 100,
                                         "currency": "XTS", "method": "cash"},
             "VALIDATION_ERROR")


def test_scheduling_taken_past_and_holiday_slots():
    archetype = dataclasses.replace(STAY_RESERVATIONS, primary="room")
    env = Environment(compile_card(_card(("scheduling", "inventory")), archetype)
                      .definition).warm()
    session = Session(env)
    try:
        guest = _one(session, "SELECT id FROM guests ORDER BY id")["id"]
        taken = _one(session, "SELECT id FROM room_slots WHERE status = 'booked' AND slot_date "
                              "> '2026-03-02' ORDER BY id")
        _refused(session, "book_slot", {"slot_id": taken["id"], "booked_by_id": guest},
                 "CONFLICT")
        past = _one(session, "SELECT id FROM room_slots WHERE status = 'open' AND slot_date < "
                             "'2026-03-02' ORDER BY id")
        _refused(session, "book_slot", {"slot_id": past["id"], "booked_by_id": guest},
                 "PRECONDITION_FAILED")
        holiday = _one(session, "SELECT s.id FROM room_slots s WHERE s.slot_date = '2026-04-03'")
        _refused(session, "book_slot", {"slot_id": holiday["id"], "booked_by_id": guest},
                 "PRECONDITION_FAILED")  # Good Friday in Portugal
        free = _one(session, "SELECT id FROM room_slots WHERE status = 'open' AND slot_date > "
                             "'2026-03-02' AND slot_date <> '2026-04-03' ORDER BY id")
        booked = _ok(session, "book_slot", {"slot_id": free["id"], "booked_by_id": guest})
        assert booked["slot"]["status"] == "booked"
        _refused(session, "book_slot", {"slot_id": free["id"], "booked_by_id": guest},
                 "CONFLICT")
        assert _ok(session, "cancel_slot", {"slot_id": free["id"]})["slot"]["status"] == "open"

        stock = _one(session, "SELECT * FROM room_stock ORDER BY id")
        _refused(session, "adjust_stock", {"room_id": stock["room_id"],
                                           "delta": -(stock["on_hand"] + 1), "reason": "sold"},
                 "CONFLICT")
        _refused(session, "adjust_stock", {"room_id": stock["room_id"], "delta": 2,
                                           "reason": "damaged"}, "VALIDATION_ERROR")
        after = _ok(session, "adjust_stock", {"room_id": stock["room_id"], "delta": 7,
                                              "reason": "received"})
        assert after["stock"]["on_hand"] == stock["on_hand"] + 7
        assert after["movement"]["balance_after"] == stock["on_hand"] + 7
    finally:
        session.close()


def test_reviews_one_per_author(session):
    review = _one(session, "SELECT * FROM reservation_reviews ORDER BY id")
    _refused(session, "add_review", {"reservation_id": review["reservation_id"],
                                     "author_id": review["author_id"], "rating": 5,
                                     "title": "Again"}, "CONFLICT")
    _refused(session, "add_review", {"reservation_id": review["reservation_id"],
                                     "author_id": review["author_id"], "rating": 0,
                                     "title": "Zero"}, "VALIDATION_ERROR")
    summary = _ok(session, "get_rating_summary", {"reservation_id": review["reservation_id"]})
    assert summary["reviews"] == sum(summary["stars"].values()) >= 1


def test_search_everything_spans_entities(session):
    code = _one(session, "SELECT confirmation_code FROM reservations ORDER BY id")
    hits = _ok(session, "search_everything", {"query": code["confirmation_code"].lower()})
    assert hits["hits"][0]["entity"] == "reservation"
    city = _one(session, "SELECT name FROM properties ORDER BY id")["name"]
    assert _ok(session, "search_everything", {"query": city, "entity": "property"})["total"] >= 1
    _refused(session, "search_everything", {"query": "ab", "cursor": "nope"}, "VALIDATION_ERROR")


def test_audit_events_recorded_and_immutable(session):
    held = _one(session, "SELECT id FROM reservations WHERE status = 'held' ORDER BY id")["id"]
    _ok(session, "confirm_reservation", {"id": held})
    events = _ok(session, "list_audit_events", {"table_name": "reservations",
                                                "row_id": held})["events"]
    assert events[0]["action"] == "confirm"
    assert events[0]["snapshot"]["status"] == "confirmed"
    with pytest.raises(Exception, match="immutable"):
        session.db.execute("UPDATE audit_events SET action = 'x'")
    assert not [t for t in session.env.tools.names() if "audit" in t and
                not t.startswith(("list_", "get_"))]


def test_currency_conversion_uses_ecb_rates(session):
    usd = next(float(r["per_eur"]) for r in table("rates") if r["currency"] == "USD")
    out = _ok(session, "convert_amount", {"amount": 100, "from_currency": "EUR",
                                          "to_currency": "USD"})
    assert out["rate"] == usd and out["converted"] == round(100 * usd, 2)
    assert out["as_of"] == "2026-02-27"
    jpy = _ok(session, "convert_amount", {"amount": 10, "from_currency": "USD",
                                          "to_currency": "JPY"})
    assert isinstance(jpy["converted"], int)
    _refused(session, "convert_amount", {"amount": 1, "from_currency": "EUR",
                                         "to_currency": "XTS"}, "NOT_FOUND")
    rates = _ok(session, "list_rates", {"base": "USD"})["rates"]
    assert "RUB" not in {r["currency"] for r in rates}  # not fixed by the ECB since 2022


def test_holidays_and_business_days(session):
    april = _ok(session, "list_holidays", {"month": 4})["holidays"]
    assert "2026-04-03" in [h["date"] for h in april]  # Good Friday
    assert not _ok(session, "is_business_day", {"date": "2026-04-03"})["business_day"]
    assert _ok(session, "is_business_day", {"date": "2026-03-02"})["business_day"]
    nxt = _ok(session, "next_business_day", {"date": "2026-04-02"})
    assert nxt["next_business_day"] == "2026-04-06"  # Fri holiday, then the weekend
    assert [d["date"] for d in nxt["skipped"]] == ["2026-04-03", "2026-04-04", "2026-04-05"]
    _refused(session, "is_business_day", {"date": "2027-01-04"}, "VALIDATION_ERROR")


def test_geo_lookup_and_distance(session):
    lisbon = _ok(session, "lookup_city", {"name": "lisbon"})["city"]
    porto = _ok(session, "lookup_city", {"name": "PORTO"})["city"]
    assert lisbon["timezone"] == "Europe/Lisbon"
    km = _ok(session, "distance_between_cities", {"from_city": "Lisbon",
                                                  "to_city": "Porto"})["km"]
    assert 270 < km < 280
    assert km == round(great_circle_km(lisbon["lat"], lisbon["lon"], porto["lat"],
                                       porto["lon"]), 1)
    _refused(session, "lookup_city", {"name": "Atlantis"}, "NOT_FOUND")
