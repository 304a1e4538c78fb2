-- GitHub-like hosting: accounts, organizations, repositories with branch protection,
-- issues and pull requests sharing one number sequence per repository, reviews and checks.

-- Users and organizations share one namespace of logins, as on GitHub.
CREATE TABLE accounts (
    login       TEXT PRIMARY KEY COLLATE NOCASE,
    type        TEXT NOT NULL CHECK (type IN ('User', 'Bot', 'Organization')),
    name        TEXT NOT NULL,
    email       TEXT,
    created_at  TEXT NOT NULL
);

CREATE TABLE org_members (
    org    TEXT NOT NULL REFERENCES accounts(login),
    login  TEXT NOT NULL REFERENCES accounts(login),
    role   TEXT NOT NULL CHECK (role IN ('member', 'owner')),
    PRIMARY KEY (org, login)
);

CREATE TABLE repos (
    id                  INTEGER PRIMARY KEY,
    owner               TEXT NOT NULL REFERENCES accounts(login),
    name                TEXT NOT NULL,
    full_name           TEXT NOT NULL UNIQUE COLLATE NOCASE,
    description         TEXT NOT NULL,
    language            TEXT,
    visibility          TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
    default_branch      TEXT NOT NULL,
    archived            INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    allow_merge_commit  INTEGER NOT NULL DEFAULT 1 CHECK (allow_merge_commit IN (0, 1)),
    allow_squash_merge  INTEGER NOT NULL DEFAULT 1 CHECK (allow_squash_merge IN (0, 1)),
    allow_rebase_merge  INTEGER NOT NULL DEFAULT 1 CHECK (allow_rebase_merge IN (0, 1)),
    stars               INTEGER NOT NULL DEFAULT 0 CHECK (stars >= 0),
    created_at          TEXT NOT NULL,
    pushed_at           TEXT NOT NULL,
    UNIQUE (owner, name)
);

CREATE TABLE collaborators (
    repo_id     INTEGER NOT NULL REFERENCES repos(id),
    login       TEXT NOT NULL REFERENCES accounts(login),
    permission  TEXT NOT NULL CHECK (permission IN ('read', 'triage', 'write', 'maintain', 'admin')),
    PRIMARY KEY (repo_id, login)
);

CREATE TABLE branches (
    repo_id             INTEGER NOT NULL REFERENCES repos(id),
    name                TEXT NOT NULL,
    head_sha            TEXT NOT NULL CHECK (length(head_sha) = 40),
    protected           INTEGER NOT NULL DEFAULT 0 CHECK (protected IN (0, 1)),
    required_approvals  INTEGER NOT NULL DEFAULT 0 CHECK (required_approvals BETWEEN 0 AND 6),
    updated_at          TEXT NOT NULL,
    PRIMARY KEY (repo_id, name)
);

-- Status check contexts a protected branch requires before a pull request may merge into it.
CREATE TABLE required_checks (
    repo_id  INTEGER NOT NULL,
    branch   TEXT NOT NULL,
    context  TEXT NOT NULL,
    PRIMARY KEY (repo_id, branch, context),
    FOREIGN KEY (repo_id, branch) REFERENCES branches(repo_id, name)
);

CREATE TABLE labels (
    id           INTEGER PRIMARY KEY,
    repo_id      INTEGER NOT NULL REFERENCES repos(id),
    name         TEXT NOT NULL COLLATE NOCASE,
    color        TEXT NOT NULL CHECK (length(color) = 6),
    description  TEXT NOT NULL DEFAULT '',
    UNIQUE (repo_id, name)
);

CREATE TABLE milestones (
    id           INTEGER PRIMARY KEY,
    repo_id      INTEGER NOT NULL REFERENCES repos(id),
    number       INTEGER NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    state        TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    due_on       TEXT,
    created_at   TEXT NOT NULL,
    closed_at    TEXT,
    UNIQUE (repo_id, number),
    UNIQUE (repo_id, title),
    CHECK ((state = 'closed') = (closed_at IS NOT NULL))
);

-- Issues and pull requests: a pull request is an issue row of kind 'pull' plus a pulls row.
CREATE TABLE issues (
    id            INTEGER PRIMARY KEY,
    repo_id       INTEGER NOT NULL REFERENCES repos(id),
    number        INTEGER NOT NULL CHECK (number > 0),
    kind          TEXT NOT NULL CHECK (kind IN ('issue', 'pull')),
    title         TEXT NOT NULL,
    body          TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL REFERENCES accounts(login),
    state         TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    state_reason  TEXT CHECK (state_reason IN ('completed', 'not_planned', 'reopened')),
    milestone_id  INTEGER REFERENCES milestones(id),
    locked        INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    closed_at     TEXT,
    closed_by     TEXT REFERENCES accounts(login),
    UNIQUE (repo_id, number),
    CHECK ((state = 'closed') = (closed_at IS NOT NULL)),
    CHECK (state = 'closed' OR state_reason IS NULL OR state_reason = 'reopened'),
    CHECK (state = 'open' OR state_reason IS NULL OR state_reason <> 'reopened')
);
CREATE INDEX issues_repo_state ON issues(repo_id, state);

CREATE TABLE issue_labels (
    issue_id  INTEGER NOT NULL REFERENCES issues(id),
    label_id  INTEGER NOT NULL REFERENCES labels(id),
    PRIMARY KEY (issue_id, label_id)
);

CREATE TABLE issue_assignees (
    issue_id  INTEGER NOT NULL REFERENCES issues(id),
    login     TEXT NOT NULL REFERENCES accounts(login),
    PRIMARY KEY (issue_id, login)
);

CREATE TABLE comments (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER NOT NULL REFERENCES issues(id),
    author      TEXT NOT NULL REFERENCES accounts(login),
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX comments_issue ON comments(issue_id);

CREATE TABLE pulls (
    issue_id          INTEGER PRIMARY KEY REFERENCES issues(id),
    head_branch       TEXT NOT NULL,
    base_branch       TEXT NOT NULL,
    head_sha          TEXT NOT NULL CHECK (length(head_sha) = 40),
    state             TEXT NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
    draft             INTEGER NOT NULL DEFAULT 0 CHECK (draft IN (0, 1)),
    mergeable         INTEGER NOT NULL DEFAULT 1 CHECK (mergeable IN (0, 1)),
    additions         INTEGER NOT NULL DEFAULT 0 CHECK (additions >= 0),
    deletions         INTEGER NOT NULL DEFAULT 0 CHECK (deletions >= 0),
    merged_at         TEXT,
    merged_by         TEXT REFERENCES accounts(login),
    merge_method      TEXT CHECK (merge_method IN ('merge', 'squash', 'rebase')),
    merge_commit_sha  TEXT CHECK (merge_commit_sha IS NULL OR length(merge_commit_sha) = 40),
    CHECK (head_branch <> base_branch),
    CHECK ((state = 'merged') = (merged_at IS NOT NULL)),
    CHECK ((state = 'merged') = (merge_commit_sha IS NOT NULL))
);

CREATE TABLE reviews (
    id            INTEGER PRIMARY KEY,
    issue_id      INTEGER NOT NULL REFERENCES pulls(issue_id),
    reviewer      TEXT NOT NULL REFERENCES accounts(login),
    state         TEXT NOT NULL CHECK (state IN ('APPROVED', 'CHANGES_REQUESTED', 'COMMENTED')),
    body          TEXT NOT NULL DEFAULT '',
    commit_id     TEXT NOT NULL CHECK (length(commit_id) = 40),
    submitted_at  TEXT NOT NULL
);
CREATE INDEX reviews_issue ON reviews(issue_id);

CREATE TABLE check_runs (
    id            INTEGER PRIMARY KEY,
    repo_id       INTEGER NOT NULL REFERENCES repos(id),
    head_sha      TEXT NOT NULL CHECK (length(head_sha) = 40),
    name          TEXT NOT NULL,
    app           TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed')),
    conclusion    TEXT CHECK (conclusion IN
                      ('success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out')),
    started_at    TEXT,
    completed_at  TEXT,
    CHECK ((status = 'completed') = (conclusion IS NOT NULL)),
    CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE INDEX check_runs_sha ON check_runs(repo_id, head_sha);
