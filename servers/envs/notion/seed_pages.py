"""The page tree of the Lumen Labs workspace: company, engineering, product and people pages."""

from __future__ import annotations

from datetime import datetime, timedelta

from . import seed_blocks as b
from .seed_text import (
    ALL_HANDS_WINS,
    HANDBOOK,
    MISSION,
    OKRS,
    POSTMORTEMS,
    RESEARCH,
    RFCS,
    RUNBOOKS,
    SERVICES,
    SPECS,
    STANDARDS,
)
from .seeder import ENGINEERS, PRODUCT, Seeder

__all__ = ["company", "engineering", "product", "people_ops"]


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 10, 0)


def _top(sd: Seeder, key: str, title: str, icon: str, creator: str, when: datetime,
         teamspace: str | None, intro: str, sections: list[str], **extra) -> None:
    """A top-level hub page; like Notion, its creator holds full access to it."""
    sd.page(key, title, created=when, creator=creator, icon=icon, teamspace=teamspace, **extra)
    sd.grant(key, creator, "full_access", by=creator)
    sd.blocks(key, b.hub(intro, sections), creator)


def _child(sd: Seeder, key: str, title: str, parent: str, creator: str, when: datetime,
           blocks: list[b.Spec], editors: list[str] | None = None, **extra) -> None:
    sd.page(key, title, parent=parent, created=when, creator=creator, editors=editors, **extra)
    sd.blocks(key, blocks, creator)


def company(sd: Seeder) -> None:
    _top(sd, "home", "Company Home", "🏠", "ceo", day(2024, 3, 5), "company",
         "Welcome to Lumen Labs. Start here: how we work, what we are aiming for this quarter "
         "and where to find things.",
         ["Mission & Values", "Company OKRs", "Employee Handbook", "All-Hands notes"])
    _child(sd, "mission", "Mission & Values", "home", "ceo", day(2024, 3, 6),
           [b.p(MISSION[0]), b.h2("Values"), *[b.li(v) for v in MISSION[1:]]], icon="✨")
    sd.page("okrs", "Company OKRs", parent="home", created=day(2024, 6, 20), creator="ceo",
            icon="🎯", member_access="can_comment")
    sd.blocks("okrs", b.hub("Quarterly objectives and key results. Everyone can comment; the "
                            "leadership team edits.", [q for q, _ in OKRS]), "ceo")
    for leader in ("cto", "vp_product"):
        sd.grant("okrs", leader, "full_access")
    for i, (quarter, objectives) in enumerate(OKRS):
        year, q = int(quarter.split()[1]), int(quarter[1])
        start = day(year if q > 1 else year - 1, 12 if q == 1 else 3 * q - 3, 15)
        key = "okr-" + quarter.lower().replace(" ", "-")
        _child(sd, key, f"{quarter} OKRs", "okrs", "ceo", start,
               b.okr(sd.rng, objectives, past=i > 0), editors=["ceo", "cto", "vp_product"])
    _child(sd, "okr-guide", "How we write OKRs", "okrs", "vp_product", day(2024, 6, 25),
           [b.p("An objective is qualitative and inspiring; key results are measurable."),
            b.h2("Checklist"), b.todo("Three to five key results per objective", False),
            b.todo("Every key result has one owner", False),
            b.todo("Scores are reviewed at the end of the quarter", False)])
    sd.page("handbook", "Employee Handbook", parent="home", created=day(2024, 4, 2),
            creator="people_lead", icon="📘")
    sd.blocks("handbook", b.hub("Policies and practical information for everyone at Lumen "
                                "Labs.", [t for t, _ in HANDBOOK]), "people_lead")
    for i, (title, lines) in enumerate(HANDBOOK):
        body = [b.p(lines[0]), b.h2("Details"), *[b.li(x) for x in lines[1:]]]
        _child(sd, f"handbook-{i}", title, "handbook", "people_lead",
               day(2024, 4, 3) + timedelta(days=9 * i), body, editors=["people_lead", "ceo"])
    sd.page("all-hands", "All-Hands", parent="home", created=day(2025, 1, 10), creator="ceo",
            icon="📣")
    sd.blocks("all-hands", [b.p("Notes from the monthly all-hands, newest first.")], "ceo")
    months = [(2025, m) for m in range(7, 13)] + [(2026, 1), (2026, 2)]
    for year, month in months:
        label = datetime(year, month, 1).strftime("%B %Y")
        _child(sd, f"all-hands-{year}-{month:02d}", f"All-Hands — {label}", "all-hands", "ceo",
               day(year, month, 1) + timedelta(days=26 if month != 2 else 25),
               b.all_hands(sd.rng, label, ALL_HANDS_WINS), edit_days=2)


def engineering(sd: Seeder) -> None:
    _top(sd, "eng-wiki", "Engineering Wiki", "🛠️", "cto", day(2024, 3, 11), "engineering",
         "How we build and run Lumen Labs. Keep pages short and up to date; archive what is "
         "stale.", ["Architecture Overview", "Services", "Runbooks", "On-call Guide",
                    "Coding Standards", "RFCs", "Postmortems", "Bug Tracker"])
    _child(sd, "architecture", "Architecture Overview", "eng-wiki", "cto", day(2024, 3, 20),
           [b.p("Requests enter through api-gateway, which authenticates them with "
                "auth-service and routes them to the domain services."),
            b.h2("Request path"), b.num("CDN and load balancer"), b.num("api-gateway"),
            b.num("Domain services (billing, search, notifications)"),
            b.num("Postgres 16 primary with two read replicas"),
            b.h2("Async work"), b.p("Services publish events to Kafka; consumers own their "
                                    "read models."),
            b.code("yaml", "topics:\n  - name: billing.invoice.created\n    partitions: 12\n"
                           "  - name: search.document.updated\n    partitions: 24")],
           editors=["cto", "staff_eng"], icon="🏗️")
    _section(sd, "services", "Services", day(2024, 4, 1), "staff_eng",
             "One page per service: owners, dependencies, local setup and SLOs.")
    for i, (name, summary, stack, team, deps) in enumerate(SERVICES):
        _child(sd, f"svc-{name}", name, "services", sd.who(ENGINEERS, day(2024, 4, 5)),
               day(2024, 4, 5) + timedelta(days=11 * i),
               b.service(sd.rng, name, summary, stack, team, deps), editors=ENGINEERS)
    _section(sd, "runbooks", "Runbooks", day(2024, 7, 1), "sre1",
             "Step-by-step fixes for known failures. Linked from PagerDuty alerts.")
    for i, (title, symptom, steps, command) in enumerate(RUNBOOKS):
        when = day(2024, 7, 8) + timedelta(days=23 * i)
        _child(sd, f"runbook-{i}", f"Runbook: {title}", "runbooks",
               sd.who(["sre1", "sre2", "em_platform"], when), when,
               b.runbook(sd.rng, symptom, steps, command), editors=["sre1", "sre2"])
    _child(sd, "oncall", "On-call Guide", "eng-wiki", "em_platform", day(2024, 7, 3),
           [b.p("Every engineer joins the rotation after their first two months."),
            b.h2("Rotation"), b.li("Weekly, Monday 10:00 to Monday 10:00 local time"),
            b.li("Primary and secondary; the secondary takes over if a page is not "
                 "acknowledged in 10 minutes"),
            b.h2("Before your shift"), b.todo("PagerDuty app installed and tested", False),
            b.todo("VPN and production read access working", False),
            b.todo("Read the handoff notes from the previous shift", False),
            b.toggle("Paging etiquette", [b.p("Acknowledge first, investigate second. Post "
                                                "updates in #incident every 30 minutes.")])],
           editors=["em_platform", "sre1", "sre2"], icon="📟")
    _section(sd, "standards", "Coding Standards", day(2024, 4, 15), "staff_eng",
             "Conventions we agreed on. Propose changes with an RFC.")
    for i, (title, intro, rules, snippet) in enumerate(STANDARDS):
        _child(sd, f"standard-{i}", title, "standards", "staff_eng",
               day(2024, 4, 16) + timedelta(days=14 * i),
               [b.p(intro), b.h2("Rules"), *[b.num(r) for r in rules], b.code(*snippet)],
               editors=ENGINEERS)
    _section(sd, "rfcs", "RFCs", day(2024, 5, 1), "cto",
             "Requests for comments: write one for any change that spans teams or is hard to "
             "undo.")
    for i, (title, status, context, proposal, snippet) in enumerate(RFCS):
        when = day(2024, 5, 6) + timedelta(days=40 * i)
        _child(sd, f"rfc-{i + 1}", f"RFC-{i + 1:03d}: {title}", "rfcs", sd.who(ENGINEERS, when),
               when, b.rfc(sd.rng, title, status, context, proposal, snippet),
               editors=ENGINEERS, archived=status == "Withdrawn")
    _section(sd, "postmortems", "Postmortems", day(2024, 8, 1), "em_platform",
             "Blameless reviews of incidents with customer impact.")
    for i, (date, title, summary, cause, svc) in enumerate(POSTMORTEMS):
        y, m, d = (int(x) for x in date.split("-"))
        _child(sd, f"postmortem-{i}", f"{date} — {title}", "postmortems",
               sd.who(["sre1", "sre2", "em_platform", "be1", "be2"], day(y, m, d)),
               day(y, m, d) + timedelta(days=2), b.postmortem(sd.rng, date, summary, cause, svc),
               editors=["sre1", "sre2", "em_platform"], edit_days=10)
    _security(sd)
    _legacy(sd)
    _section(sd, "bug-tracker", "Bug Tracker", day(2024, 9, 2), "em_product",
             "File bugs in the database below. Triage happens every weekday at 11:00.")


def _section(sd: Seeder, key: str, title: str, when: datetime, creator: str, intro: str,
             parent: str = "eng-wiki") -> None:
    _child(sd, key, title, parent, creator, when, [b.p(intro), b.divider()])


def _security(sd: Seeder) -> None:
    _child(sd, "security", "Security", "eng-wiki", "cto", day(2025, 9, 1),
           [b.p("Security controls for the SOC 2 Type II audit."), b.h2("Controls"),
            b.li("Quarterly access reviews for production systems"),
            b.li("MFA enforced for Google Workspace, GitHub and AWS"),
            b.li("Vendor reviews before any new data processor is added")], icon="🔒")
    sd.grant("security", "guest_audit", "can_view", by="cto")
    _child(sd, "access-review", "Access Review — Q4 2025", "security", "sre1", day(2025, 12, 1),
           [b.p("Reviewed 214 accounts across AWS, GitHub and Postgres."),
            b.todo("Remove access for three departed contractors", True),
            b.todo("Rotate the shared deploy key", True),
            b.todo("Document break-glass procedure", False)])
    _child(sd, "soc2-evidence", "SOC 2 Evidence Checklist", "security", "cto", day(2025, 10, 6),
           [b.p("Evidence requested by Ardent Security for the observation window."),
            *[b.todo(x, i < 4) for i, x in enumerate([
                "Onboarding and offboarding tickets", "Change management: merged PRs with "
                "reviews", "Backup restore test report", "Incident response tabletop notes",
                "Vendor risk assessments", "Penetration test report"])]])


def _legacy(sd: Seeder) -> None:
    """Stale onboarding docs in the trash, one of them archived under its archived parent."""
    _child(sd, "legacy-onboarding", "Engineering Onboarding (2024, outdated)", "eng-wiki", "cto",
           day(2024, 3, 15), [b.p("Replaced by the onboarding checklist in the handbook."),
                              b.num("Request a laptop"), b.num("Set up the VPN")],
           archived=True)
    _child(sd, "legacy-vpn", "VPN Setup (OpenVPN)", "legacy-onboarding", "sre1",
           day(2024, 8, 1), [b.p("We moved to Tailscale in 2025; this page is kept for "
                                 "reference."), b.code("bash", "sudo openvpn --config "
                                                                 "lumenlabs.ovpn")],
           archived=True)
    _child(sd, "legacy-laptop", "Laptop Setup", "legacy-onboarding", "cto", day(2024, 3, 16),
           [b.num("Install Homebrew"), b.num("brew bundle --file=Brewfile")])


def product(sd: Seeder) -> None:
    _top(sd, "product-home", "Product", "🧭", "vp_product", day(2024, 3, 26), "product",
         "Where product decisions are written down.",
         ["Product Roadmap", "Meeting Notes", "Product Specs", "Design System",
          "Customer Research"])
    _section(sd, "roadmap", "Product Roadmap", day(2024, 4, 8), "vp_product",
             "What we are building and when. Status is updated in the weekly product review.",
             parent="product-home")
    _section(sd, "meetings", "Meeting Notes", day(2025, 8, 25), "pm_growth",
             "Notes from recurring meetings. Use the template in each series.",
             parent="product-home")
    kinds = ["Weekly Engineering Sync", "Product Review", "Design Critique", "Sprint Planning"]
    leads = {"Weekly Engineering Sync": ENGINEERS, "Product Review": PRODUCT,
             "Design Critique": ["design_lead", "designer", "fe1", "pm_growth"],
             "Sprint Planning": ["em_product", "em_platform", "pm_billing", "qa"]}
    for i in range(28):
        kind = kinds[i % 4]
        # Each series meets on its own weekday, every fourth week from Monday 2025-09-01.
        when = day(2025, 9, 1) + timedelta(days=28 * (i // 4) + i % 4)
        attendees = [sd.names[k] for k in sd.rng.sample(leads[kind], k=min(4, len(leads[kind])))]
        creator = sd.who(leads[kind], when)
        _child(sd, f"meeting-{i}", f"{kind} — {when:%Y-%m-%d}", "meetings", creator, when,
               b.meeting(sd.rng, kind, attendees, done=i < 20), edit_days=7,
               archived=i == 3)
    _section(sd, "specs", "Product Specs", day(2024, 5, 2), "vp_product",
             "One spec per feature, written before design starts.", parent="product-home")
    for i, (title, problem, goals, reqs) in enumerate(SPECS):
        when = day(2024, 6, 3) + timedelta(days=55 * i)
        _child(sd, f"spec-{i}", f"Spec: {title}", "specs",
               sd.who(["pm_growth", "pm_billing", "vp_product"], when), when,
               b.spec(sd.rng, problem, goals, reqs), editors=PRODUCT)
    _section(sd, "design-system", "Design System", day(2024, 7, 10), "design_lead",
             "Tokens and components shared by web and mobile.", parent="product-home")
    sd.grant("design-system", "guest_design", "can_comment", by="design_lead")
    for i, (title, lines) in enumerate([
        ("Color tokens", ["Primary: indigo-600 (#4F46E5)", "Surface: gray-50 (#F9FAFB)",
                          "Danger: red-600 (#DC2626)", "Success: green-600 (#16A34A)"]),
        ("Typography", ["Inter for UI text", "JetBrains Mono for code",
                        "Base size 14 px, line height 20 px"]),
        ("Components: Buttons", ["Primary, secondary, ghost and danger variants",
                                 "Only one primary button per view", "Minimum target 32 px"]),
        ("Components: Forms", ["Labels above inputs, never placeholders as labels",
                               "Inline validation after blur", "Errors in red-600 with icon"]),
    ]):
        _child(sd, f"design-{i}", title, "design-system", "design_lead",
               day(2024, 7, 12) + timedelta(days=20 * i),
               [b.p(f"{title} used across the product."), *[b.li(x) for x in lines]],
               editors=["design_lead", "designer"])
    _section(sd, "research", "Customer Research", day(2025, 2, 3), "pm_growth",
             "Interview notes. Tag quotes in the synthesis doc.", parent="product-home")
    for i, (company_name, role) in enumerate(RESEARCH):
        when = day(2025, 2, 10) + timedelta(days=17 * i)
        _child(sd, f"interview-{i}", f"Interview: {company_name}", "research", "pm_growth", when,
               b.interview(sd.rng, company_name, role))


def people_ops(sd: Seeder) -> None:
    _top(sd, "people-ops", "People Ops", "👥", "people_lead", day(2024, 5, 28), "people",
         "Hiring, performance and compensation. Restricted to the people team and leadership.",
         ["Hiring", "Performance Reviews 2025", "Compensation Bands"],
         member_access="no_access")
    for member, level in (("recruiter", "can_edit"), ("cto", "can_view"),
                          ("vp_product", "can_view")):
        sd.grant("people-ops", member, level, by="people_lead")
    _section(sd, "hiring", "Hiring", day(2024, 6, 3), "people_lead",
             "Open roles, the interview process and the candidate pipeline.",
             parent="people-ops")
    for member, level in (("em_platform", "can_edit"), ("em_product", "can_edit"),
                          ("design_lead", "can_edit"), ("cto", "can_edit"),
                          ("guest_recruit", "can_comment")):
        sd.grant("hiring", member, level, by="people_lead")
    _child(sd, "interview-process", "Interview Process", "hiring", "people_lead",
           day(2024, 6, 4), [b.num("Recruiter screen (30 min)"),
                             b.num("Hiring manager call (45 min)"),
                             b.num("Technical or portfolio interview (90 min)"),
                             b.num("Team and values interview (45 min)"),
                             b.p("Feedback goes in the scorecard within 24 hours.")])
    for i, (role, must) in enumerate([
        ("Senior Backend Engineer", ["5+ years with Python or Go", "Operated Postgres at "
                                     "scale", "Mentored other engineers"]),
        ("Product Designer", ["Portfolio with shipped B2B work", "Comfortable with Figma and "
                              "prototyping", "Runs their own research sessions"]),
        ("Site Reliability Engineer", ["Terraform and Kubernetes in production",
                                       "Has been on call", "Writes clear postmortems"]),
    ]):
        _child(sd, f"jd-{i}", f"Job Description: {role}", "hiring", "recruiter",
               day(2025, 3, 3) + timedelta(days=30 * i),
               [b.p(f"We are hiring a {role} to join a small, senior team."),
                b.h2("You have"), *[b.li(x) for x in must],
                b.h2("Compensation"), b.p("Salary range and equity are shared in the first "
                                          "call.")])
    _child(sd, "perf-2025", "Performance Reviews 2025", "people-ops", "people_lead",
           day(2025, 11, 3), [b.p("Self reviews due December 5; manager reviews December 15."),
                              b.todo("Calibration session with managers", True),
                              b.todo("Share final ratings", False)])
    _child(sd, "comp-bands", "Compensation Bands", "people-ops", "people_lead",
           day(2025, 1, 14), [b.p("Bands are reviewed every January against market data."),
                              b.toggle("Engineering", [b.li("L3: 110k-135k"),
                                                       b.li("L4: 135k-165k"),
                                                       b.li("L5: 165k-200k")])])
    sd.grant("comp-bands", "recruiter", "no_access", by="people_lead")
    for member, title in (("be1", "Scratchpad"), ("pm_growth", "Scratchpad"),
                          ("designer", "Ideas backlog")):
        key = f"private-{member}"
        sd.page(key, f"{title} — {sd.names[member].split()[0]}", created=day(2025, 10, 1),
                creator=member, icon="🗒️", member_access="no_access")
        sd.grant(key, member, "full_access", by=member)
        sd.blocks(key, [b.p("Private notes."), b.todo("Review open PRs before standup", False),
                        b.todo("Read the billing RFC", True)], member)
