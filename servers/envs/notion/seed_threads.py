"""Comment threads across the workspace: reviews of RFCs and specs, questions on notes and rows.

Every commenter can comment on the page where they write (the tests check this holds).
"""

from __future__ import annotations

from .seeder import ENGINEERS, PRODUCT, Seeder

__all__ = ["threads", "NAMED_THREADS"]

# Threads that tests and examples refer to by key: (key, page, on first block?, resolver,
# comments as (author, body)).
NAMED_THREADS = [
    ("rfc-replicas-cost", "rfc-8", True, None, [
        ("staff_eng", "What does the eu-west-1 replica add to the monthly AWS bill?"),
        ("sre1", "About $2,100 a month for an r6g.2xlarge plus cross-region transfer."),
        ("cto", "Fine for now; let's revisit when EU revenue passes 20%.")]),
    ("okr-q1-sso", "okr-q1-2026", False, "ceo", [
        ("vp_product", "Should SSO GA be a key result or part of the enterprise objective?"),
        ("ceo", "Part of the enterprise objective; moved it.")]),
    ("billing-spec-alerts", "spec-1", True, None, [
        ("pm_billing", "Do spending alerts go to all admins or only billing admins?"),
        ("fe1", "Billing admins by default, with an opt-in for other admins.")]),
]

GENERIC = [
    ["Can we add a diagram here? It's hard to follow in text.",
     "Added one from the architecture deck."],
    ["Is this still accurate after the Postgres 16 migration?",
     "Yes, double-checked the connection strings last week."],
    ["Who owns the follow-up on this?", "I'll take it and report back Friday."],
    ["Let's link the Sentry issue so on-call can find it quickly.", "Linked."],
    ["This needs a rollback plan before we enable it for everyone."],
    ["Nit: the command needs the --context flag for production.", "Good catch, fixed."],
    ["Can we get the numbers from last quarter for comparison?",
     "Pulled them into the dashboard; about 12% better."],
    ["I'd keep this behind a flag until the mobile release ships."],
    ["Support has three tickets about this, bumping the priority.",
     "Agreed, moving it to P1.", "Thanks, I'll let the customers know."],
    ["Is there a ticket for this action item?", "BUG-311, linked in the row."],
    ["The due date looks tight given the holidays.", "Moved it out two weeks."],
    ["Great write-up, thanks!"],
]

# page key prefix, how many threads, who comments there
TARGETS = [
    ("rfc-", 12, ENGINEERS), ("runbook-", 5, ENGINEERS), ("postmortem-", 6, ENGINEERS),
    ("svc-", 4, ENGINEERS), ("spec-", 8, PRODUCT + ["em_product", "fe1"]),
    ("meeting-", 12, ENGINEERS + PRODUCT), ("roadmap-", 14, PRODUCT + ENGINEERS),
    ("bug-", 10, ENGINEERS + ["pm_growth", "pm_billing"]),
    ("handbook-", 4, ["people_lead", "ceo", "be1", "fe2", "designer", "analyst"]),
    ("candidate-", 5, ["recruiter", "people_lead", "em_platform", "design_lead"]),
]


def threads(sd: Seeder) -> None:
    for key, page, on_block, resolver, comments in NAMED_THREADS:
        block = sd.top_blocks[page][0] if on_block else None
        sd.thread(key, page, comments, block_id=block, resolver=resolver)
    n = 0
    for prefix, count, pool in TARGETS:
        pages = sorted(k for k in sd.top_blocks if k.startswith(prefix))
        for page in sd.rng.sample(pages, k=min(count, len(pages))):
            bodies = sd.rng.choice(GENERIC)
            when = sd.created[page]
            authors = [sd.who(pool, when) for _ in bodies]
            block = None
            if sd.rng.random() < 0.5:
                block = sd.rng.choice(sd.top_blocks[page])
            resolver = authors[0] if len(bodies) > 1 and sd.rng.random() < 0.45 else None
            sd.thread(f"thread-{n}", page, list(zip(authors, bodies, strict=True)),
                      block_id=block, resolver=resolver)
            n += 1
