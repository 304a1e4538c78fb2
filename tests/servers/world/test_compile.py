"""Compiling a card: determinism, rules enforced on real data, and the DSL's JSON round trip."""

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.errors import EnvironmentDefinitionError
from agentworld.servers.world.archetypes.lodging import STAY_RESERVATIONS
from agentworld.servers.world.compile import compile_card
from agentworld.servers.world.data import table
from agentworld.servers.world.filters import run_filters
from agentworld.servers.world.spec import Entity, Field, ThemeCard
from agentworld.servers.world.spec_json import archetype_from_json, archetype_to_json


def card(seed=1, region="PT", features=()):
    return ThemeCard(id="test-hotel", title="Test Hotels", description="A hotel desk.",
                     l1="Travel & Transportation", l2="Lodging", l3="Hotel reservations",
                     archetype="stay_reservations", features=features, region=region, seed=seed)


def env_for(c):
    return Environment(compile_card(c, STAY_RESERVATIONS).definition)


def test_same_card_same_template_and_replay():
    a, b = env_for(card()), env_for(card())
    assert a.template.hash == b.template.hash and a.content_hash == b.content_hash
    calls = [("search_rooms", {"limit": 3}), ("cancel_reservation", {"id": "res_000002"}),
             ("create_guest", {"full_name": "Ana Costa", "email": "ana@example.pt",
                               "loyalty_tier": "gold"})]
    runs = []
    for env in (a, b):
        s = Session(env, seed=4)
        runs.append(([s.call(n, x).payload() for n, x in calls], s.hash()))
    assert runs[0] == runs[1]


def test_region_and_seed_change_the_data():
    assert env_for(card(region="JP")).template.hash != env_for(card()).template.hash
    assert env_for(card(seed=2)).template.hash != env_for(card()).template.hash


def test_seeded_cities_are_real_places_of_the_region():
    s = Session(env_for(card(region="JP")))
    cities = {r[0] for r in s.db.execute("SELECT city FROM properties")}
    japanese = {row["name"] for row in table("cities") if row["country"] == "JP"}
    assert cities and cities <= japanese


def test_overlapping_booking_is_refused_and_changes_nothing():
    env = env_for(card())
    s = Session(env)
    live = s.db.execute("SELECT room_id, check_in, check_out FROM reservations WHERE status = "
                        "'confirmed' LIMIT 1").fetchone()
    before = s.hash()
    result = s.call("create_reservation", {"room_id": live[0], "guest_id": "gue_000001",
                                           "check_in": live[1], "check_out": live[2],
                                           "guests_count": 1})
    assert result.code == "CONFLICT" and s.hash() == before


def test_lifecycle_moves_and_stamps():
    s = Session(env_for(card()))
    confirmed = s.db.execute("SELECT id FROM reservations WHERE status = 'confirmed' "
                             "LIMIT 1").fetchone()[0]
    moved = s.call("check_in_reservation", {"id": confirmed})
    assert moved.ok and moved.data["reservation"]["status"] == "checked_in"
    assert moved.data["reservation"]["checked_in_on"] == "2026-03-02"
    assert s.call("check_in_reservation", {"id": confirmed}).code == "PRECONDITION_FAILED"


def test_filters_pass_for_the_example_archetype():
    report = run_filters(compile_card(card(), STAY_RESERVATIONS))
    assert report.passed, report.problems
    assert report.tools >= 10 and report.rules >= 5


def test_json_round_trip_is_exact():
    assert archetype_from_json(archetype_to_json(STAY_RESERVATIONS)) == STAY_RESERVATIONS


@pytest.mark.parametrize("bad_field", [Field("status", "text"), Field("query", "int")])
def test_reserved_field_names_are_refused(bad_field):
    broken = STAY_RESERVATIONS.__class__(**{
        **STAY_RESERVATIONS.__dict__,
        "entities": (Entity("thing", "things", label="status", fields=(bad_field,)),)})
    with pytest.raises(EnvironmentDefinitionError, match="reserved"):
        compile_card(card(), broken)
