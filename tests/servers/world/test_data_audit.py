"""The data audit's checks, each on a tiny archetype in a real SQLite file: a seeded violation
that it finds, and a clean case that it leaves alone."""

from __future__ import annotations

from agentworld.servers.world.data_audit import (
    ToolText,
    audit_subject,
    dates,
    english,
    groups,
    lab,
    people,
    values,
)
from agentworld.servers.world.spec import (
    Capacity,
    DateOrder,
    Entity,
    Field,
    Lifecycle,
    Transition,
)

from ._audit_fixture import archetype, rules_of, subject

# --- dates -------------------------------------------------------------------------------------

_EVENT = Entity("event", "events", label="title", fields=(
    Field("title", "text"),
    Field("starts_on", "date"),
    Field("ends_on", "date"),
    Field("window_start", "date"),
    Field("window_end", "date"),
    Field("received_on", "date"),
    Field("closed_on", "date", required=False),
    Field("due_on", "date"),
), lifecycle=Lifecycle(states=("open", "closed"), initial="open", transitions=(
    Transition("close", ("open",), "closed", "Close it.", stamp="closed_on"),)),
    constraints=(DateOrder("starts_on", "ends_on"),))

_GOOD_EVENT = {"title": "Spring fair", "starts_on": "2026-02-01", "ends_on": "2026-02-03",
               "window_start": "2026-01-20", "window_end": "2026-01-25",
               "received_on": "2026-01-10", "closed_on": "2026-01-12", "due_on": "2026-06-01",
               "status": "closed"}


def _events(tmp_path, *rows):
    return subject(tmp_path, archetype(_EVENT), {"events": [
        {"id": f"eve_{i:06d}", **_GOOD_EVENT, **row} for i, row in enumerate(rows, 1)]})


def test_date_order_finds_declared_named_and_stamp_violations(tmp_path):
    s = _events(tmp_path,
                {"starts_on": "2026-02-05", "ends_on": "2026-02-01"},        # declared order
                {"window_start": "2026-01-26"},                              # named pair
                {"created_at": "2026-01-13T10:00:00Z"},                      # created > updated
                {"closed_on": "2026-01-05"},                                 # stamp before created
                {"received_on": "2026-01-11"},                               # intake after created
                {})                                                          # clean
    found = list(dates.date_order(s))
    rows = sorted({f.row for f in found})
    assert rows == ["eve_000001", "eve_000002", "eve_000003", "eve_000004", "eve_000005"]
    assert any("declared order" in f.message for f in found if f.row == "eve_000001")
    assert any("window_start" in f.message for f in found if f.row == "eve_000002")


def test_after_clock_flags_done_things_in_the_future_but_not_due_dates(tmp_path):
    s = _events(tmp_path, {"closed_on": "2026-03-05", "updated_at": "2026-03-06T10:00:00Z"},
                {"due_on": "2026-09-01"})
    found = list(dates.after_clock(s))
    assert {(f.row, f.message.split()[0]) for f in found} == {
        ("eve_000001", "closed_on"), ("eve_000001", "updated_at")}


def test_after_clock_lets_a_planned_row_carry_its_planned_date(tmp_path):
    stay = Entity("stay", "stays", label="ward", fields=(
        Field("ward", "text"), Field("admitted_on", "date")),
        lifecycle=Lifecycle(states=("pre_admitted", "admitted"), initial="pre_admitted",
                            transitions=()))
    s = subject(tmp_path, archetype(stay), {"stays": [
        {"id": "sta_000001", "ward": "4A", "admitted_on": "2026-03-20", "status": "admitted"},
        {"id": "sta_000002", "ward": "4A", "admitted_on": "2026-03-20",
         "status": "pre_admitted"}]})
    assert rules_of(dates.after_clock(s)) == [("stays", "sta_000001", "after_clock")]


def test_child_before_parent(tmp_path):
    comment = Entity("comment", "comments", label="body", fields=(
        Field("event_id", "ref", ref="event"), Field("body", "text")))
    s = subject(tmp_path, archetype(_EVENT, comment), {
        "events": [{"id": "eve_000001", **_GOOD_EVENT}],
        "comments": [{"id": "com_000001", "event_id": "eve_000001", "body": "Early.",
                      "created_at": "2026-01-01T10:00:00Z"},
                     {"id": "com_000002", "event_id": "eve_000001", "body": "On time.",
                      "created_at": "2026-01-11T10:00:00Z"}]})
    assert rules_of(dates.child_before_parent(s)) == [
        ("comments", "com_000001", "child_before_parent")]


_PROPOSAL = Entity("proposal", "proposals", label="title", fields=(
    Field("title", "text"),
    Field("voting_starts", "date"),
    Field("voting_ends", "date"),
    Field("expires_on", "date"),
    Field("publish_date", "date"),
    Field("executed_on", "date", required=False),
), lifecycle=Lifecycle(
    states=("scheduled", "voting", "closed", "expired", "active", "printed", "executed"),
    initial="scheduled", transitions=(
        Transition("execute", ("closed",), "executed", "Execute it.", stamp="executed_on"),)))


def test_state_date_finds_states_their_dates_contradict(tmp_path):
    base = {"title": "Fund the bridge", "voting_starts": "2026-02-01",
            "voting_ends": "2026-02-10", "expires_on": "2026-12-31",
            "publish_date": "2026-01-01", "executed_on": None}
    cases = [
        ("expired", {}),                                          # expiry still ahead
        ("scheduled", {"voting_starts": "2026-01-01"}),           # should have started
        ("voting", {}),                                           # vote ended 2026-02-10
        ("printed", {"publish_date": "2026-04-01"}),              # printed before publication
        ("active", {"expires_on": "2026-01-01", "voting_ends": "2026-05-01"}),  # expired
        ("closed", {"executed_on": "2026-02-20"}),                # stamp of a state never reached
        ("executed", {}),                                         # stamp missing
        ("closed", {"voting_ends": "2026-02-10"}),                # clean
        ("scheduled", {"voting_starts": "2026-04-01", "voting_ends": "2026-04-09",
                       "publish_date": "2026-04-01"}),                          # clean
    ]
    rows = [{"id": f"pro_{i:06d}", **base, **change, "status": status}
            for i, (status, change) in enumerate(cases, 1)]
    s = subject(tmp_path, archetype(_PROPOSAL), {"proposals": rows})
    flagged = {f.row for f in dates.state_date(s)}
    assert flagged == {f"pro_{i:06d}" for i in range(1, 8)}


# --- people ------------------------------------------------------------------------------------

_MEMBER = Entity("member", "members", label="full_name", fields=(Field("full_name", "name"),))
_MESSAGE = Entity("message", "messages", label="subject", fields=(
    Field("subject", "text"),
    Field("sender_id", "ref", ref="member"),
    Field("recipient_id", "ref", ref="member"),
    Field("courier", "name"),
))


def _mail(tmp_path, *messages, **extra):
    members = [{"id": "mem_000001", "full_name": "Ana Silva"},
               {"id": "mem_000002", "full_name": "Kenji Tanaka"},
               {"id": "mem_000003", "full_name": "Lena Vogel"}]
    return subject(tmp_path, archetype(_MEMBER, _MESSAGE, people="member", **extra), {
        "members": members,
        "messages": [{"id": f"mes_{i:06d}", "subject": "Hello", **m}
                     for i, m in enumerate(messages, 1)]})


def test_same_person_finds_one_person_in_two_roles_of_a_row(tmp_path):
    s = _mail(tmp_path,
              {"sender_id": "mem_000001", "recipient_id": "mem_000001", "courier": "Omar Haddad"},
              {"sender_id": "mem_000001", "recipient_id": "mem_000002", "courier": "Kenji Tanaka"},
              {"sender_id": "mem_000001", "recipient_id": "mem_000002", "courier": "Omar Haddad"})
    found = list(people.same_person(s))
    assert [f.row for f in found] == ["mes_000001", "mes_000002"]
    assert "sender_id and recipient_id" in found[0].message


def test_same_person_respects_the_archetypes_declaration(tmp_path):
    s = _mail(tmp_path,
              {"sender_id": "mem_000001", "recipient_id": "mem_000001", "courier": "Omar Haddad"},
              same_person=(("message.sender_id", "message.recipient_id"),))
    assert list(people.same_person(s)) == []


def test_person_two_roles_finds_a_person_reused_across_roles(tmp_path):
    s = _mail(tmp_path,
              {"sender_id": "mem_000001", "recipient_id": "mem_000002", "courier": "Lena Vogel"},
              {"sender_id": "mem_000001", "recipient_id": "mem_000002", "courier": "Omar Haddad"})
    found = rules_of(people.person_two_roles(s))
    assert found == [("members", "mem_000003", "person_two_roles"),
                     ("messages", "mes_000001", "person_two_roles")]


def test_membership_finds_a_vote_outside_the_voters_group(tmp_path):
    dao = Entity("dao", "daos", label="name", fields=(Field("name", "text"),))
    member = Entity("member", "members", label="full_name", fields=(
        Field("full_name", "name"), Field("dao_id", "ref", ref="dao")))
    proposal = Entity("proposal", "proposals", label="title", fields=(
        Field("title", "text"), Field("dao_id", "ref", ref="dao")))
    vote = Entity("vote", "votes", label="choice", fields=(
        Field("member_id", "ref", ref="member"), Field("proposal_id", "ref", ref="proposal"),
        Field("choice", "text")))
    transfer = Entity("transfer", "transfers", label="memo", fields=(
        Field("from_member_id", "ref", ref="member"), Field("to_member_id", "ref", ref="member"),
        Field("memo", "text")))
    s = subject(tmp_path, archetype(dao, member, proposal, vote, transfer), {
        "daos": [{"id": "dao_000001", "name": "Alpha"}, {"id": "dao_000002", "name": "Beta"}],
        "members": [{"id": "mem_000001", "full_name": "Ana Silva", "dao_id": "dao_000001"},
                    {"id": "mem_000002", "full_name": "Kenji Tanaka", "dao_id": "dao_000002"}],
        "proposals": [{"id": "pro_000001", "title": "Fund it", "dao_id": "dao_000001"}],
        "votes": [{"id": "vot_000001", "member_id": "mem_000002", "proposal_id": "pro_000001",
                   "choice": "for"},
                  {"id": "vot_000002", "member_id": "mem_000001", "proposal_id": "pro_000001",
                   "choice": "for"}],
        "transfers": [{"id": "tra_000001", "from_member_id": "mem_000001",
                       "to_member_id": "mem_000002", "memo": "Dues"}]})
    found = list(groups.membership(s))
    assert rules_of(found) == [("votes", "vot_000001", "membership")]
    assert found[0].message == ("member_id.dao_id is dao_000002 but proposal_id.dao_id is "
                                "dao_000001 (both daos)")


def test_membership_checks_the_paths_an_entity_declares(tmp_path):
    from agentworld.servers.world.spec import SameGroup

    dao = Entity("dao", "daos", label="name", fields=(Field("name", "text"),))
    member = Entity("member", "members", label="full_name", fields=(
        Field("full_name", "name"), Field("dao_id", "ref", ref="dao")))
    proposal = Entity("proposal", "proposals", label="title", fields=(
        Field("title", "text"), Field("dao_id", "ref", ref="dao"),
        Field("proposer_id", "ref", ref="member")),
        constraints=(SameGroup("proposer_id.dao_id", "dao_id", noun="DAO"),))
    s = subject(tmp_path, archetype(dao, member, proposal), {
        "daos": [{"id": "dao_000001", "name": "Alpha"}, {"id": "dao_000002", "name": "Beta"}],
        "members": [{"id": "mem_000001", "full_name": "Ana Silva", "dao_id": "dao_000001"}],
        "proposals": [{"id": "pro_000001", "title": "A", "dao_id": "dao_000002",
                       "proposer_id": "mem_000001"},
                      {"id": "pro_000002", "title": "B", "dao_id": "dao_000001",
                       "proposer_id": "mem_000001"}]})
    found = list(groups.membership(s))
    assert rules_of(found) == [("proposals", "pro_000001", "membership")]


# --- values ------------------------------------------------------------------------------------

def test_id_prefix_finds_two_tables_sharing_a_prefix(tmp_path):
    package = Entity("package", "packages", label="name", fields=(Field("name", "text"),))
    version = Entity("package_version", "package_versions", label="version", fields=(
        Field("package_id", "ref", ref="package"), Field("version", "text")))
    arch = archetype(package, version)
    clash = subject(tmp_path, arch, {
        "packages": [{"id": "pac_000001", "name": "left-pad"}],
        "package_versions": [{"id": "pac_000002", "package_id": "pac_000001",
                              "version": "1.0.0"}]})
    assert rules_of(values.id_prefix(clash)) == [("package_versions", "pac_000002", "id_prefix")]
    (tmp_path / "clean").mkdir()
    clean = subject(tmp_path / "clean", arch, {
        "packages": [{"id": "pac_000001", "name": "left-pad"}],
        "package_versions": [{"id": "pkv_000001", "package_id": "pac_000001",
                              "version": "1.0.0"}]})
    assert list(values.id_prefix(clean)) == []


def test_out_of_range_finds_declared_bounds_and_refunds_above_payments(tmp_path):
    loan = Entity("loan", "loans", label="reference", fields=(
        Field("reference", "text"), Field("amount", "money", min=10_000, max=5_000_000),
        Field("score", "int", min=300, max=850)))
    payments = {"payments": "CREATE TABLE payments (id TEXT PRIMARY KEY, loan_id TEXT "
                            "REFERENCES loans(id), amount INTEGER, created_at TEXT)",
                "refunds": "CREATE TABLE refunds (id TEXT PRIMARY KEY, payment_id TEXT "
                           "REFERENCES payments(id), amount INTEGER, created_at TEXT)"}
    s = subject(tmp_path, archetype(loan), {
        "loans": [{"id": "loa_000001", "reference": "L1", "amount": 185_000_000, "score": 367},
                  {"id": "loa_000002", "reference": "L2", "amount": 2_000_000, "score": 900},
                  {"id": "loa_000003", "reference": "L3", "amount": 2_000_000, "score": 700}],
        "payments": [{"id": "pay_000001", "loan_id": "loa_000003", "amount": 5000,
                      "created_at": "2026-01-20T10:00:00Z"}],
        "refunds": [{"id": "ref_000001", "payment_id": "pay_000001", "amount": 9000,
                     "created_at": "2026-01-21T10:00:00Z"},
                    {"id": "ref_000002", "payment_id": "pay_000001", "amount": 1000,
                     "created_at": "2026-01-21T10:00:00Z"}]}, extra_tables=payments)
    assert rules_of(values.out_of_range(s)) == [
        ("loans", "loa_000001", "out_of_range"), ("loans", "loa_000002", "out_of_range"),
        ("refunds", "ref_000001", "out_of_range")]


def test_over_capacity_counts_no_shows_at_a_dated_sitting_only(tmp_path):
    sitting = Entity("sitting", "sittings", label="room", fields=(
        Field("room", "text"), Field("sits_on", "date"), Field("seats", "int")))
    registration = Entity("registration", "registrations", label="code", fields=(
        Field("code", "text"), Field("sitting_id", "ref", ref="sitting")),
        lifecycle=Lifecycle(states=("registered", "no_show", "cancelled"), initial="registered",
                            transitions=()),
        constraints=(Capacity("sitting_id", "seats", ("registered",)),))
    regs = [{"id": f"reg_{i:06d}", "code": f"R{i}", "sitting_id": "sit_000001",
             "status": status} for i, status in
            enumerate(("registered", "no_show", "no_show", "cancelled", "cancelled"), 1)]
    regs.append({"id": "reg_000009", "code": "R9", "sitting_id": "sit_000002",
                 "status": "registered"})
    s = subject(tmp_path, archetype(sitting, registration), {
        "sittings": [{"id": "sit_000001", "room": "Hall A", "sits_on": "2026-01-20", "seats": 2},
                     {"id": "sit_000002", "room": "Hall B", "sits_on": "2026-01-21", "seats": 2}],
        "registrations": regs})
    found = list(values.over_capacity(s))
    assert rules_of(found) == [("sittings", "sit_000001", "over_capacity")]
    assert found[0].message.startswith("3 places are held (registrations)")


def test_padded_label_finds_number_suffixes_and_placeholders(tmp_path):
    room = Entity("room", "rooms", label="name", fields=(
        Field("name", "text", vocab=("Garden Suite", "Attic Room")), Field("note", "text")))
    s = subject(tmp_path, archetype(room), {"rooms": [
        {"id": "roo_000001", "name": "Garden Suite", "note": "Quiet"},
        {"id": "roo_000002", "name": "Garden Suite 2", "note": "Quiet"},
        {"id": "roo_000003", "name": "Attic Room", "note": "Room 7"},
        {"id": "roo_000004", "name": "Attic Room", "note": "Bay 3 Bed 2"}]})
    assert rules_of(values.padded_label(s)) == [("rooms", "roo_000002", "padded_label"),
                                                ("rooms", "roo_000003", "padded_label")]


# --- lab values --------------------------------------------------------------------------------

_TEST = Entity("lab_test", "lab_tests", label="test_name", fields=(
    Field("test_name", "text"), Field("specimen_type", "enum",
                                      values=("serum", "urine", "whole_blood", "plasma"))))
_SPECIMEN = Entity("specimen", "specimens", label="barcode", fields=(
    Field("barcode", "text"), Field("container", "enum", values=("gold_sst", "urine_cup"))))
_RESULT = Entity("test_result", "test_results", label="result_text", fields=(
    Field("lab_test_id", "ref", ref="lab_test"), Field("specimen_id", "ref", ref="specimen"),
    Field("result_text", "text"),
    Field("abnormal_flag", "enum", values=("normal", "low", "high", "critical"))))


def _lab(tmp_path, tests, specimens=(), results=()):
    return subject(tmp_path, archetype(_TEST, _SPECIMEN, _RESULT), {
        "lab_tests": list(tests), "specimens": list(specimens), "test_results": list(results)})


def test_specimen_mismatch_finds_tests_on_the_wrong_specimen_or_tube(tmp_path):
    s = _lab(tmp_path,
             tests=[{"id": "lab_000001", "test_name": "Urinalysis", "specimen_type": "serum"},
                    {"id": "lab_000002", "test_name": "Ferritin", "specimen_type": "serum"},
                    {"id": "lab_000003", "test_name": "Glucose, whole blood",
                     "specimen_type": "whole_blood"}],
             specimens=[{"id": "spe_000001", "barcode": "S1", "container": "urine_cup"},
                        {"id": "spe_000002", "barcode": "S2", "container": "gold_sst"}],
             results=[{"id": "tes_000001", "lab_test_id": "lab_000002",
                       "specimen_id": "spe_000001", "result_text": "Ferritin 80 ug/L",
                       "abnormal_flag": "normal"},
                      {"id": "tes_000002", "lab_test_id": "lab_000002",
                       "specimen_id": "spe_000002", "result_text": "Ferritin 80 ug/L",
                       "abnormal_flag": "normal"}])
    found = list(lab.specimen_mismatch(s))
    assert sorted({(f.table, f.row) for f in found}) == [("lab_tests", "lab_000001"),
                                                        ("test_results", "tes_000001")]
    assert "Urinalysis is not run on serum" in [f.message for f in found]


def test_specimen_mismatch_follows_a_code_to_the_test_that_issues_it(tmp_path):
    test = Entity("lab_test", "lab_tests", label="test_name", fields=(
        Field("loinc_code", "pool", source="loinc", unique=True), Field("test_name", "text"),
        Field("specimen_type", "enum", values=("serum", "urine"))))
    result = Entity("test_result", "test_results", label="loinc_code", fields=(
        Field("loinc_code", "pool", source="loinc"), Field("specimen_id", "ref", ref="specimen")))
    s = subject(tmp_path, archetype(test, _SPECIMEN, result), {
        "lab_tests": [{"id": "lab_000001", "loinc_code": "2276-4", "test_name": "Ferritin",
                       "specimen_type": "serum"}],
        "specimens": [{"id": "spe_000001", "barcode": "S1", "container": "urine_cup"},
                      {"id": "spe_000002", "barcode": "S2", "container": "gold_sst"}],
        "test_results": [{"id": "tes_000001", "loinc_code": "2276-4", "specimen_id": "spe_000001"},
                         {"id": "tes_000002", "loinc_code": "2276-4",
                          "specimen_id": "spe_000002"}]})
    found = list(lab.specimen_mismatch(s))
    assert [(f.row, f.message) for f in found] == [
        ("tes_000001", "Ferritin is not run on a urine_cup tube")]


def test_flag_mismatch_finds_flags_that_contradict_their_values(tmp_path):
    tests = [{"id": "lab_000001", "test_name": "Ferritin", "specimen_type": "serum"}]
    cases = [("Ferritin 12 ug/L (low)", "high"),        # the text says low
             ("Ferritin 4 ug/L", "normal"),             # far below the reference range
             ("HbA1c 5.0 % (high)", "high"),            # the number contradicts its own label
             ("Ferritin 120 ug/L", "normal"),           # clean
             ("Ferritin 12 ug/L (low)", "low"),         # clean
             ("Not detected", "normal"),                # clean
             ("Creatinine 1.5 mg/dL", "high")]          # clean (mg/dL, not umol/L)
    results = [{"id": f"tes_{i:06d}", "lab_test_id": "lab_000001", "specimen_id": None,
                "result_text": text, "abnormal_flag": flag}
               for i, (text, flag) in enumerate(cases, 1)]
    found = list(lab.flag_mismatch(_lab(tmp_path, tests, results=results)))
    assert sorted({f.row for f in found}) == ["tes_000001", "tes_000002", "tes_000003"]


def test_expected_flag_reads_units_and_keeps_out_of_borderline_values():
    assert lab.expected_flag("Glucose 62 mg/dL") == "low"
    assert lab.expected_flag("Glucose 5.0 mmol/L") == "normal"
    assert lab.expected_flag("Glucose 99.5 mg/dL") == ""        # at the limit: no opinion
    assert lab.expected_flag("Red Blood Cell Count 6.8 10^6/uL") == "high"
    assert lab.expected_flag("Vitamin D, 25-Hydroxy 12 ng/mL") == "low"
    assert lab.expected_flag("SARS-CoV-2 RNA detected") == "abnormal"
    assert lab.expected_flag("Widget 12 furlongs") == ""


# --- text --------------------------------------------------------------------------------------

def test_grammar_article_finds_slips_in_tools_and_seeded_text(tmp_path):
    note = Entity("note", "notes", label="body", fields=(Field("body", "text"),))
    tools = [ToolText("create_application", "Create a application. Only a active one.",
                      {"owner": "The id of an user who owns it."}),
             ToolText("get_hour", "Get an hour of a user's day from an SQL view.", {"id": None})]
    s = subject(tmp_path, archetype(note), {"notes": [
        {"id": "not_000001", "body": "Filed as a urgent request."},
        {"id": "not_000002", "body": "A unique code and an honest answer."}]}, tools=tools)
    found = [(f.row, f.message) for f in english.grammar_article(s)]
    assert found == [("create_application", "description says 'a application'"),
                     ("create_application", "description says 'a active'"),
                     ("create_application.owner", "argument description says 'an user'"),
                     ("not_000001", "body says 'a urgent'")]


def test_grammar_plural_finds_determiners_that_disagree_with_entity_nouns(tmp_path):
    booking = Entity("booking", "bookings", label="code", fields=(Field("code", "text"),))
    tools = [ToolText("search_bookings", "List every bookings, newest first.", {
        "ids": "Up to 5 booking ids.", "status": "Only bookings in this state."}),
             ToolText("merge_bookings", "Merge 2 booking into one booking.", {
                 "code": "The code of a booking, e.g. BK-4F7K2Q."})]
    s = subject(tmp_path, archetype(booking), {}, tools=tools)
    assert [(f.row, f.message) for f in english.grammar_plural(s)] == [
        ("search_bookings", "description says 'every bookings'"),
        ("merge_bookings", "description says '2 booking'")]


def test_indefinite_article_heuristic():
    cases = {"apple": "an", "user": "a", "hour": "an", "honest": "an", "unique": "a",
             "uninsured": "an", "European": "a", "one-time": "a", "SQL": "an", "URL": "a",
             "LOINC": "a", "FAQ": "an", "8-bit": "an", "11": "an", "12": "a",
             "in_progress": "an", "booking": "a"}
    assert {w: english.indefinite_article(w) for w in cases} == cases


def test_arg_description_finds_descriptions_that_repeat_the_name(tmp_path):
    tools = [ToolText("create_lab_test", "Create a lab test.", {
        "list_price": "list price (in cents)",
        "lab_test_id": "The lab test id.",
        "status": None,
        "turnaround_hours": "Hours from receipt to a released result, e.g. 24.",
        "limit": "Page size."})]
    s = subject(tmp_path, archetype(_TEST), {}, tools=tools)
    assert [f.row for f in english.arg_description(s)] == [
        "create_lab_test.list_price", "create_lab_test.lab_test_id", "create_lab_test.status"]


# --- the runner --------------------------------------------------------------------------------

def test_a_check_that_raises_becomes_an_audit_error_and_the_others_still_run(tmp_path,
                                                                          monkeypatch):
    from agentworld.servers.world.data_audit import run

    def broken(subject):
        raise ValueError("boom")

    monkeypatch.setattr(run, "CHECKS", (broken, values.id_prefix))
    s = subject(tmp_path, archetype(_MEMBER), {"members": [
        {"id": "mem_000001", "full_name": "Ana Silva"}]},
        extra_tables={"memos": "CREATE TABLE memos (id TEXT PRIMARY KEY)"})
    s.tables["memos"].rows.append({"id": "mem_000009"})
    found = audit_subject(s)
    assert [f.rule for f in found] == ["audit_error", "id_prefix"]
    assert "broken: ValueError: boom" in found[0].message
