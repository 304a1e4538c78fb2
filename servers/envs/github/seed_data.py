"""Fixed data the GitHub seed draws from: the organization, its repositories and word banks.

Kept apart from the generator so a reader can see the shape of the world at a glance: which
repositories exist, how their default branches are protected, and what their issues talk about.
"""

from __future__ import annotations

from dataclasses import dataclass

ORG = "harborline"
ORG_NAME = "Harborline"
ORG_CREATED = "2019-04-11T08:30:00Z"
DOMAIN = "harborline.dev"
BOT = "dependabot[bot]"

# The last moment seeded activity may happen: a few days before the environment epoch.
SEED_END = "2026-02-27T18:00:00Z"


@dataclass(frozen=True)
class RepoSpec:
    name: str
    description: str
    language: str
    visibility: str
    created: str
    issues: int
    pulls: int
    approvals: int = 1
    checks: tuple[str, ...] = ()
    extra_check: str | None = None
    methods: tuple[str, ...] = ("merge", "squash", "rebase")
    default_branch: str = "main"
    release_branch: str | None = None
    archived: bool = False
    stars: int = 0
    areas: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    deps: tuple[str, ...] = ()
    dep_ecosystem: str = "npm_and_yarn"
    versions: tuple[str, ...] = ("v1.1", "v1.2", "v1.3", "v2.0")


REPOS: tuple[RepoSpec, ...] = (
    RepoSpec(
        "web-app", "Customer-facing web application (React + TypeScript)", "TypeScript",
        "private", "2019-05-02T10:00:00Z", 70, 20, approvals=1,
        checks=("build", "test", "lint"), extra_check="preview-deploy",
        methods=("merge", "squash"), release_branch="release/1.2",
        areas=("checkout page", "login form", "billing settings", "team invite flow",
               "dashboard charts", "notification center", "search bar", "file uploader",
               "onboarding wizard", "project sidebar"),
        features=("keyboard shortcuts", "CSV export", "bulk actions", "saved filters",
                  "SSO login", "an audit log view", "dark mode"),
        deps=("react", "vite", "@tanstack/react-query", "eslint", "typescript")),
    RepoSpec(
        "api", "Public REST and GraphQL API for the Harborline platform", "Go",
        "private", "2019-04-20T09:00:00Z", 60, 18, approvals=2,
        checks=("build", "test", "golangci-lint"), extra_check="codecov/patch",
        methods=("squash",), release_branch="release/3.4",
        versions=("v3.3", "v3.4", "v3.5", "v4.0"),
        areas=("/v2/projects endpoint", "GraphQL resolver for teams", "rate limiter",
               "webhook delivery", "OAuth token refresh", "pagination middleware",
               "audit events API", "search endpoint", "file storage service"),
        features=("cursor pagination", "ETag caching", "idempotency keys",
                  "per-token rate limits", "bulk delete", "webhook retries"),
        deps=("github.com/jackc/pgx/v5", "google.golang.org/grpc", "golang.org/x/net"),
        dep_ecosystem="go_modules"),
    RepoSpec(
        "cli", "harbor: the Harborline command-line tool", "Go",
        "public", "2020-02-14T12:00:00Z", 45, 14, approvals=1,
        checks=("build", "test"), stars=1840, versions=("v2.7", "v2.8", "v2.9", "v3.0"),
        areas=("`harbor login`", "`harbor deploy`", "`harbor logs --follow`",
               "config file loader", "shell completion", "`harbor env pull`",
               "update checker", "`harbor projects list`"),
        features=("JSON output", "a --dry-run flag", "proxy support", "fish completion",
                  "a --quiet flag", "profile switching"),
        deps=("github.com/spf13/cobra", "github.com/charmbracelet/lipgloss"),
        dep_ecosystem="go_modules"),
    RepoSpec(
        "docs", "Documentation site for docs.harborline.dev", "MDX",
        "public", "2020-06-01T09:00:00Z", 35, 10, approvals=1,
        checks=("vale", "link-check"), methods=("merge", "squash"), stars=212,
        areas=("quickstart guide", "API reference", "CLI reference", "webhooks guide",
               "SSO setup page", "billing FAQ", "migration guide", "changelog"),
        features=("a copy button on code blocks", "versioned docs", "a dark theme",
                  "search suggestions", "a Go SDK example"),
        deps=("docusaurus", "prism-react-renderer")),
    RepoSpec(
        "infra", "Terraform modules and Helm charts for production infrastructure", "HCL",
        "private", "2019-06-10T09:00:00Z", 25, 8, approvals=2,
        checks=("terraform-plan", "tflint"), methods=("merge",),
        areas=("EKS node groups", "RDS parameter group", "CloudFront distribution",
               "Helm chart for api", "VPC peering", "alerting rules", "backup jobs"),
        features=("spot instances", "cross-region backups", "WAF rules",
                  "autoscaling on queue depth"),
        deps=("hashicorp/aws", "hashicorp/helm"), dep_ecosystem="terraform"),
    RepoSpec(
        "mobile-app", "iOS and Android app (React Native)", "TypeScript",
        "private", "2021-03-15T09:00:00Z", 40, 10, approvals=1,
        checks=("build-ios", "build-android", "test"),
        areas=("push notifications", "offline mode", "photo picker", "biometric login",
               "deep links", "settings screen", "activity feed"),
        features=("widgets", "haptic feedback", "background sync", "tablet layout"),
        deps=("react-native", "expo", "react-navigation")),
    RepoSpec(
        "payments-service", "Billing, invoicing and Stripe integration", "Kotlin",
        "private", "2020-09-01T09:00:00Z", 25, 8, approvals=2,
        checks=("build", "test", "dependency-review"), methods=("squash",),
        areas=("invoice generator", "Stripe webhook handler", "proration logic",
               "tax calculation", "refund flow", "dunning emails"),
        features=("usage-based billing", "multi-currency invoices", "SEPA debit",
                  "credit notes"),
        deps=("com.stripe:stripe-java", "io.ktor:ktor-server-core"), dep_ecosystem="gradle"),
    RepoSpec(
        "design-system", "Harborline UI components, tokens and Storybook", "TypeScript",
        "public", "2021-01-20T09:00:00Z", 30, 8, approvals=1,
        checks=("test", "chromatic"), stars=530,
        areas=("Button", "DatePicker", "Modal", "Toast", "Table", "Tooltip", "Select",
               "color tokens"),
        features=("RTL support", "a compact density", "focus rings", "a Combobox component"),
        deps=("storybook", "@radix-ui/react-popover", "tailwindcss")),
    RepoSpec(
        "data-pipeline", "Airflow DAGs and dbt models for analytics", "Python",
        "private", "2022-02-01T09:00:00Z", 20, 6, approvals=1,
        checks=("pytest", "ruff"),
        areas=("daily revenue DAG", "events ingestion job", "dbt customer model",
               "Snowflake loader", "churn report"),
        features=("incremental models", "data quality alerts", "backfill tooling"),
        deps=("apache-airflow", "dbt-core", "pandas"), dep_ecosystem="pip"),
    RepoSpec(
        "sdk-python", "Official Python client for the Harborline API", "Python",
        "public", "2020-11-05T09:00:00Z", 25, 8, approvals=1,
        checks=("pytest (3.11)", "pytest (3.12)", "mypy"), stars=390,
        areas=("Client", "pagination helper", "retry logic", "webhook signature check",
               "async client", "type stubs"),
        features=("async support", "Python 3.13 support", "automatic retries",
                  "typed responses"),
        deps=("httpx", "pydantic", "pytest"), dep_ecosystem="pip"),
    RepoSpec(
        "sdk-js", "Official JavaScript/TypeScript client for the Harborline API", "TypeScript",
        "public", "2020-11-20T09:00:00Z", 20, 6, approvals=1,
        checks=("test",), stars=275,
        areas=("fetch wrapper", "ESM build", "error types", "pagination iterator",
               "browser bundle"),
        features=("Deno support", "tree-shaking", "AbortSignal support"),
        deps=("undici", "tsup", "vitest")),
    RepoSpec(
        "legacy-dashboard", "Old admin dashboard, replaced by web-app (read-only)", "JavaScript",
        "private", "2019-04-15T09:00:00Z", 12, 3, approvals=0,
        default_branch="master", archived=True, versions=("v0.9",),
        areas=("user table", "export page", "login page", "reports tab"),
        features=("pagination", "CSV import"),
        deps=("jquery", "angular")),
)

# A personal repository: shows that users own repositories too, with no branch protection.
USER_REPO = RepoSpec(
    "dotfiles", "My shell, git and editor configuration", "Shell",
    "public", "2021-07-04T09:00:00Z", 3, 1, approvals=0, stars=14,
    areas=("zsh prompt", "tmux config", "neovim setup"), versions=(),
    features=("a macOS bootstrap script",), deps=())

# name -> (color, description); the default set GitHub gives every new repository, plus ours.
LABELS: dict[str, tuple[str, str]] = {
    "bug": ("d73a4a", "Something isn't working"),
    "documentation": ("0075ca", "Improvements or additions to documentation"),
    "duplicate": ("cfd3d7", "This issue or pull request already exists"),
    "enhancement": ("a2eeef", "New feature or request"),
    "good first issue": ("7057ff", "Good for newcomers"),
    "help wanted": ("008672", "Extra attention is needed"),
    "invalid": ("e4e669", "This doesn't seem right"),
    "question": ("d876e3", "Further information is requested"),
    "wontfix": ("ffffff", "This will not be worked on"),
    "dependencies": ("0366d6", "Pull requests that update a dependency file"),
    "priority: high": ("b60205", "Needs attention this sprint"),
    "security": ("ee0701", "Security-related change or report"),
    "performance": ("fbca04", "Speed or resource usage"),
}

# (description, state, due date) of each repository's four milestones, oldest first; the titles
# come from the repository's own version numbers (RepoSpec.versions).
MILESTONES: tuple[tuple[str, str, str | None], ...] = (
    ("Stabilization release", "closed", "2025-10-31"),
    ("SSO, exports and performance work", "open", "2026-03-20"),
    ("Next feature release", "open", "2026-05-15"),
    ("Breaking changes and API cleanup", "open", None),
)

BUG_TITLES = (
    "{area} crashes when {trigger}",
    "{area} shows stale data after {trigger}",
    "Unexpected 500 error from {area} when {trigger}",
    "{area}: wrong {detail} after {trigger}",
    "Regression: {area} broken since the last release",
    "Flaky test in {area}",
    "{area} times out when {trigger}",
    "{area} ignores {detail} when {trigger}",
)
ENHANCEMENT_TITLES = (
    "Add {feature} to {area}",
    "Support {feature} in {area}",
    "{area}: allow {feature}",
    "Improve {area} performance for large accounts",
    "Expose {feature} as an option",
)
DOC_TITLES = (
    "Document {feature} for {area}",
    "Clarify setup instructions for {area}",
    "Fix broken links in the {area} guide",
)
QUESTION_TITLES = (
    "How do I configure {area} behind a proxy?",
    "Any plans for {feature}?",
)
TRIGGERS = (
    "the session expires", "the payload is empty", "a filter is cleared",
    "switching locales", "retrying a failed request", "the network drops",
    "two tabs are open", "uploading a file over 10 MB", "the user lacks permissions",
    "paging past page 50", "running on Windows", "the account has 10k+ projects",
)
DETAILS = ("timestamp", "currency rounding", "error message", "sort order",
           "item count", "time zone", "default value")

BUG_BODY = ("### Steps to reproduce\n1. Open the {area}\n2. Make sure {trigger}\n\n"
            "### Expected\nIt keeps working.\n\n### Actual\n{title}.\n\n"
            "Seen on {version}.")
ENHANCEMENT_BODY = ("**Problem**\nTeams keep asking for {feature} in the {area}.\n\n"
                    "**Proposal**\nAdd it behind a setting first, then make it the default.")
GENERIC_BODY = "Context: {title}.\n\nHappy to help with a pull request if this makes sense."

COMMENTS = (
    "I can reproduce this on {version}.",
    "Thanks for the report! Could you share the logs from when it happened?",
    "+1, we are hitting this in production as well.",
    "I'll take a look this week.",
    "This looks related to the caching change we shipped last month.",
    "Could you try the latest release and confirm whether it still happens?",
    "Added to the next milestone.",
    "We discussed this in triage: agreed it is worth doing.",
    "Workaround for now: clear the local cache and retry.",
    "Closing the loop here: the fix is merged and will go out with the next deploy.",
)
REVIEW_APPROVE = ("LGTM", "Looks good, thanks!", "Nice cleanup. Approving.",
                  "Tested locally, works as expected.")
REVIEW_CHANGES = ("Please add a test for the empty case before we merge.",
                  "This breaks backwards compatibility; can we keep the old field?",
                  "The error handling swallows the original cause, please wrap it.")
REVIEW_COMMENT = ("Left a couple of nits, nothing blocking.",
                  "Should we document this in the changelog?")
