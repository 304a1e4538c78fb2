"""Domain rules beyond lifecycles, declared in the domain packs and enforced by the compiled
tools: policy thresholds and caps, membership, uniqueness over several columns, formats and
expiry. Each is refused on real seeded data, leaves the database unchanged, and is listed in
the manifest's rules."""

import functools

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.world.archetypes.approvals import UNDERWRITING
from agentworld.servers.world.archetypes.code_hosting import REGISTRY
from agentworld.servers.world.archetypes.nft_dao import DAO
from agentworld.servers.world.compile import compile_card
from agentworld.servers.world.entity_schema import EPOCH
from agentworld.servers.world.spec import ThemeCard


@functools.cache
def compiled(archetype, region="IN", seed=11):
    card = ThemeCard(id=f"test-{archetype.id}", title=archetype.title, description="test",
                     l1="Test", l2=archetype.l2, l3=archetype.title, archetype=archetype.id,
                     features=(), region=region, seed=seed)
    return compile_card(card, archetype)


def session(archetype):
    return Session(Environment(compiled(archetype).definition))


def refused(s, tool, args, code):
    before = s.hash()
    result = s.call(tool, args)
    assert result.code == code, (tool, args, result.payload())
    assert s.hash() == before
    return result


def rule_ids(archetype):
    return {r.id for r in compiled(archetype).definition.manifest.rules}


def test_approval_is_refused_below_the_policy_score_and_above_its_cap():
    s = session(UNDERWRITING)
    low = s.db.execute(
        "SELECT a.id FROM applications a JOIN decision_policies p ON p.id = a.decision_policy_id "
        "WHERE a.status IN ('under_review', 'referred') AND a.risk_score < p.min_score "
        "AND a.requested_amount <= p.max_amount LIMIT 1").fetchone()
    high = s.db.execute(
        "SELECT a.id FROM applications a JOIN decision_policies p ON p.id = a.decision_policy_id "
        "WHERE a.status IN ('under_review', 'referred') AND a.requested_amount > p.max_amount "
        "AND a.risk_score >= p.min_score LIMIT 1").fetchone()
    assert low and high
    refused(s, "approve_application", {"id": low[0]}, "PRECONDITION_FAILED")
    refused(s, "approve_application", {"id": high[0]}, "LIMIT_EXCEEDED")
    assert {"application-policy-risk_score", "application-policy-requested_amount"} <= \
        rule_ids(UNDERWRITING)


def test_approved_applications_respect_their_policy():
    s = session(UNDERWRITING)
    broken = s.db.execute(
        "SELECT COUNT(*) FROM applications a JOIN decision_policies p "
        "ON p.id = a.decision_policy_id WHERE a.status = 'approved' AND "
        "(a.risk_score < p.min_score OR a.requested_amount > p.max_amount)").fetchone()[0]
    approved = s.db.execute(
        "SELECT COUNT(*) FROM applications WHERE status = 'approved'").fetchone()[0]
    assert approved > 0 and broken == 0


def _open_proposal(s):
    return s.db.execute("SELECT p.id, p.dao_id FROM proposals p JOIN daos d ON d.id = p.dao_id "
                        "WHERE p.status = 'voting' AND d.status = 'active' ORDER BY p.id "
                        "LIMIT 1").fetchone()


def test_a_vote_from_outside_the_dao_is_refused():
    s = session(DAO)
    proposal, dao = _open_proposal(s)
    outsider = s.db.execute("SELECT id FROM dao_members WHERE dao_id <> ? LIMIT 1",
                            (dao,)).fetchone()[0]
    result = refused(s, "create_vote", {"proposal_id": proposal, "member_id": outsider,
                                        "choice": "for", "weight": 1, "reason": "Strong team"},
                     "PRECONDITION_FAILED")
    assert "DAO" in result.payload()["error"]["message"] or "dao" in str(result.payload())
    assert "vote-same-dao" in rule_ids(DAO)


def test_a_member_votes_once_and_within_their_voting_power():
    s = session(DAO)
    proposal, dao = _open_proposal(s)
    member, power = s.db.execute(
        "SELECT id, voting_power FROM dao_members WHERE dao_id = ? AND id NOT IN "
        "(SELECT member_id FROM votes WHERE proposal_id = ?) AND voting_power < 250000 "
        "LIMIT 1", (dao, proposal)).fetchone()
    args = {"proposal_id": proposal, "member_id": member, "choice": "for",
            "reason": "Strong team"}
    refused(s, "create_vote", {**args, "weight": power + 1}, "LIMIT_EXCEEDED")
    assert s.call("create_vote", {**args, "weight": power}).ok
    refused(s, "create_vote", {**args, "weight": 1}, "CONFLICT")
    assert {"vote-unique-proposal_id-member_id", "vote-policy-weight"} <= rule_ids(DAO)


def test_seeded_votes_and_proposals_belong_to_their_dao():
    s = session(DAO)
    strays = s.db.execute(
        "SELECT COUNT(*) FROM votes v JOIN dao_members m ON m.id = v.member_id "
        "JOIN proposals p ON p.id = v.proposal_id WHERE m.dao_id <> p.dao_id").fetchone()[0]
    proposers = s.db.execute(
        "SELECT COUNT(*) FROM proposals p JOIN dao_members m ON m.id = p.proposer_id "
        "WHERE m.dao_id <> p.dao_id").fetchone()[0]
    assert strays == 0 and proposers == 0


def test_voting_proposals_are_still_open_and_closed_ones_are_past():
    s = session(DAO)
    today = EPOCH.isoformat()
    late = s.db.execute("SELECT COUNT(*) FROM proposals WHERE status = 'voting' AND "
                        "voting_ends < ?", (today,)).fetchone()[0]
    early = s.db.execute("SELECT COUNT(*) FROM proposals WHERE status IN ('succeeded', "
                         "'defeated', 'queued', 'executed') AND voting_ends > ?",
                         (today,)).fetchone()[0]
    assert late == 0 and early == 0


def test_package_versions_are_semver_and_unique_per_package():
    s = session(REGISTRY)
    package = s.db.execute("SELECT id FROM packages WHERE status = 'active' LIMIT 1").fetchone()[0]
    args = {"package_id": package, "tag": "latest", "size_kb": 12, "changelog": "Bug fixes"}
    refused(s, "create_package_version", {**args, "version": "not-a-version"},
            "VALIDATION_ERROR")
    assert s.call("create_package_version", {**args, "version": "9.1.0"}).ok
    refused(s, "create_package_version", {**args, "version": "9.1.0"}, "CONFLICT")
    dupes = s.db.execute("SELECT COUNT(*) FROM (SELECT package_id, version FROM package_versions "
                         "GROUP BY 1, 2 HAVING COUNT(*) > 1)").fetchone()[0]
    assert dupes == 0
    assert {"package_version-format-version", "package_version-unique-package_id-version",
            "package-format-name"} <= rule_ids(REGISTRY)


def test_tokens_live_until_they_expire_and_expired_ones_cannot_come_back():
    s = session(REGISTRY)
    today = EPOCH.isoformat()
    stale = s.db.execute("SELECT COUNT(*) FROM publish_tokens WHERE status = 'active' AND "
                         "expires_on < ?", (today,)).fetchone()[0]
    assert stale == 0
    expired = s.db.execute("SELECT id FROM publish_tokens WHERE status = 'suspended' AND "
                           "expires_on < ? LIMIT 1", (today,)).fetchone()
    assert expired
    refused(s, "reinstate_publish_token", {"id": expired[0]}, "PRECONDITION_FAILED")
    assert "publish_token-expiry-expires_on" in rule_ids(REGISTRY)


@pytest.mark.parametrize("archetype", [UNDERWRITING, DAO, REGISTRY], ids=lambda a: a.id)
def test_every_domain_rule_has_a_refusal_in_filter_two(archetype):
    from agentworld.servers.world.filters import run_filters

    report = run_filters(compiled(archetype))
    assert report.passed, report.problems
