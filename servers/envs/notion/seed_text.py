"""Hand-written content of the Lumen Labs wiki: policies, services, runbooks, RFCs and more."""

from __future__ import annotations

MISSION = [
    "Lumen Labs builds search and analytics for operations teams, so they can find any "
    "record in a second and act on it.",
    "Customers first: talk to one every week",
    "Write it down: decisions live in the wiki, not in DMs",
    "Small teams, high trust, clear owners",
    "Ship small, ship often, measure what happened",
]

OKRS = [
    ("Q1 2026", [
        ("Objective: Make usage-based billing the default for new accounts", [
            "80% of new workspaces start on a usage-based plan",
            "Invoice disputes below 1% of invoices", "Billing settings page NPS above 40"]),
        ("Objective: Search that feels instant", [
            "p95 search latency under 150 ms", "Saved searches used by 30% of weekly actives",
            "Index freshness under 60 seconds"]),
        ("Objective: Enterprise ready", [
            "SOC 2 Type II report issued", "SSO with Okta and Azure AD generally available",
            "Three enterprise logos signed"]),
    ]),
    ("Q4 2025", [
        ("Objective: Launch usage-based billing beta", [
            "25 beta accounts invoiced from metered usage", "Zero billing incidents of "
            "severity 1"]),
        ("Objective: Improve reliability", [
            "99.95% availability for api-gateway", "Mean time to recovery under 30 minutes",
            "All tier-1 services have runbooks"]),
        ("Objective: Grow the team", [
            "Hire two senior backend engineers", "Onboarding time to first deploy under "
            "5 days"]),
    ]),
    ("Q3 2025", [
        ("Objective: Win mid-market teams", [
            "Net revenue retention above 115%", "Ship team permissions",
            "Cut onboarding time to value to one day"]),
        ("Objective: Lay foundations for scale", [
            "Migrate to Postgres 16", "Move search indexing to Kafka consumers"]),
    ]),
]

HANDBOOK = [
    ("Benefits Overview", [
        "We cover health, dental and vision insurance for employees and dependants.",
        "Health insurance starts on your first day", "401(k) with a 4% match",
        "$1,500 yearly learning budget", "$500 home office stipend in your first month"]),
    ("Time Off Policy", [
        "Take the time you need; we expect at least 20 days off a year.",
        "Tell your manager two weeks ahead for trips longer than a week",
        "Add time off to the shared Time Off calendar", "Sick days do not need approval",
        "Parental leave: 16 weeks fully paid for every parent"]),
    ("Expense Policy", [
        "Spend company money as if it were your own.",
        "Submit receipts in Ramp within 30 days", "Meals while traveling: up to $75 a day",
        "Software purchases over $500 a year need approval from your manager",
        "Client dinners need pre-approval from a VP"]),
    ("Remote Work Guidelines", [
        "We are remote-first with a hub in Lisbon.",
        "Core hours are 14:00-17:00 UTC for meetings", "Keep your calendar up to date",
        "Prefer written updates over meetings", "Team offsites happen twice a year"]),
    ("Security & Device Policy", [
        "Company laptops are managed with Kandji and encrypted.",
        "Lock your screen when you step away", "Use 1Password for every credential",
        "Report lost devices in #it-help within an hour",
        "Never store customer data on personal devices"]),
    ("Travel Policy", [
        "Book travel through Navan so we can find you if something goes wrong.",
        "Economy for flights under 6 hours", "Premium economy for longer flights",
        "Hotels up to $250 a night in major cities"]),
]

ALL_HANDS_WINS = [
    "Closed our largest annual contract to date with a logistics customer",
    "Search latency p95 down 35% after the indexer rewrite",
    "Usage-based billing beta live for 25 accounts",
    "SOC 2 Type II observation window started",
    "Mobile app rating up to 4.7 on the App Store",
    "Welcomed four new teammates across engineering and design",
    "Zero severity-1 incidents this month",
    "Support first-response time under two hours",
]

SERVICES = [
    ("api-gateway", "Public REST and GraphQL entry point: authentication, rate limiting and "
     "routing to domain services.", "Go 1.22, Envoy", "Platform",
     ["auth-service for token validation", "Redis for rate-limit counters"]),
    ("auth-service", "Issues and validates session tokens, API keys and SSO assertions.",
     "Python 3.12, Django", "Platform", ["Postgres (auth schema)", "Okta and Azure AD for SSO"]),
    ("billing-service", "Meters usage, prices it against the plan and issues invoices through "
     "Stripe.", "Python 3.12, Django, Celery", "Billing",
     ["Stripe API", "Kafka topic billing.usage.recorded", "Postgres (billing schema)"]),
    ("search-indexer", "Consumes document events and keeps the OpenSearch indexes fresh.",
     "Go 1.22", "Search", ["Kafka topic search.document.updated", "OpenSearch 2.13 cluster"]),
    ("search-api", "Query parsing, ranking and saved searches.", "Go 1.22", "Search",
     ["OpenSearch 2.13 cluster", "Postgres (saved searches)"]),
    ("notification-service", "Sends email, Slack and push notifications with per-user "
     "preferences.", "Node.js 20, TypeScript", "Growth",
     ["Postmark for email", "Firebase Cloud Messaging", "Slack API"]),
    ("web-app", "The customer-facing single-page application.", "React 18, TypeScript, Vite",
     "Product", ["api-gateway GraphQL endpoint", "LaunchDarkly for feature flags"]),
    ("data-pipeline", "Nightly exports to the warehouse and product analytics events.",
     "Python 3.12, dbt, Airflow", "Data", ["Snowflake", "Segment"]),
]

RUNBOOKS = [
    ("Elevated 5xx on api-gateway",
     "The api-gateway 5xx ratio is above 2% for five minutes.",
     ["Check the deploy log: roll back if a deploy went out in the last hour",
      "Look for one upstream returning errors in the gateway dashboard",
      "If auth-service is failing, fail open for cached tokens"],
     "kubectl -n gateway rollout undo deployment/api-gateway"),
    ("Postgres failover",
     "The primary is unreachable or replication lag is above 60 seconds.",
     ["Confirm the primary is really down, not just slow", "Promote the healthiest replica",
      "Point PgBouncer at the new primary", "Open an incident and notify #eng"],
     "aws rds failover-db-cluster --db-cluster-identifier prod-main"),
    ("Stuck billing jobs",
     "Celery billing queue depth grows for more than 15 minutes.",
     ["Check for a long-running invoice job in Flower", "Check Stripe status page",
      "Restart the billing workers one at a time"],
     "kubectl -n billing rollout restart deployment/billing-worker"),
    ("Search index rebuild",
     "Search results are missing recent documents for more than an hour.",
     ["Check consumer lag on search.document.updated", "Pause writes to the alias",
      "Reindex into a new index and swap the alias"],
     "./scripts/reindex.sh --source documents_v7 --target documents_v8"),
    ("Rotating API keys",
     "A key was leaked or a customer asks for a rotation.",
     ["Create the new key in the admin console", "Give the customer 24 hours to switch",
      "Revoke the old key and confirm in the audit log"],
     "lumenctl keys rotate --workspace $WORKSPACE_ID --grace 24h"),
    ("Kafka consumer lag",
     "Lag on any tier-1 consumer group exceeds 100k messages.",
     ["Check for a poison message in the consumer logs", "Scale the consumer deployment",
      "Skip the poison message only with a second engineer watching"],
     "kafka-consumer-groups --bootstrap-server $KAFKA --describe --group search-indexer"),
    ("Certificate renewal",
     "cert-manager failed to renew a certificate within 14 days of expiry.",
     ["Check the Certificate resource events", "Confirm DNS challenge records exist",
      "Trigger a manual renewal"],
     "kubectl cert-manager renew -n ingress api-lumenlabs-io"),
    ("CDN cache purge",
     "Customers see stale assets after a frontend deploy.",
     ["Confirm the new asset hashes are in the deploy manifest",
      "Purge the HTML entry points, never the whole zone"],
     "curl -X POST https://api.cloudflare.com/client/v4/zones/$ZONE/purge_cache "
     "-d '{\"files\":[\"https://app.lumenlabs.io/index.html\"]}'"),
]

STANDARDS = [
    ("Python Style Guide", "We follow PEP 8 with ruff enforcing it in CI.",
     ["Type hints on every public function", "No bare except", "Prefer dataclasses for "
      "records", "Tests live next to the code they test"],
     ("python", "def invoice_total(lines: list[Line]) -> Decimal:\n"
                "    return sum((line.amount for line in lines), Decimal(0))")),
    ("TypeScript Style Guide", "Strict mode everywhere; eslint and prettier run on commit.",
     ["No any without a comment explaining why", "Prefer unions to enums",
      "Components are functions with hooks"],
     ("typescript", "export function formatAmount(cents: number, currency = 'USD'): string {\n"
                    "  return new Intl.NumberFormat('en-US', { style: 'currency', currency })"
                    ".format(cents / 100);\n}")),
    ("Code Review Checklist", "Every change gets one approving review before merge.",
     ["Is there a test that would fail without the change?", "Are errors handled and logged?",
      "Is the migration backwards compatible?", "Does the PR description explain why?"],
     ("markdown", "## Why\n\n## What changed\n\n## How to test")),
    ("Git Workflow", "Trunk-based development with short-lived branches.",
     ["Branch names: <initials>/<ticket>-<slug>", "Squash merge to main",
      "Deploys go out from main automatically"],
     ("bash", "git switch -c ab/BUG-142-fix-invoice-rounding\ngit push -u origin HEAD")),
]

RFCS = [
    ("Move search indexing to Kafka", "Accepted",
     "The indexer polls Postgres every 30 seconds and falls behind under load.",
     "Publish document changes to Kafka and let the indexer consume them.",
     ("go", "func (c *Consumer) Handle(ctx context.Context, msg *kafka.Message) error {\n"
            "\treturn c.index.Upsert(ctx, decode(msg.Value))\n}")),
    ("Adopt OpenTelemetry tracing", "Accepted",
     "We cannot follow a request across services when debugging latency.",
     "Instrument every service with OpenTelemetry and export to Grafana Tempo.",
     ("yaml", "exporters:\n  otlp:\n    endpoint: tempo.observability:4317")),
    ("GraphQL for the web app", "Withdrawn",
     "The web app makes many REST calls per page.",
     "Replace the REST endpoints used by the web app with one GraphQL schema.",
     ("graphql", "type Query {\n  workspace(id: ID!): Workspace\n}")),
    ("Usage metering pipeline", "Accepted",
     "Usage-based billing needs accurate, deduplicated usage events.",
     "Record usage events in Kafka with idempotency keys and aggregate hourly.",
     ("sql", "SELECT workspace_id, date_trunc('hour', ts) AS hour, count(*)\n"
             "FROM usage_events GROUP BY 1, 2;")),
    ("Postgres 16 upgrade", "Accepted",
     "Postgres 13 reaches end of life and lacks logical replication improvements.",
     "Upgrade with a blue-green deployment using logical replication.",
     ("bash", "pg_upgrade --check -b /usr/lib/postgresql/13/bin -B "
              "/usr/lib/postgresql/16/bin")),
    ("Feature flags service", "Withdrawn",
     "Flags are hard-coded in config files and need a deploy to change.",
     "Build an internal flags service backed by Postgres.",
     ("python", "if flags.enabled('saved_searches', workspace=ws):\n    ...")),
    ("Team permissions model", "Accepted",
     "Customers want to restrict projects to some teams.",
     "Introduce teams with roles and inherit permissions down the project tree.",
     ("sql", "CREATE TABLE team_members (team_id uuid, user_id uuid, role text);")),
    ("Multi-region read replicas", "In review",
     "EU customers see 250 ms extra latency on reads.",
     "Add a read replica in eu-west-1 and route reads by workspace region.",
     ("yaml", "regions:\n  - us-east-1\n  - eu-west-1")),
    ("Saved searches storage", "Accepted",
     "Saved searches are stored in local storage and lost across devices.",
     "Store saved searches server-side with a per-user limit of 200.",
     ("sql", "CREATE TABLE saved_searches (id uuid PRIMARY KEY, user_id uuid, query jsonb);")),
    ("Mobile offline mode", "Draft",
     "Field teams lose connectivity and cannot read records.",
     "Cache the last 500 viewed records on device with SQLite.",
     ("swift", "let cache = try RecordCache(limit: 500)")),
    ("Deprecate API v1", "In review",
     "API v1 is used by 4% of requests but doubles our test matrix.",
     "Announce a six-month deprecation and return Sunset headers.",
     ("plain text", "Sunset: Tue, 30 Jun 2026 23:59:59 GMT")),
    ("Audit log export", "Draft",
     "Enterprise customers need audit logs in their SIEM.",
     "Stream audit events to customer-owned S3 buckets hourly.",
     ("json", "{\"event\": \"page.shared\", \"actor\": \"usr_123\", \"ts\": "
              "\"2026-01-12T10:00:00Z\"}")),
]

POSTMORTEMS = [
    ("2024-10-14", "Invoice emails sent twice", "About 1,200 customers received duplicate "
     "invoice emails.", "A retry in the email job was not idempotent.", "billing-service"),
    ("2024-12-03", "Search outage during reindex", "Search returned errors for all customers.",
     "The alias swap ran before the new index finished building.", "search-api"),
    ("2025-02-19", "Login failures for SSO users", "Okta users could not log in.",
     "An expired signing certificate was not rotated.", "auth-service"),
    ("2025-05-07", "Elevated latency after Postgres upgrade", "p95 API latency tripled.",
     "Planner statistics were missing after the upgrade; ANALYZE had not run.",
     "api-gateway"),
    ("2025-07-22", "Notification backlog", "Push notifications were delayed by up to three "
     "hours.", "A Firebase quota was exhausted by a retry storm.", "notification-service"),
    ("2025-09-30", "Stale search results", "New documents did not appear in search for "
     "90 minutes.", "A poison message stalled the indexer consumer.", "search-indexer"),
    ("2025-11-18", "Checkout latency spike", "Upgrades from the billing page timed out.",
     "A missing index on usage_events after a migration.", "billing-service"),
    ("2026-01-27", "Web app blank page for Safari users", "Safari 16 users saw a blank page.",
     "A dependency shipped syntax unsupported by older Safari.", "web-app"),
]

SPECS = [
    ("Saved searches", "Users rebuild the same complex queries every day.",
     ["Save any search with a name", "Share saved searches with a team"],
     ["Save from the search bar", "List saved searches in the sidebar", "Limit 200 per user"]),
    ("Usage-based billing", "Flat seat pricing does not fit teams with occasional users.",
     ["Charge for records indexed and queries run", "Predictable monthly invoices"],
     ["Usage dashboard in settings", "Spending alerts at 80% and 100% of budget",
      "Invoices show usage per project"]),
    ("Team permissions", "Admins cannot restrict sensitive projects.",
     ["Projects can be limited to teams", "Roles: admin, editor, viewer"],
     ["Teams page in settings", "Permission inheritance from workspace to project",
      "Audit log entries for permission changes"]),
    ("SSO with Okta and Azure AD", "Enterprise security teams require SSO.",
     ["SAML 2.0 login", "Just-in-time provisioning"],
     ["Admin can enforce SSO for the workspace", "SCIM deprovisioning"]),
    ("Onboarding checklist", "New workspaces stall before importing data.",
     ["Guide new admins to their first import", "Show progress"],
     ["Checklist with five steps", "Dismissible after completion"]),
    ("CSV export", "Customers copy results into spreadsheets by hand.",
     ["Export any result set", "Respect permissions"],
     ["Exports up to 100k rows", "Email a link when the export is ready"]),
    ("Mobile approvals", "Managers cannot approve requests on the go.",
     ["Approve and reject from push notifications"],
     ["Deep links to the request", "Biometric confirmation"]),
    ("Slack notifications", "Teams miss updates that only arrive by email.",
     ["Send alerts to Slack channels"], ["Per-channel filters", "Daily digest option"]),
    ("Audit log", "Admins cannot see who changed what.",
     ["Record every permission and billing change"],
     ["Filter by actor and date", "Retain for one year", "Export to CSV"]),
]

RESEARCH = [
    ("Harbor Freight Logistics", "Operations Director"),
    ("Kestrel Health", "IT Administrator"),
    ("Bluewater Energy", "Field Operations Manager"),
    ("Maple & Finch Retail", "Head of Analytics"),
    ("Orion Manufacturing", "Plant Operations Lead"),
]
