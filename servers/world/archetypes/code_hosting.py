"""Software Development > Code Hosting & Version Control: repositories with pull requests, and
package registries."""

from ..spec import (
    Archetype,
    DateOrder,
    Entity,
    Field,
    Leaf,
    Lifecycle,
    MaxPerParent,
    RefInState,
    Transition,
)

_LANGUAGES = ("python", "typescript", "go", "rust", "java", "kotlin", "c_sharp", "ruby",
              "php", "swift", "cpp")

REPOS = Archetype(
    id="git_pull_requests", l2="Code Hosting & Version Control",
    title="Git repositories and pull requests",
    description="Repositories where developers open pull requests from feature branches, "
                "reviewers approve or request changes, and maintainers merge or close them.",
    primary="pull_request", people="developer",
    features=("comments", "tags", "notifications", "attachments", "audit_log", "search",
              "sharing"),
    entities=(
        Entity("developer", "developers", label="username", count=60,
               description="A user account on the code host.", fields=(
            Field("username", "text", unique=True, vocab=(
                "octodev", "rustacean42", "gopher-jane", "pyfan", "tsninja", "kernelhacker",
                "devops-dan", "frontend-fiona", "backend-bo", "ml-mia", "qa-quinn",
                "sre-sam")),
            Field("full_name", "name"),
            Field("email", "email", unique=True),
            Field("two_factor_enabled", "bool"),
            Field("account_type", "enum", values=("member", "outside_collaborator", "admin",
                                                  "bot"), filterable=True),
        )),
        Entity("repository", "repositories", label="name", count=25,
               description="A Git repository.", fields=(
            Field("name", "text", unique=True, vocab=(
                "payments-api", "web-frontend", "mobile-app", "infra-terraform",
                "data-pipeline", "auth-service", "design-system", "docs-site", "cli-tool",
                "search-indexer", "billing-worker", "ml-models")),
            Field("owner_id", "ref", ref="developer", filterable=True),
            Field("visibility", "enum", values=("public", "private", "internal"),
                  filterable=True),
            Field("default_branch", "enum", values=("main", "master", "develop", "trunk")),
            Field("primary_language", "enum", values=_LANGUAGES, filterable=True),
            Field("description_text", "text", required=False, vocab=(
                "Public REST API for payments", "Customer-facing web app",
                "iOS and Android client", "Infrastructure as code", "Nightly ETL jobs",
                "OAuth2 and SSO service", "Shared UI components", "Product documentation")),
        ), lifecycle=Lifecycle(
            states=("active", "archived", "locked"), initial="active",
            frozen=("archived",), seed_weights=(8, 2, 1),
            transitions=(
                Transition("archive", ("active", "locked"), "archived",
                           "Archive the repository (read-only)."),
                Transition("unarchive", ("archived",), "active", "Unarchive the repository."),
                Transition("lock", ("active",), "locked",
                           "Lock the repository during a migration."),
                Transition("unlock", ("locked",), "active", "Unlock the repository."),
            ))),
        Entity("pull_request", "pull_requests", label="title", count=200,
               description="A proposed change from a branch into a base branch.", fields=(
            Field("pr_ref", "code", vocab=("PR",)),
            Field("repository_id", "ref", ref="repository", mutable=False, filterable=True),
            Field("author_id", "ref", ref="developer", mutable=False, filterable=True),
            Field("title", "text", vocab=(
                "Fix null pointer in checkout", "Add rate limiting middleware",
                "Upgrade to Node 20", "Refactor auth token refresh", "Add dark mode",
                "Bump lodash from 4.17.20 to 4.17.21", "Improve search relevance",
                "Remove deprecated endpoints", "Add retry to webhook sender",
                "Speed up CI cache", "Add Terraform module for Redis",
                "Document release process")),
            Field("head_branch", "text", mutable=False, vocab=(
                "fix/checkout-npe", "feat/rate-limit", "chore/node20", "refactor/auth",
                "feat/dark-mode", "dependabot/npm/lodash", "feat/search-boost",
                "chore/remove-v1", "fix/webhook-retry", "ci/cache")),
            Field("base_branch", "enum", values=("main", "develop", "release/2.4",
                                                 "release/3.0")),
            Field("lines_changed", "int", min=1, max=4_000),
            Field("merged_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("open", "draft", "approved", "changes_requested", "merged", "closed"),
            initial="open", frozen=("merged", "closed"), seed_weights=(4, 2, 2, 2, 8, 2),
            transitions=(
                Transition("convert_to_draft", ("open",), "draft", "Convert to a draft."),
                Transition("mark_ready", ("draft",), "open", "Mark the draft ready for review."),
                Transition("approve", ("open", "changes_requested"), "approved",
                           "Approve the pull request."),
                Transition("request_changes", ("open", "approved"), "changes_requested",
                           "Request changes before merging."),
                Transition("merge", ("approved",), "merged", "Merge into the base branch.",
                           stamp="merged_on"),
                Transition("close", ("open", "draft", "approved", "changes_requested"),
                           "closed", "Close without merging."),
                Transition("reopen", ("closed",), "open", "Reopen a closed pull request."),
            )),
            constraints=(
                MaxPerParent("author_id", 4, ("open", "draft", "approved",
                                              "changes_requested")),
                RefInState("repository_id", ("active",)),
            )),
        Entity("branch_protection", "branch_protections", label="pattern", count=50,
               description="A rule protecting branches that match a pattern.", fields=(
            Field("repository_id", "ref", ref="repository", mutable=False, filterable=True),
            Field("pattern", "text", vocab=(
                "main", "master", "release/*", "develop", "hotfix/*", "v*.*", "prod",
                "staging", "trunk", "stable/*")),
            Field("required_approvals", "int", min=0, max=6),
            Field("require_status_checks", "bool"),
            Field("allow_force_push", "bool"),
        ), lifecycle=Lifecycle(
            states=("enforced", "disabled"), initial="enforced", seed_weights=(5, 1),
            transitions=(
                Transition("disable", ("enforced",), "disabled", "Stop enforcing the rule."),
                Transition("enforce", ("disabled",), "enforced", "Enforce the rule again."),
            )),
            constraints=(
                MaxPerParent("repository_id", 3, ("enforced",)),
                RefInState("repository_id", ("active", "locked")),
            )),
    ),
)

REGISTRY = Archetype(
    id="package_registry", l2="Code Hosting & Version Control", title="Package registry",
    description="Maintainers publish versions of packages, deprecate or yank bad releases, "
                "and hold scoped publish tokens that expire.",
    primary="package", people="maintainer",
    features=("comments", "tags", "notifications", "audit_log", "search", "reviews",
              "attachments"),
    entities=(
        Entity("maintainer", "maintainers", label="username", count=60,
               description="A registry account that can publish.", fields=(
            Field("username", "text", unique=True, vocab=(
                "sindre", "tjholo", "ljharb-ish", "mafintosh-fan", "pkg-bot", "isaacz",
                "feross-like", "substack-fan", "crate-smith", "gem-cutter", "pypi-pat",
                "maven-max")),
            Field("full_name", "name"),
            Field("email", "email", unique=True),
            Field("mfa_enabled", "bool"),
        )),
        Entity("package", "packages", label="name", count=50,
               description="A named package in the registry.", fields=(
            Field("name", "text", unique=True, mutable=False, vocab=(
                "left-pad-plus", "fast-json-parse", "tiny-router", "color-convert-x",
                "http-retry", "yaml-lite", "date-fns-tz-mini", "cli-spinner-pro",
                "orm-lite", "image-resize", "env-loader", "uuid-fast")),
            Field("owner_id", "ref", ref="maintainer", filterable=True),
            Field("ecosystem", "enum", values=("npm", "pypi", "crates", "rubygems", "maven",
                                               "nuget", "go"), filterable=True),
            Field("license", "enum", values=("MIT", "Apache-2.0", "BSD-3-Clause", "ISC",
                                             "GPL-3.0", "MPL-2.0")),
            Field("weekly_downloads", "int", min=0, max=5_000_000),
            Field("repository_url", "text", required=False, vocab=(
                "https://github.com/acme/tiny-router", "https://gitlab.com/ops/yaml-lite",
                "https://github.com/kit/http-retry", "https://codeberg.org/x/env-loader",
                "https://github.com/img/image-resize", "https://github.com/u/uuid-fast")),
        ), lifecycle=Lifecycle(
            states=("active", "deprecated", "quarantined"), initial="active",
            frozen=("quarantined",), seed_weights=(8, 2, 1),
            transitions=(
                Transition("deprecate", ("active",), "deprecated",
                           "Deprecate the package with a notice."),
                Transition("undeprecate", ("deprecated",), "active", "Lift the deprecation."),
                Transition("quarantine", ("active", "deprecated"), "quarantined",
                           "Quarantine a package reported as malware."),
            ))),
        Entity("package_version", "package_versions", label="version", count=220,
               description="A published version of a package.", fields=(
            Field("package_id", "ref", ref="package", mutable=False, filterable=True),
            Field("version", "text", mutable=False, vocab=(
                "0.1.0", "0.9.2", "1.0.0", "1.0.1", "1.2.0", "1.4.3", "2.0.0-beta.1",
                "2.0.0", "2.1.5", "3.0.0-rc.2", "3.0.0", "3.2.1")),
            Field("tag", "enum", values=("latest", "next", "beta", "legacy"),
                  filterable=True),
            Field("size_kb", "int", min=1, max=25_000),
            Field("changelog", "text", vocab=(
                "Fix memory leak", "Add ESM build", "Drop Node 14", "Security fix",
                "Performance improvements", "New API for streaming", "Typings update",
                "Bug fixes", "Breaking: rename options", "Docs only")),
            Field("yanked_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("published", "deprecated", "yanked"), initial="published",
            frozen=("yanked",), seed_weights=(10, 2, 1),
            transitions=(
                Transition("deprecate", ("published",), "deprecated",
                           "Deprecate this version."),
                Transition("yank", ("published", "deprecated"), "yanked",
                           "Yank a broken version so new installs skip it.",
                           stamp="yanked_on"),
            )),
            constraints=(
                RefInState("package_id", ("active",)),
            )),
        Entity("publish_token", "publish_tokens", label="token_name", count=100,
               description="A scoped token used to publish from CI.", fields=(
            Field("token_code", "code", vocab=("TKN",)),
            Field("maintainer_id", "ref", ref="maintainer", mutable=False, filterable=True),
            Field("token_name", "text", vocab=(
                "GitHub Actions publish", "Local laptop", "Release bot", "CircleCI deploy",
                "Jenkins nightly", "GitLab CI", "Buildkite", "Emergency hotfix",
                "Read-only mirror", "Renovate bot")),
            Field("scope", "enum", values=("read_only", "publish", "automation", "admin"),
                  filterable=True),
            Field("issued_on", "date", min=-300, max=0, mutable=False),
            Field("expires_on", "date", mutable=False),
        ), lifecycle=Lifecycle(
            states=("active", "revoked", "expired"), initial="active",
            frozen=("revoked", "expired"), seed_weights=(4, 2, 2),
            transitions=(
                Transition("revoke", ("active",), "revoked", "Revoke the token now."),
                Transition("expire", ("active",), "expired", "Expire a token past its date."),
            )),
            constraints=(
                MaxPerParent("maintainer_id", 3, ("active",)),
                DateOrder("issued_on", "expires_on"),
            )),
    ),
)

ARCHETYPES = (REPOS, REGISTRY)

_G, _P = "git_pull_requests", "package_registry"

LEAVES = (
    Leaf("gitlab-like-self-hosted-git", "GitLab-like self-hosted Git server",
         "A company's self-hosted Git server: repositories, merge requests and protected "
         "branches.", _G),
    Leaf("bitbucket-like-team-repos", "Bitbucket-like team repositories",
         "A team code host with pull requests reviewed before merging to main.", _G),
    Leaf("gitea-community-forge", "Community code forge",
         "A lightweight community forge hosting open-source projects.", _G),
    Leaf("enterprise-monorepo-host", "Enterprise monorepo host",
         "An enterprise's internal code host for a few large monorepos with strict "
         "branch protection.", _G),
    Leaf("university-course-git-classroom", "Git classroom for courses",
         "A university's Git service where students submit assignments as pull requests.",
         _G),
    Leaf("open-source-foundation-forge", "Open source foundation forge",
         "A software foundation's forge for its incubating projects.", _G),
    Leaf("game-studio-source-control", "Game studio source control",
         "A game studio's repositories for engine, tools and gameplay code.", _G),
    Leaf("infra-as-code-repo-host", "Infrastructure-as-code repository host",
         "A platform team's Terraform and Helm repositories gated by reviews.", _G),
    Leaf("data-science-notebook-repos", "Data science project repositories",
         "Repositories of analysis notebooks and models with peer-reviewed changes.", _G),
    Leaf("government-code-sharing-portal", "Government code sharing portal",
         "A public-sector portal where agencies share and review open code.", _G),
    Leaf("firmware-repo-host", "Embedded firmware repositories",
         "A hardware company's firmware repositories with release branches.", _G),
    Leaf("docs-as-code-repos", "Docs-as-code repositories",
         "Technical writers' documentation repos reviewed like code.", _G),
    Leaf("agency-client-repos", "Agency client project repositories",
         "A web agency's per-client repositories with outside collaborators.", _G),
    Leaf("bank-regulated-scm", "Regulated bank source control",
         "A bank's source control with enforced approvals for audited changes.", _G),
    Leaf("mobile-app-team-repos", "Mobile app team repositories",
         "A mobile team's iOS and Android repositories and release branches.", _G),
    Leaf("research-software-forge", "Research software forge",
         "A research institute's forge for scientific software.", _G),
    Leaf("bootcamp-student-repos", "Coding bootcamp repositories",
         "A bootcamp's student project repos reviewed by mentors.", _G),
    Leaf("gerrit-style-code-review-host", "Change-based code review host",
         "A code host centred on reviewing changes before they land on trunk.", _G),
    Leaf("hackathon-project-repos", "Hackathon project repositories",
         "Short-lived repositories for hackathon teams, archived afterwards.", _G),
    Leaf("automotive-software-scm", "Automotive software source control",
         "An automaker's repositories for vehicle software with locked release branches.",
         _G),
    Leaf("npm-like-javascript-registry", "npm-like JavaScript package registry",
         "A JavaScript package registry: packages, published versions, deprecations and "
         "scoped publish tokens.", _P),
    Leaf("pypi-like-python-index", "PyPI-like Python package index",
         "A Python package index with yanked releases and API tokens.", _P),
    Leaf("crates-like-rust-registry", "Rust crate registry",
         "A Rust crate registry where maintainers publish and yank versions.", _P),
    Leaf("private-artifact-repository", "Private artifact repository",
         "A company's internal artifact repository proxying and hosting packages.", _P),
    Leaf("maven-central-like-repo", "Java artifact repository",
         "A Java/Maven artifact repository for open-source libraries.", _P),
    Leaf("rubygems-like-gem-host", "Ruby gem host",
         "A Ruby gem host with owners, versions and API keys.", _P),
    Leaf("nuget-like-dotnet-feed", ".NET package feed",
         "A .NET package feed with listed and deprecated versions.", _P),
    Leaf("helm-chart-repository", "Helm chart repository",
         "A registry of Kubernetes Helm charts and chart versions.", _P),
    Leaf("terraform-module-registry", "Terraform module registry",
         "A private registry of Terraform modules for platform teams.", _P),
    Leaf("container-image-registry", "Container image registry",
         "A registry of container images, tags and push tokens.", _P),
    Leaf("vscode-extension-marketplace", "Editor extension marketplace",
         "A marketplace where publishers release editor extensions.", _P),
    Leaf("browser-extension-store-dev", "Browser extension developer store",
         "A browser extension store's developer side: listings, versions and tokens.", _P),
    Leaf("wordpress-plugin-directory", "CMS plugin directory",
         "A CMS plugin directory with releases and deprecated plugins.", _P),
    Leaf("game-mod-repository", "Game mod repository",
         "A modding community's repository of mods and their versions.", _P),
    Leaf("ml-model-package-hub", "ML model package hub",
         "A hub of packaged ML models with versioned releases.", _P),
    Leaf("arduino-library-index", "Embedded library index",
         "An index of microcontroller libraries and their releases.", _P),
    Leaf("security-scanned-mirror", "Security-scanned package mirror",
         "A curated mirror that quarantines packages flagged as malicious.", _P),
    Leaf("latex-package-archive", "TeX package archive",
         "An archive of TeX packages maintained by volunteers.", _P),
    Leaf("design-token-package-registry", "Design system package registry",
         "An internal registry for design system component packages.", _P),
)
