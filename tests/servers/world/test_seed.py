"""Seeded data a domain expert would believe: the data audit finds nothing in environments of
the archetypes the issue named, ids never share a prefix, people never hold two roles, feature
modules speak the domain, and generated sentences read as a person would write them."""

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.world.archetypes.clinical_trials import LAB_ORDERS
from agentworld.servers.world.archetypes.streaming import MUSIC_DISTRIBUTION
from agentworld.servers.world.cards import load_archetypes
from agentworld.servers.world.compile import compile_card
from agentworld.servers.world.describe import a_an, describe_field
from agentworld.servers.world.entity_schema import id_prefix
from agentworld.servers.world.features import FEATURES
from agentworld.servers.world.features.vocab import domain_vocab
from agentworld.servers.world.spec import Field, ThemeCard

_SAMPLE = ("underwriting_decisions", "dao_governance", "package_registry", "lab_test_orders",
           "music_distribution", "stay_reservations", "clinic_appointments",
           "retail_bank_accounts", "exam_sittings")


def _card(archetype, region="GB", seed=5, features=None):
    usable = tuple(f for f in archetype.features if FEATURES[f].applies(archetype))
    return ThemeCard(id=f"test-{archetype.id}", title=archetype.title, description="test",
                     l1="Test", l2=archetype.l2, l3=archetype.title, archetype=archetype.id,
                     features=usable if features is None else features, region=region,
                     seed=seed)


def test_no_two_tables_of_an_archetype_share_an_id_prefix():
    for archetype in load_archetypes().values():
        prefixes = [id_prefix(e) for e in archetype.entities]
        assert len(prefixes) == len(set(prefixes)), (archetype.id, prefixes)
        assert all(len(p) == 3 and p.isalpha() for p in prefixes), prefixes


@pytest.mark.parametrize("archetype_id", [a for a in _SAMPLE if a in load_archetypes()])
def test_the_data_audit_finds_nothing(archetype_id):
    from agentworld.servers.world.data_audit import audit_compiled

    archetype = load_archetypes()[archetype_id]
    findings = audit_compiled(compile_card(_card(archetype), archetype))
    assert not findings, [f"{f.table} {f.row} [{f.rule}] {f.message}" for f in findings[:10]]


def test_a_requisitions_patient_is_never_its_ordering_clinician():
    s = Session(Environment(compile_card(_card(LAB_ORDERS, features=()), LAB_ORDERS).definition))
    same = s.db.execute("SELECT COUNT(*) FROM requisitions WHERE patient_name = "
                        "ordering_clinician").fetchone()[0]
    clinicians = {r[0] for r in s.db.execute("SELECT ordering_clinician FROM requisitions")}
    patients = {r[0] for r in s.db.execute("SELECT patient_name FROM requisitions")}
    assert same == 0 and not clinicians & patients


def test_lab_tests_run_on_their_own_specimen_and_reasons_match_their_code():
    s = Session(Environment(compile_card(_card(LAB_ORDERS, features=()), LAB_ORDERS).definition))
    tests = s.db.execute("SELECT test_name, specimen_type, loinc_code FROM lab_tests").fetchall()
    assert {name for name, _, _ in tests if "Urin" in name} <= {
        name for name, specimen, _ in tests if specimen == "urine"}
    assert len({code for _, _, code in tests}) == len(tests)
    from agentworld.servers.world.data import table

    reasons = {(r["note"], r["icd10"]) for r in table("clinical_reasons")}
    pairs = {tuple(r) for r in s.db.execute("SELECT clinical_notes, icd10_code FROM "
                                             "requisitions")}
    assert pairs <= reasons


def test_feature_modules_speak_the_domain():
    music = domain_vocab(MUSIC_DISTRIBUTION)
    hotel_words = ("late-arrival", "id-scan", "repeat-customer", "group")
    assert not any(w in " ".join(music.tags + music.attachments) for w in hotel_words)
    for archetype in load_archetypes().values():
        if archetype.id in ("stay_reservations",):
            continue
        words = domain_vocab(archetype)
        assert not {"late-arrival", "vip"} & set(words.tags), archetype.id
        assert "id-scan.jpg" not in words.attachments, archetype.id
        assert len(words.tags) >= 12 and words.attachments and words.comments


@pytest.mark.parametrize("noun,expected", [("application", "an application"),
                                           ("user", "a user"), ("hour", "an hour"),
                                           ("usage_request", "a usage request"),
                                           ("booking", "a booking"), ("issue", "an issue"),
                                           ("one_time_code", "a one time code")])
def test_articles_agree_with_the_noun(noun, expected):
    assert a_an(noun) == expected


def test_argument_descriptions_say_meaning_format_and_example():
    cases = [Field("list_price", "money", min=500, max=40_000),
             Field("expires_on", "date"), Field("voting_power", "int", min=1, max=250_000),
             Field("customer_id", "ref", ref="customer"), Field("version", "text",
                                                                format="semver")]
    for f in cases:
        text = describe_field(f, noun="package", currency="EUR")
        assert "e.g." in text or "search" in text, text
        said = set(text.lower().replace(",", " ").replace(".", " ").split())
        assert said - set(f.name.split("_")) - {"the", "of", "a", "an"}, text
    assert "EUR" in describe_field(cases[0], noun="lab test", currency="EUR")
    assert "YYYY-MM-DD" in describe_field(cases[1], noun="token")
