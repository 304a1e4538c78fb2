"""The workspace's databases: the product roadmap, the candidate pipeline and the bug tracker."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from . import seed_blocks as b
from .seed_text import SERVICES
from .seeder import ENGINEERS, LAST, PRODUCT, Seeder, iso, sid

__all__ = ["databases", "ROADMAP", "CANDIDATES", "BUGS"]

# property name, type, options as (name, color[, status group])
Prop = tuple[str, str, list[tuple[str, ...]]]
ROADMAP: list[Prop] = [
    ("Name", "title", []),
    ("Status", "status", [("Backlog", "gray", "to_do"), ("Planned", "blue", "to_do"),
                          ("In progress", "yellow", "in_progress"),
                          ("In review", "purple", "in_progress"),
                          ("Shipped", "green", "complete"), ("Cancelled", "red", "complete")]),
    ("Priority", "select", [("P0", "red"), ("P1", "orange"), ("P2", "yellow"), ("P3", "gray")]),
    ("Owner", "people", []),
    ("Team", "select", [("Platform", "blue"), ("Search", "purple"), ("Billing", "green"),
                        ("Growth", "orange"), ("Mobile", "pink"), ("Design", "brown")]),
    ("Quarter", "select", [("Q3 2025", "gray"), ("Q4 2025", "brown"), ("Q1 2026", "blue"),
                           ("Q2 2026", "purple")]),
    ("Due date", "date", []),
    ("Tags", "multi_select", [("customer-request", "blue"), ("tech-debt", "gray"),
                              ("security", "red"), ("performance", "orange"),
                              ("experiment", "purple"), ("compliance", "yellow")]),
    ("Effort (weeks)", "number", []),
    ("Tracking issue", "url", []),
    ("Customer facing", "checkbox", []),
]
CANDIDATE_ROLES = ["Senior Backend Engineer", "Product Designer", "Site Reliability Engineer",
                   "Frontend Engineer", "Data Analyst"]
CANDIDATES: list[Prop] = [
    ("Candidate", "title", []),
    ("Role", "select", [(r, c) for r, c in zip(CANDIDATE_ROLES,
                                               ["blue", "pink", "orange", "purple", "green"],
                                               strict=True)]),
    ("Stage", "status", [("Applied", "gray", "to_do"), ("Recruiter screen", "blue",
                                                         "in_progress"),
                         ("Hiring manager call", "purple", "in_progress"),
                         ("Onsite", "yellow", "in_progress"), ("Offer", "orange", "in_progress"),
                         ("Hired", "green", "complete"), ("Rejected", "red", "complete"),
                         ("Withdrawn", "brown", "complete")]),
    ("Source", "select", [("Referral", "green"), ("LinkedIn", "blue"), ("Agency", "orange"),
                          ("Careers page", "gray"), ("Conference", "purple")]),
    ("Recruiter", "people", []),
    ("Hiring manager", "people", []),
    ("Email", "email", []),
    ("Applied on", "date", []),
    ("Rating", "number", []),
    ("Skills", "multi_select", [(s, "default") for s in (
        "Python", "Go", "Postgres", "Kubernetes", "React", "TypeScript", "Figma",
        "User research", "SQL", "Terraform")]),
    ("Portfolio", "url", []),
    ("Remote", "checkbox", []),
]
BUGS: list[Prop] = [
    ("Bug", "title", []),
    ("Status", "status", [("Triage", "gray", "to_do"), ("Open", "blue", "to_do"),
                          ("In progress", "yellow", "in_progress"),
                          ("In review", "purple", "in_progress"), ("Fixed", "green", "complete"),
                          ("Won't fix", "brown", "complete")]),
    ("Severity", "select", [("Critical", "red"), ("High", "orange"), ("Medium", "yellow"),
                            ("Low", "gray")]),
    ("Component", "select", [(name, "default") for name, *_ in SERVICES]),
    ("Assignee", "people", []),
    ("Reported by", "people", []),
    ("Reported on", "date", []),
    ("Labels", "multi_select", [("regression", "red"), ("customer-reported", "blue"),
                                ("flaky-test", "gray"), ("ui", "pink"),
                                ("data-integrity", "orange"), ("performance", "yellow")]),
    ("Environment", "select", [("Production", "red"), ("Staging", "gray")]),
    ("Customer", "rich_text", []),
]


def _database(sd: Seeder, key: str, title: str, icon: str, description: str, page_key: str,
              creator: str, props: list[Prop]) -> None:
    created = sd.created[page_key] + timedelta(minutes=5)
    sd.created[f"db:{key}"] = created
    sd.insert("databases", {"id": sid("db", key), "title": title, "icon": icon,
                            "description": description, "parent_page_id": sid("pg", page_key),
                            "created_by": sd.user(creator), "created_at": iso(created),
                            "last_edited_at": iso(LAST)})
    for position, (name, kind, options) in enumerate(props):
        sd.insert("database_properties", {"database_id": sid("db", key), "name": name,
                                          "type": kind, "position": position})
        for i, option in enumerate(options):
            sd.insert("property_options", {
                "database_id": sid("db", key), "property_name": name, "name": option[0],
                "color": option[1], "status_group": option[2] if len(option) > 2 else None,
                "position": i})


def _row(sd: Seeder, database: str, key: str, created: datetime, creator: str,
         values: dict[str, Any], blocks: list[b.Spec], editors: list[str],
         archived: bool = False) -> None:
    title = values.pop("title")
    page_key = {"roadmap": "roadmap", "candidates": "hiring", "bugs": "bug-tracker"}[database]
    sd.page(key, title, database=database, created=created, creator=creator,
            teamspace=sd.teamspace[page_key], editors=editors, archived=archived, edit_days=45)
    for name, value in values.items():
        if value is None or value == []:
            continue
        sd.insert("property_values", {"page_id": sid("pg", key), "database_id": sid("db", database),
                                      "property_name": name, "value": json.dumps(value)})
    sd.blocks(key, blocks, creator)


ROADMAP_ITEMS = {
    "Platform": ["Postgres 16 upgrade", "OpenTelemetry tracing in all services",
                 "Multi-region read replicas", "Deprecate API v1", "Rate limits per API key",
                 "Zero-downtime migrations tooling", "Secrets moved to AWS Secrets Manager",
                 "Kubernetes 1.30 upgrade", "Audit log export to S3", "SSO with Okta",
                 "SCIM user provisioning"],
    "Search": ["Saved searches", "Search indexing on Kafka", "Typo-tolerant queries",
               "Search filters by owner", "Search result highlighting", "Relevance tuning v2",
               "Index freshness under 60 s", "Search analytics dashboard",
               "Synonyms per workspace", "Recent searches"],
    "Billing": ["Usage-based billing beta", "Usage dashboard", "Spending alerts",
                "Invoices per project", "Annual plan discounts", "Stripe Tax integration",
                "Self-serve plan downgrade", "Dunning emails", "Credit notes",
                "Billing admin role", "Usage-based billing GA"],
    "Growth": ["Onboarding checklist", "Invite teammates flow", "Referral credits",
               "Pricing page experiment", "Trial extension offer", "Lifecycle emails",
               "In-app announcements", "Template gallery", "Slack notifications",
               "CSV export", "Weekly digest email"],
    "Mobile": ["Mobile offline mode", "Mobile approvals", "Push notification preferences",
               "iPad layout", "Android widgets", "Biometric login", "Mobile search filters",
               "Dark mode on mobile", "Share sheet integration", "Mobile crash reporting"],
    "Design": ["Design tokens v2", "Accessible color palette", "Empty states refresh",
               "Settings navigation redesign", "Illustrations for onboarding",
               "Component library docs", "Dark mode on web", "Icon set update",
               "Form validation patterns", "Marketing site refresh", "Table component v2"],
}
TEAM_PEOPLE = {"Platform": ["em_platform", "staff_eng", "sre1", "sre2", "be2"],
               "Search": ["be1", "be3", "staff_eng"], "Billing": ["pm_billing", "be2", "be3"],
               "Growth": ["pm_growth", "fe1", "fe2", "analyst"],
               "Mobile": ["mobile", "em_product"], "Design": ["design_lead", "designer"]}
QUARTERS = {"Q3 2025": (datetime(2025, 7, 1), ["Shipped"] * 5 + ["Cancelled"]),
            "Q4 2025": (datetime(2025, 10, 1), ["Shipped"] * 4 + ["In review", "In progress"]),
            "Q1 2026": (datetime(2026, 1, 1), ["In progress"] * 3 + ["Planned", "In review",
                                                                      "Shipped"]),
            "Q2 2026": (datetime(2026, 4, 1), ["Backlog", "Planned", "Planned"])}


def _roadmap(sd: Seeder) -> None:
    rng, n = sd.rng, 0
    for team, items in ROADMAP_ITEMS.items():
        for item in items:
            quarter = list(QUARTERS)[n % 4]
            start, statuses = QUARTERS[quarter]
            status = rng.choice(statuses)
            created = start - timedelta(days=rng.randint(20, 80), hours=-rng.randint(9, 17))
            owner = rng.choice(TEAM_PEOPLE[team])
            due = start + timedelta(days=rng.randint(20, 88))
            values = {
                "title": item, "Status": status, "Priority": rng.choice(["P0", "P1", "P1", "P2",
                                                                          "P2", "P3"]),
                "Owner": [sid("usr", owner)], "Team": team, "Quarter": quarter,
                "Due date": due.strftime("%Y-%m-%d"),
                "Tags": sorted(rng.sample(["customer-request", "tech-debt", "security",
                                           "performance", "experiment", "compliance"],
                                          k=rng.randint(0, 2))),
                "Effort (weeks)": rng.choice([1, 2, 2, 3, 4, 6, 8]),
                "Tracking issue": f"https://github.com/lumenlabs/platform/issues/{410 + 7 * n}"
                if rng.random() < 0.6 else None,
                "Customer facing": team not in ("Platform",) and rng.random() < 0.8}
            body = [b.p(f"{item}: owned by the {team} team, targeted for {quarter}."),
                    b.todo("Spec reviewed", status not in ("Backlog", "Planned")),
                    b.todo("Launch announcement drafted", status == "Shipped")]
            _row(sd, "roadmap", f"roadmap-{n}", created, sd.who(PRODUCT + [owner], created),
                 values, body, [owner, "vp_product"],
                 archived=status == "Cancelled")
            n += 1


def _candidates(sd: Seeder) -> None:
    from agentworld.servers.envs._people import people

    rng = sd.rng
    managers = {"Senior Backend Engineer": "em_platform", "Product Designer": "design_lead",
                "Site Reliability Engineer": "em_platform", "Frontend Engineer": "em_product",
                "Data Analyst": "vp_product"}
    for i, person in enumerate(people(45, seed=4511, domain="gmail.com")):
        role = CANDIDATE_ROLES[i % 5]
        applied = datetime(2025, 6, 2) + timedelta(days=6 * i + rng.randint(0, 4),
                                                   hours=rng.randint(7, 20))
        age = (LAST - applied).days
        stage = rng.choice(["Hired", "Rejected", "Rejected", "Withdrawn"] if age > 120 else
                           ["Rejected", "Onsite", "Offer", "Hiring manager call"] if age > 45
                           else ["Applied", "Recruiter screen", "Hiring manager call"])
        screened = stage not in ("Applied",)
        values = {
            "title": person.name, "Role": role, "Stage": stage,
            "Source": rng.choice(["Referral", "LinkedIn", "LinkedIn", "Agency", "Careers page",
                                  "Conference"]),
            "Recruiter": [sid("usr", "recruiter" if applied > sd.joined["recruiter"]
                              else "people_lead")],
            "Hiring manager": [sid("usr", managers[role])], "Email": person.email,
            "Applied on": applied.strftime("%Y-%m-%d"),
            "Rating": rng.choice([2, 3, 3.5, 4, 4.5, 5]) if screened else None,
            "Skills": sorted(rng.sample(["Python", "Go", "Postgres", "Kubernetes", "React",
                                         "TypeScript", "Figma", "User research", "SQL",
                                         "Terraform"], k=rng.randint(1, 3))),
            "Portfolio": f"https://{person.given.lower()}{person.surname.lower()}.design"
            if role == "Product Designer" else None,
            "Remote": rng.random() < 0.7}
        notes = [b.li(f"Applied for {role} via {values['Source']}")]
        if screened:
            notes.append(b.li(rng.choice([
                "Strong system design answers; asked good questions about on-call.",
                "Clear communicator, thin on production Postgres experience.",
                "Great portfolio case study on a B2B onboarding redesign.",
                "Salary expectations above the band for the level."])))
        creator = "recruiter" if applied > sd.joined["recruiter"] else "people_lead"
        _row(sd, "candidates", f"candidate-{i}", applied + timedelta(hours=3), creator, values,
             [b.toggle("Interview notes", notes)], [creator, managers[role]])


BUG_TITLES = [
    ("Invoice PDF shows wrong tax total for EU customers", "billing-service"),
    ("Rate limit headers missing on 429 responses", "api-gateway"),
    ("Saved search loses sort order after reload", "search-api"),
    ("Duplicate push notifications on Android", "notification-service"),
    ("Login loop when SSO session expires", "auth-service"),
    ("Search results include archived documents", "search-indexer"),
    ("Usage dashboard off by one day in UTC-8", "billing-service"),
    ("Settings page crashes when team name has emoji", "web-app"),
    ("Nightly export job times out on large workspaces", "data-pipeline"),
    ("Password reset email link expires immediately", "auth-service"),
    ("GraphQL query for members ignores pagination", "api-gateway"),
    ("Dark mode contrast too low on table headers", "web-app"),
    ("Digest email sent at midnight instead of 9am local", "notification-service"),
    ("Indexer drops documents larger than 1 MB", "search-indexer"),
    ("Highlighting breaks on accented characters", "search-api"),
    ("Credit note not applied to next invoice", "billing-service"),
    ("CSV export escapes commas incorrectly", "web-app"),
    ("API key rotation leaves old key valid", "auth-service"),
    ("Flaky test: test_checkout_applies_coupon", "billing-service"),
    ("Warehouse table missing trial accounts", "data-pipeline"),
    ("Slack notification links open the wrong workspace", "notification-service"),
    ("Gateway returns 502 during deploys", "api-gateway"),
    ("Typo tolerance returns unrelated results for short queries", "search-api"),
    ("Invite email rendered without styles in Outlook", "notification-service"),
    ("Date picker shows wrong week start for en-GB", "web-app"),
    ("Consumer lag alert fires during reindex", "search-indexer"),
    ("Stripe webhook retries create duplicate payments", "billing-service"),
    ("SCIM deprovisioning does not revoke sessions", "auth-service"),
    ("Memory leak in gateway under sustained load", "api-gateway"),
    ("Keyboard shortcuts conflict with browser on Firefox", "web-app"),
    ("Airflow DAG fails on daylight saving change", "data-pipeline"),
    ("Search filters reset when switching tabs", "web-app"),
    ("Annual plan discount not shown at checkout", "billing-service"),
    ("Audit log missing entries for API key creation", "auth-service"),
    ("Notifications preferences not saved on iOS", "notification-service"),
    ("Synonyms ignored for multi-word queries", "search-api"),
    ("Reindex script fails without --target flag", "search-indexer"),
    ("Table component loses focus after sorting", "web-app"),
    ("Segment events double-counted on page reload", "data-pipeline"),
    ("Health check endpoint reports healthy during failover", "api-gateway"),
    ("Dunning email sent to removed billing contact", "billing-service"),
    ("Flaky test: test_search_pagination_cursor", "search-api"),
]


def _bugs(sd: Seeder) -> None:
    rng = sd.rng
    customers = ["Harbor Freight Logistics", "Kestrel Health", "Bluewater Energy",
                 "Maple & Finch Retail", "Orion Manufacturing", None, None, None]
    for i, (title, component) in enumerate(BUG_TITLES):
        reported = datetime(2024, 10, 1) + timedelta(days=12 * i + rng.randint(0, 8),
                                                      hours=rng.randint(9, 17))
        age = (LAST - reported).days
        status = rng.choice(["Fixed", "Fixed", "Won't fix"] if age > 150 else
                            ["Triage", "Open", "In progress", "In review", "Fixed"])
        reporter = sd.who(["qa", "be1", "fe1", "sre1", "pm_growth", "pm_billing"], reported)
        customer = rng.choice(customers)
        environment = "Production" if customer else rng.choice(["Production", "Staging"])
        labels = {"flaky-test"} if title.startswith("Flaky") else set(
            rng.sample(["regression", "ui", "data-integrity", "performance"], k=rng.randint(0, 2)))
        if customer:
            labels.add("customer-reported")
        values = {
            "title": title, "Status": status,
            "Severity": rng.choice(["Critical", "High", "High", "Medium", "Medium", "Low"]),
            "Component": component,
            "Assignee": [] if status == "Triage" else [sid("usr", sd.who(ENGINEERS, reported))],
            "Reported by": [sid("usr", reporter)], "Reported on": reported.strftime("%Y-%m-%d"),
            "Labels": sorted(labels), "Environment": environment, "Customer": customer}
        body = [b.h3("Steps to reproduce"), b.num(f"Use {component} in {environment.lower()}"),
                b.num("Repeat the action described in the title"),
                b.p("Expected: the action succeeds without errors."),
                b.p("Actual: see the title; attached logs in the linked Sentry issue.")]
        _row(sd, "bugs", f"bug-{i}", reported, reporter, values, body, [reporter],
             archived=status == "Won't fix")


def databases(sd: Seeder) -> None:
    _database(sd, "roadmap", "Roadmap", "🗺️", "Every initiative with owner, status, priority "
              "and due date.", "roadmap", "vp_product", ROADMAP)
    _database(sd, "candidates", "Candidates", "🧑‍💼", "The hiring pipeline: one row per "
              "candidate and role.", "hiring", "people_lead", CANDIDATES)
    _database(sd, "bugs", "Bugs", "🐞", "Bug reports, triaged every weekday.", "bug-tracker",
              "em_product", BUGS)
    _roadmap(sd)
    _candidates(sd)
    _bugs(sd)
