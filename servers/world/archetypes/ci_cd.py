"""Software Development > CI/CD & Release Management: build pipelines on runners, and gated
releases to deployment environments."""

from ..spec import (
    Archetype,
    Capacity,
    DateOrder,
    Entity,
    Field,
    Leaf,
    Lifecycle,
    MaxPerParent,
    NoOverlap,
    RefInState,
    Transition,
)

PIPELINES = Archetype(
    id="ci_build_pipelines", l2="CI/CD & Release Management", title="CI build pipelines",
    description="Pipelines triggered by pushes run on self-hosted runners that take a bounded "
                "number of concurrent jobs; runs are queued, run, pass or fail.",
    primary="pipeline_run", people="",
    features=("comments", "tags", "notifications", "attachments", "audit_log", "search",
              "scheduling"),
    entities=(
        Entity("pipeline", "pipelines", label="name", count=25,
               description="A CI pipeline defined for a repository.", fields=(
            Field("name", "text", unique=True, vocab=(
                "web-frontend build", "payments-api test", "mobile-ios release",
                "android nightly", "infra plan", "docs publish", "data-etl lint",
                "auth-service e2e", "search-indexer build", "cli release",
                "ml-train smoke", "monorepo affected")),
            Field("repository", "text", vocab=(
                "acme/web-frontend", "acme/payments-api", "acme/mobile-ios",
                "acme/android-app", "acme/infra", "acme/docs", "acme/data-etl",
                "acme/auth-service", "acme/search-indexer", "acme/cli")),
            Field("trigger", "enum", values=("push", "pull_request", "schedule", "tag",
                                             "manual"), filterable=True),
            Field("config_path", "enum", values=(".github/workflows/ci.yml", ".gitlab-ci.yml",
                                                 "Jenkinsfile", ".circleci/config.yml",
                                                 "buildkite.yml")),
            Field("timeout_minutes", "int", min=5, max=180),
        ), lifecycle=Lifecycle(
            states=("enabled", "disabled"), initial="enabled", seed_weights=(6, 1),
            transitions=(
                Transition("disable", ("enabled",), "disabled", "Disable the pipeline."),
                Transition("enable", ("disabled",), "enabled", "Enable the pipeline."),
            ))),
        Entity("runner", "runners", label="hostname", count=15,
               description="A build agent that executes jobs.", fields=(
            Field("hostname", "text", unique=True, vocab=(
                "runner-linux-01", "runner-linux-02", "runner-arm-01", "mac-mini-01",
                "mac-mini-02", "win-build-01", "gpu-runner-01", "k8s-pool-a",
                "k8s-pool-b", "docker-large-01")),
            Field("os", "enum", values=("linux", "macos", "windows"), filterable=True),
            Field("architecture", "enum", values=("x86_64", "arm64")),
            Field("max_concurrent_jobs", "int", min=2, max=6),
            Field("labels", "text", vocab=(
                "self-hosted,linux", "self-hosted,arm64", "macos,xcode15", "windows,msvc",
                "gpu,cuda12", "docker,large", "k8s,ephemeral", "linux,high-mem")),
        ), lifecycle=Lifecycle(
            states=("online", "offline", "draining"), initial="online", seed_weights=(6, 1, 1),
            transitions=(
                Transition("drain", ("online",), "draining",
                           "Stop accepting new jobs so the runner can be updated."),
                Transition("bring_online", ("offline", "draining"), "online",
                           "Bring the runner online."),
                Transition("take_offline", ("online", "draining"), "offline",
                           "Take the runner offline."),
            ))),
        Entity("pipeline_run", "pipeline_runs", label="commit_message", count=240,
               description="One execution of a pipeline for a commit.", fields=(
            Field("run_number", "code", vocab=("RUN",)),
            Field("pipeline_id", "ref", ref="pipeline", mutable=False, filterable=True),
            Field("runner_id", "ref", ref="runner", mutable=False, filterable=True),
            Field("branch", "text", mutable=False, vocab=(
                "main", "develop", "feature/checkout-v2", "fix/login-timeout",
                "release/2.4", "dependabot/npm/axios", "hotfix/cve-2026-1", "feat/search")),
            Field("commit_sha", "text", mutable=False, vocab=(
                "a3f9c21", "4be07d8", "9c1e5fa", "e77b012", "1d4f9a3", "f02c8be", "63ab9d0",
                "b5e1c47", "08d3f6e", "c9a2714")),
            Field("commit_message", "text", vocab=(
                "Fix flaky checkout test", "Bump axios to 1.7", "Add retry to uploader",
                "Refactor config loader", "Release 2.4.0", "Speed up docker layer cache",
                "Patch CVE in openssl", "Add e2e tests for login", "Update snapshots",
                "Remove dead code")),
            Field("duration_seconds", "int", min=20, max=5_400),
            Field("finished_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("queued", "running", "succeeded", "failed", "cancelled"),
            initial="queued", frozen=("succeeded", "failed", "cancelled"),
            seed_weights=(2, 2, 8, 3, 1),
            transitions=(
                Transition("start", ("queued",), "running", "Start the run on its runner."),
                Transition("mark_succeeded", ("running",), "succeeded",
                           "Record a green run.", stamp="finished_on"),
                Transition("mark_failed", ("running",), "failed", "Record a red run."),
                Transition("cancel", ("queued", "running"), "cancelled", "Cancel the run."),
            )),
            constraints=(
                Capacity("runner_id", "max_concurrent_jobs", ("queued", "running")),
                RefInState("runner_id", ("online",)),
                RefInState("pipeline_id", ("enabled",)),
            )),
    ),
)

RELEASES = Archetype(
    id="release_deployments", l2="CI/CD & Release Management",
    title="Release and deployment management",
    description="Versioned releases of services scheduled into deployment windows per "
                "environment, gated by change approvals, and rolled out or rolled back.",
    primary="release", people="",
    features=("comments", "tags", "notifications", "attachments", "audit_log", "search",
              "scheduling", "holidays"),
    entities=(
        Entity("service_app", "service_apps", label="name", count=20,
               description="A deployable service or application.", fields=(
            Field("name", "text", unique=True, vocab=(
                "checkout-service", "user-profile-api", "notification-worker",
                "inventory-sync", "web-storefront", "admin-console", "pricing-engine",
                "recommendations", "gateway", "reporting-api", "mobile-bff",
                "fraud-scorer")),
            Field("team", "enum", filterable=True, values=(
                "payments", "identity", "platform", "growth", "catalog", "data", "mobile")),
            Field("runtime", "enum", values=("kubernetes", "ecs", "lambda", "vm",
                                             "cloud_run")),
            Field("tier", "enum", values=("tier_1", "tier_2", "tier_3"), filterable=True),
        )),
        Entity("deploy_environment", "deploy_environments", label="name", count=12,
               description="A target environment such as staging or production.", fields=(
            Field("name", "text", unique=True, vocab=(
                "dev", "qa", "staging", "uat", "production-eu", "production-us",
                "production-ap", "canary", "perf", "sandbox", "preprod", "dr")),
            Field("requires_approval", "bool"),
            Field("cloud_region", "enum", values=("eu-west-1", "us-east-1", "us-west-2",
                                                  "ap-southeast-1", "eu-central-1")),
        ), lifecycle=Lifecycle(
            states=("open", "frozen_for_changes", "decommissioned"), initial="open",
            frozen=("decommissioned",), seed_weights=(6, 1, 1),
            transitions=(
                Transition("start_change_freeze", ("open",), "frozen_for_changes",
                           "Start a change freeze (e.g. holiday peak)."),
                Transition("end_change_freeze", ("frozen_for_changes",), "open",
                           "End the change freeze."),
                Transition("decommission", ("open", "frozen_for_changes"), "decommissioned",
                           "Retire the environment."),
            ))),
        Entity("release", "releases", label="version", count=150,
               description="A version of a service rolled out to an environment.", fields=(
            Field("release_code", "code", vocab=("REL",)),
            Field("app_id", "ref", ref="service_app", mutable=False, filterable=True),
            Field("environment_id", "ref", ref="deploy_environment", mutable=False,
                  filterable=True),
            Field("version", "text", mutable=False, vocab=(
                "v1.8.0", "v1.8.1", "v1.9.0", "v2.0.0", "v2.0.1", "v2.1.0", "v2.2.0-rc1",
                "v2.2.0", "v3.0.0", "v3.0.1", "v3.1.0", "v3.2.0")),
            Field("strategy", "enum", values=("rolling", "blue_green", "canary",
                                              "recreate"), filterable=True),
            Field("window_start", "date", min=-90, max=30, mutable=False),
            Field("window_end", "date", mutable=False),
            Field("release_notes", "text", vocab=(
                "Bug fixes and performance", "New checkout flow behind flag",
                "Security patch for CVE", "Database migration 0042",
                "Drop legacy v1 endpoints", "Autoscaling tweaks", "Hotfix for timeout",
                "Dependency upgrades", "New metrics and dashboards", "Feature flag cleanup")),
            Field("deployed_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("draft", "scheduled", "deploying", "deployed", "rolled_back",
                    "cancelled"),
            initial="draft", frozen=("deployed", "rolled_back", "cancelled"),
            seed_weights=(2, 3, 1, 7, 1, 1),
            transitions=(
                Transition("schedule", ("draft",), "scheduled",
                           "Book the deployment window."),
                Transition("start_deploy", ("scheduled",), "deploying",
                           "Start rolling out."),
                Transition("mark_deployed", ("deploying",), "deployed",
                           "Record a completed rollout.", stamp="deployed_on"),
                Transition("roll_back", ("deploying", "deployed"), "rolled_back",
                           "Roll back to the previous version."),
                Transition("cancel", ("draft", "scheduled"), "cancelled",
                           "Cancel the release."),
            )),
            constraints=(
                NoOverlap("environment_id", "window_start", "window_end",
                          ("draft", "scheduled", "deploying")),
                DateOrder("window_start", "window_end"),
                RefInState("environment_id", ("open",)),
            )),
        Entity("change_approval", "change_approvals", label="approver_group", count=160,
               description="A sign-off requested for a release.", fields=(
            Field("release_id", "ref", ref="release", mutable=False, filterable=True),
            Field("approver_group", "text", vocab=(
                "Change Advisory Board", "Security review", "QA lead", "Product owner",
                "SRE on-call", "Database admins", "Compliance", "Release manager",
                "Architecture board", "Customer success")),
            Field("risk_level", "enum", values=("low", "medium", "high"), filterable=True),
            Field("justification", "text", required=False, vocab=(
                "Standard change", "Customer-facing outage fix", "Regulatory deadline",
                "Rollback plan tested", "Low blast radius", "Canary first")),
            Field("decided_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("pending", "approved", "rejected"), initial="pending",
            frozen=("approved", "rejected"), seed_weights=(3, 6, 1),
            transitions=(
                Transition("approve", ("pending",), "approved", "Approve the release.",
                           stamp="decided_on"),
                Transition("reject", ("pending",), "rejected", "Reject the release."),
            )),
            constraints=(
                MaxPerParent("release_id", 3, ("pending",)),
                RefInState("release_id", ("draft", "scheduled")),
            )),
    ),
)

ARCHETYPES = (PIPELINES, RELEASES)

_C, _R = "ci_build_pipelines", "release_deployments"

LEAVES = (
    Leaf("jenkins-like-build-server", "Jenkins-like build server",
         "A self-hosted build server: pipelines per repository, runners with job slots, and "
         "queued, running and finished runs.", _C),
    Leaf("github-actions-self-hosted-runners", "Self-hosted Actions runner fleet",
         "A company's fleet of self-hosted workflow runners and the runs they execute.", _C),
    Leaf("gitlab-ci-runner-pool", "GitLab CI runner pool",
         "A platform team's shared CI runner pool for many projects.", _C),
    Leaf("mobile-ci-mac-farm", "Mobile CI Mac build farm",
         "A Mac mini farm running iOS builds and UI tests.", _C),
    Leaf("game-build-farm", "Game build farm",
         "A game studio's build farm producing nightly console and PC builds.", _C),
    Leaf("monorepo-ci-orchestrator", "Monorepo CI orchestrator",
         "A monorepo's CI running only affected pipelines on each push.", _C),
    Leaf("embedded-firmware-ci", "Embedded firmware CI",
         "Firmware builds and hardware-in-the-loop tests on lab runners.", _C),
    Leaf("ml-training-ci-pipelines", "ML training CI pipelines",
         "Pipelines that smoke-test model training on GPU runners.", _C),
    Leaf("open-source-ci-service", "Open source CI service",
         "A free CI service for open-source projects with shared runners.", _C),
    Leaf("university-autograder-ci", "Autograder CI",
         "A course autograder running student submissions through test pipelines.", _C),
    Leaf("data-pipeline-ci-checks", "Data pipeline CI checks",
         "dbt and SQL lint pipelines for an analytics repository.", _C),
    Leaf("infrastructure-plan-ci", "Infrastructure plan pipelines",
         "Terraform plan and policy-check pipelines for infra changes.", _C),
    Leaf("windows-desktop-build-ci", "Windows desktop app CI",
         "A desktop software vendor's Windows build and signing pipelines.", _C),
    Leaf("docs-site-build-ci", "Docs site build pipelines",
         "Pipelines that build and link-check documentation sites.", _C),
    Leaf("security-scan-ci", "Security scanning pipelines",
         "SAST and dependency scanning pipelines on every pull request.", _C),
    Leaf("android-ci-device-lab", "Android CI device lab",
         "Android builds and instrumented tests on a device-lab runner pool.", _C),
    Leaf("scientific-software-ci", "Scientific software CI",
         "A research software group's pipelines on HPC-backed runners.", _C),
    Leaf("bank-regulated-build-pipelines", "Regulated bank build pipelines",
         "A bank's audited build pipelines on isolated runners.", _C),
    Leaf("buildkite-like-agent-queues", "Agent queue build service",
         "A build service dispatching pipeline jobs to agent queues.", _C),
    Leaf("spinnaker-like-release-manager", "Spinnaker-like release manager",
         "Versioned service releases scheduled into per-environment deployment windows, "
         "gated by approvals and rolled back when needed.", _R),
    Leaf("octopus-like-deploy-server", "Octopus-like deployment server",
         "A deployment server promoting releases from dev through production.", _R),
    Leaf("enterprise-cab-change-calendar", "Change advisory board calendar",
         "An enterprise's change calendar where the CAB approves production releases.", _R),
    Leaf("mobile-app-store-releases", "Mobile app store release manager",
         "A mobile team's release trains with staged rollouts and approvals.", _R),
    Leaf("saas-canary-release-manager", "SaaS canary release manager",
         "A SaaS platform's canary and blue-green rollouts per region.", _R),
    Leaf("retail-peak-freeze-releases", "Retail release management with peak freezes",
         "A retailer's release schedule with change freezes over peak season.", _R),
    Leaf("bank-production-change-control", "Bank production change control",
         "A bank's production change control with multi-group approvals.", _R),
    Leaf("game-live-ops-patches", "Game live-ops patch releases",
         "A live game's patch releases to regional server environments.", _R),
    Leaf("healthcare-validated-releases", "Validated healthcare software releases",
         "Releases of validated clinical software with QA and compliance sign-off.", _R),
    Leaf("telecom-network-software-rollouts", "Telecom network software rollouts",
         "A telecom operator's maintenance-window rollouts of network software.", _R),
    Leaf("argo-like-gitops-releases", "GitOps release tracker",
         "A GitOps platform tracking application versions promoted across clusters.", _R),
    Leaf("firmware-ota-release-manager", "Firmware OTA release manager",
         "Over-the-air firmware releases to device fleets in staged windows.", _R),
    Leaf("government-service-releases", "Government digital service releases",
         "A government digital service's releases with security approvals.", _R),
    Leaf("airline-systems-release-windows", "Airline systems release windows",
         "An airline IT department's overnight release windows for booking systems.", _R),
    Leaf("ecommerce-feature-release-train", "E-commerce release train",
         "A weekly release train for an online marketplace's services.", _R),
    Leaf("data-platform-release-manager", "Data platform releases",
         "Releases of data platform services into staging and production.", _R),
    Leaf("desktop-software-release-channels", "Desktop software release channels",
         "A desktop app's beta, stable and LTS release rollouts.", _R),
    Leaf("managed-hosting-maintenance-releases", "Managed hosting maintenance releases",
         "A managed hosting provider's customer-environment upgrade windows.", _R),
    Leaf("automotive-ota-campaigns", "Automotive OTA update campaigns",
         "A carmaker's over-the-air update campaigns approved by safety boards.", _R),
    Leaf("university-it-change-releases", "University IT change releases",
         "A university IT department's scheduled releases of campus systems.", _R),
)
