"""Block content for seeded pages: small constructors and one generator per kind of page.

Every generator returns a list of block specs ``{type, text, checked, language, children}`` that
the seed writes under a page; the wording is what a real product team's workspace holds.
"""

from __future__ import annotations

import random
from typing import Any

Spec = dict[str, Any]


def blk(kind: str, text: str = "", *, checked: bool | None = None, language: str | None = None,
        children: list[Spec] | None = None) -> Spec:
    return {"type": kind, "text": text, "checked": checked, "language": language,
            "children": children or []}


def p(text: str) -> Spec:
    return blk("paragraph", text)


def h1(text: str) -> Spec:
    return blk("heading_1", text)


def h2(text: str) -> Spec:
    return blk("heading_2", text)


def h3(text: str) -> Spec:
    return blk("heading_3", text)


def li(text: str, children: list[Spec] | None = None) -> Spec:
    return blk("bulleted_list_item", text, children=children)


def num(text: str) -> Spec:
    return blk("numbered_list_item", text)


def todo(text: str, done: bool) -> Spec:
    return blk("to_do", text, checked=done)


def code(language: str, text: str) -> Spec:
    return blk("code", text, language=language)


def quote(text: str) -> Spec:
    return blk("quote", text)


def divider() -> Spec:
    return blk("divider")


def toggle(text: str, children: list[Spec]) -> Spec:
    return blk("toggle", text, children=children)


# -- meeting notes ---------------------------------------------------------------------------
MEETING_TOPICS = {
    "Weekly Engineering Sync": [
        "Release train status and anything blocking Thursday's deploy",
        "On-call handoff: open incidents and noisy alerts",
        "Postgres 16 upgrade: staging soak results",
        "Flaky end-to-end tests in the checkout suite",
        "Kafka consumer lag on the search indexer",
        "Hiring loop calibration for the backend role",
        "Dependency upgrades: Django 5.1 and React 19",
        "Error budget burn on api-gateway",
    ],
    "Product Review": [
        "Usage-based billing beta: feedback from the first ten accounts",
        "Saved searches: activation funnel after two weeks",
        "Onboarding checklist experiment results",
        "Enterprise SSO requests from the sales pipeline",
        "Pricing page copy test",
        "Mobile offline mode scope for Q1",
    ],
    "Design Critique": [
        "New billing settings layout",
        "Empty states for saved searches",
        "Mobile navigation bar redesign",
        "Dark mode color tokens",
        "Invite teammates flow",
    ],
    "Sprint Planning": [
        "Carry-over from last sprint",
        "Capacity: two people out on PTO",
        "Bugs above the severity bar",
        "Tech debt budget: 20% of points",
        "Stretch goals for the sprint",
    ],
}
NOTE_LINES = [
    "Agreed to cut the release branch on Wednesday instead of Thursday.",
    "Staging numbers look good; p95 latency dropped from 420 ms to 310 ms.",
    "We still need a decision from legal before rolling out to EU accounts.",
    "Two customers asked for CSV export; adding it to the roadmap as P2.",
    "The alert threshold is too sensitive; it paged three times for the same blip.",
    "Design will share updated mocks in the #design channel by Friday.",
    "Rollout will go 5% -> 25% -> 100% over a week, watching error rates.",
    "Support saw a spike in tickets about invoice PDFs after the last deploy.",
    "Keep the feature flag until the mobile apps ship the matching change.",
    "QA found a regression in the password reset email; fix is in review.",
    "Backlog grooming moved to Tuesdays so PMs can attend.",
    "Data team confirmed the dashboard double-counts trial accounts.",
]
ACTIONS = [
    "Write up the rollout plan and share it in the wiki",
    "File a ticket for the noisy disk-usage alert",
    "Follow up with the two beta customers about pricing",
    "Update the on-call runbook with the new failover steps",
    "Schedule a design review for the empty states",
    "Pair on the flaky checkout test",
    "Draft the announcement for the changelog",
    "Check the migration on a copy of the production snapshot",
    "Send the interview feedback to the recruiter",
    "Add the new dashboard to the weekly metrics email",
]


def meeting(rng: random.Random, kind: str, attendees: list[str], done: bool) -> list[Spec]:
    topics = rng.sample(MEETING_TOPICS[kind], k=min(3, len(MEETING_TOPICS[kind])))
    out = [p("Attendees: " + ", ".join(attendees)), h2("Agenda")]
    out += [num(t) for t in topics]
    out.append(h2("Notes"))
    for topic in topics:
        out.append(li(topic, [li(line) for line in rng.sample(NOTE_LINES, k=rng.randint(1, 2))]))
    out.append(h2("Action items"))
    for action in rng.sample(ACTIONS, k=rng.randint(2, 4)):
        owner = rng.choice(attendees).split()[0]
        out.append(todo(f"{owner}: {action}", done or rng.random() < 0.3))
    return out


# -- engineering ---------------------------------------------------------------------------
def service(rng: random.Random, name: str, summary: str, stack: str, team: str,
            deps: list[str]) -> list[Spec]:
    port = rng.choice([8000, 8080, 8443, 9000])
    return [
        p(summary), h2("Ownership"),
        li(f"Team: {team}"), li("On-call rotation: #oncall-" + team.lower()),
        li(f"Stack: {stack}"), h2("Dependencies"), *[li(d) for d in deps],
        h2("Local development"),
        code("bash", f"git clone git@github.com:lumenlabs/{name}.git\ncd {name}\n"
                     f"make dev  # starts {name} on localhost:{port}\nmake test"),
        h2("Service level objectives"),
        li(f"Availability: {rng.choice(['99.9', '99.95', '99.5'])}% over 28 days"),
        li(f"Latency: p95 under {rng.choice([200, 300, 500])} ms for read endpoints"),
        toggle("Dashboards and alerts", [
            li(f"Grafana: Services / {name} / Overview"),
            li("PagerDuty service: " + name),
            li("Error tracking: Sentry project " + name)]),
    ]


def runbook(rng: random.Random, symptom: str, steps: list[str], command: str) -> list[Spec]:
    return [
        quote("Follow these steps in order. If the issue is not resolved within 30 minutes, "
              "escalate to the secondary on-call."),
        h2("Symptoms"), p(symptom), h2("Steps"), *[num(step) for step in steps],
        code("bash", command), h2("Escalation"),
        li("Secondary on-call via PagerDuty"), li("#incident channel for customer impact"),
        h3("After the incident"),
        todo("Open a postmortem page under Engineering Wiki / Postmortems", False),
        todo("Link the incident ticket in the Bug Tracker", False),
    ]


RFC_ALTERNATIVES = [
    "Keep the current design and scale vertically",
    "Buy a managed service instead of building it",
    "Solve it in the client with caching",
    "Move the workload to a nightly batch job",
    "Use Postgres logical replication instead of a queue",
]


def rfc(rng: random.Random, title: str, status: str, context: str, proposal: str,
        snippet: tuple[str, str]) -> list[Spec]:
    return [
        p(f"Status: {status}"), divider(), h2("Context"), p(context), h2("Proposal"),
        p(proposal), code(*snippet), h2("Alternatives considered"),
        *[li(a) for a in rng.sample(RFC_ALTERNATIVES, k=2)],
        h2("Rollout plan"), num("Ship behind a feature flag to internal accounts"),
        num("Enable for 10% of workspaces and watch error rates for a week"),
        num("Enable for everyone and remove the old path"),
        h2("Open questions"),
        todo("Confirm the migration can run without downtime", status != "Draft"),
        todo("Estimate the infrastructure cost at 3x current load", status == "Accepted"),
    ]


def postmortem(rng: random.Random, day: str, summary: str, cause: str,
               service_name: str) -> list[Spec]:
    start = rng.randint(8, 20)
    minutes = rng.choice([18, 27, 42, 55, 74, 96])
    return [
        quote("Blameless postmortem: we look for causes in systems, not in people."),
        h2("Summary"), p(summary), h2("Impact"),
        li(f"Duration: {minutes} minutes"), li(f"Affected service: {service_name}"),
        li(f"Customer tickets: {rng.randint(2, 40)}"),
        h2("Timeline (UTC)"),
        li(f"{day} {start:02d}:04 — Alert fired for elevated error rate"),
        li(f"{day} {start:02d}:11 — On-call acknowledged and opened #incident"),
        li(f"{day} {start:02d}:{min(59, 11 + minutes // 2):02d} — Mitigation deployed"),
        li(f"{day} {start + 1 + minutes // 60:02d}:{minutes % 60:02d} — Error rate back to "
           "baseline; incident closed"),
        h2("Root cause"), p(cause), h2("Action items"),
        todo("Add an alert on the leading indicator", True),
        todo("Write a regression test reproducing the failure", rng.random() < 0.6),
        todo("Update the runbook with the mitigation steps", rng.random() < 0.5),
    ]


def hub(intro: str, sections: list[str]) -> list[Spec]:
    return [p(intro), divider(), h2("In this section"), *[li(s) for s in sections],
            p("Questions? Ask in #help-wiki or leave a comment on the page.")]


# -- product ---------------------------------------------------------------------------------
def spec(rng: random.Random, problem: str, goals: list[str], requirements: list[str]) -> list[Spec]:
    return [
        h2("Problem"), p(problem), h2("Goals"), *[li(g) for g in goals],
        h2("Non-goals"), li("Changing existing pricing for current customers"),
        h2("Requirements"), *[num(r) for r in requirements],
        h2("Success metrics"),
        li(f"{rng.randint(15, 40)}% of active workspaces use it within 60 days"),
        li("No increase in support tickets per account"),
        toggle("Open questions", [li("Do we need an admin setting to turn it off?"),
                                  li("How does this interact with the API rate limits?")]),
    ]


INTERVIEW_QUOTES = [
    "We export everything to a spreadsheet every Monday because the reports don't filter "
    "by team.",
    "Honestly the search is the reason we picked you, but saved searches would save me an "
    "hour a week.",
    "Our finance team needs invoices that show usage per project, not one line item.",
    "I never know which notifications are important, so I turned them all off.",
    "Onboarding new hires takes too long; they don't know where anything lives.",
    "SSO is a hard requirement from our security team before we can roll out company-wide.",
    "The mobile app is fine for reading, but I can't approve anything from it.",
]


def interview(rng: random.Random, company: str, role: str) -> list[Spec]:
    return [
        p(f"Customer: {company} — interviewed {role}"), h2("Context"),
        p(f"{company} has used the product for {rng.randint(4, 30)} months across "
          f"{rng.randint(3, 12)} teams."),
        h2("What we heard"), *[quote(q) for q in rng.sample(INTERVIEW_QUOTES, k=3)],
        h2("Takeaways"),
        li("Reporting and export come up in most interviews"),
        li("Admin controls matter more as accounts grow"),
    ]


def okr(rng: random.Random, objectives: list[tuple[str, list[str]]], past: bool) -> list[Spec]:
    out = [p("Objectives are ambitious; a 0.7 score on a key result is a good outcome."),
           divider()]
    for objective, krs in objectives:
        out.append(h2(objective))
        for kr in krs:
            out.append(todo(kr, past and rng.random() < 0.7))
        out.append(p(f"Confidence: {rng.choice(['on track', 'at risk', 'on track', 'off track'])}"
                     if not past else f"Final score: {rng.choice(['0.6', '0.7', '0.8', '1.0'])}"))
    return out


def all_hands(rng: random.Random, month: str, wins: list[str]) -> list[Spec]:
    return [
        p(f"Monthly all-hands for {month}. Recording is in the #all-hands channel."),
        h2("Agenda"), num("Company update and metrics"), num("Team highlights"),
        num("New joiners"), num("Q&A"),
        h2("Highlights"), *[li(w) for w in rng.sample(wins, k=3)],
        toggle("Q&A", [
            p("Q: Are we hiring more engineers this quarter? A: Yes, two backend roles and one "
              "SRE; referrals welcome."),
            p("Q: When does the new expense tool go live? A: The first of next month.")]),
    ]
