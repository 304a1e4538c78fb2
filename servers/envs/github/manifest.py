"""The GitHub environment's manifest: what it models and the business rules it keeps."""

from __future__ import annotations

from agentworld.servers import DataSource, Manifest, Rule, Taxonomy

__all__ = ["MANIFEST", "MUTATING_TOOLS"]

MUTATING_TOOLS = (
    "create_issue", "update_issue", "add_issue_comment", "add_labels", "remove_label",
    "create_label", "set_milestone", "create_pull_request", "submit_review", "rerun_check_run",
    "merge_pull_request",
)
MERGE = ("merge_pull_request",)

RULES = (
    Rule("repo-role-required",
         "Each write needs a minimum role on the repository: read to open issues, pull requests, "
         "reviews and comments; triage to label, assign, set milestones and close others' "
         "issues; write to create labels, edit others' issue text, re-run checks and merge.",
         MUTATING_TOOLS, "FORBIDDEN"),
    Rule("archived-read-only", "An archived repository is read-only: every write is refused.",
         MUTATING_TOOLS, "FORBIDDEN"),
    Rule("label-name-unique",
         "Label names are unique within a repository, ignoring case.",
         ("create_label",), "CONFLICT"),
    Rule("milestone-same-repo",
         "An issue can only be put on a milestone of its own repository.",
         ("set_milestone", "create_issue"), "VALIDATION_ERROR"),
    Rule("milestone-open", "Only open milestones can be assigned.",
         ("set_milestone", "create_issue"), "VALIDATION_ERROR"),
    Rule("state-reason-matches-state",
         "state_reason completed/not_planned requires a closed issue and reopened an open one; "
         "pull requests take no state_reason.",
         ("update_issue",), "VALIDATION_ERROR"),
    Rule("assignee-assignable",
         "Assignees must have write access, belong to the owning organization, or have taken "
         "part in the conversation; at most 10 per issue.",
         ("update_issue", "create_issue"), "VALIDATION_ERROR"),
    Rule("locked-conversation",
         "Only users with write access can comment on a locked conversation.",
         ("add_issue_comment",), "FORBIDDEN"),
    Rule("pr-branches-valid",
         "A pull request's head and base must be existing, different branches with different "
         "commits.",
         ("create_pull_request",), "VALIDATION_ERROR"),
    Rule("one-open-pr-per-branch-pair",
         "At most one open pull request may exist for the same head -> base pair.",
         ("create_pull_request", "update_issue"), "CONFLICT"),
    Rule("merged-pr-final", "A merged pull request cannot be closed or reopened.",
         ("update_issue",), "CONFLICT"),
    Rule("no-self-review",
         "Authors cannot approve or request changes on their own pull request.",
         ("submit_review",), "FORBIDDEN"),
    Rule("review-body-required",
         "REQUEST_CHANGES and COMMENT reviews need a body.",
         ("submit_review",), "VALIDATION_ERROR"),
    Rule("review-open-pr-only",
         "Closed or merged pull requests cannot be approved or have changes requested.",
         ("submit_review",), "PRECONDITION_FAILED"),
    Rule("merge-open-only", "A merged or closed pull request cannot be merged.",
         MERGE, "CONFLICT"),
    Rule("draft-not-mergeable", "A draft pull request cannot be merged.",
         MERGE, "PRECONDITION_FAILED"),
    Rule("head-sha-guard",
         "When a merge names the expected head sha, the head must still be that commit.",
         MERGE, "CONFLICT"),
    Rule("merge-method-allowed",
         "The merge method must be one the repository allows.",
         MERGE, "VALIDATION_ERROR"),
    Rule("no-merge-conflicts", "A pull request with merge conflicts cannot be merged.",
         MERGE, "CONFLICT"),
    Rule("required-checks-pass",
         "Every required status check of the base branch must have passed (success, neutral "
         "or skipped) on the head commit; failing, pending or missing checks block the merge.",
         MERGE, "PRECONDITION_FAILED"),
    Rule("changes-requested-blocks",
         "A writer whose latest review requests changes blocks the merge.",
         MERGE, "PRECONDITION_FAILED"),
    Rule("required-approvals",
         "The base branch's required number of approving reviews must come from writers, on "
         "the current head commit.",
         MERGE, "PRECONDITION_FAILED"),
    Rule("rerun-completed-latest",
         "Only the latest attempt of a completed check run can be re-run.",
         ("rerun_check_run",), "CONFLICT"),
)

MANIFEST = Manifest(
    id="github",
    version="1.0.0",
    title="GitHub",
    description=(
        "Code hosting for the Harborline organization: 30 people, 13 repositories (web app, "
        "API, CLI, docs, infra, SDKs, an archived dashboard), about 400 issues and 120 pull "
        "requests with labels, milestones, reviews and CI check runs. Agents triage issues, "
        "open and review pull requests, re-run checks and merge under branch protection."),
    taxonomy=Taxonomy("Software Development", "Code Hosting & Version Control",
                      "Issues, pull requests and CI"),
    rules=RULES,
    data_sources=(DataSource("generated", "CC0-1.0",
                             "Synthetic organization, people and repository history generated "
                             "from a fixed seed; modelled on GitHub's REST API semantics."),),
    tags=("github", "issues", "pull-requests", "code-review", "ci", "permissions"),
    bookkeeping=("*.updated_at",),
)
