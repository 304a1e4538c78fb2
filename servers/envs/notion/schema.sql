-- A Notion workspace: members, teamspaces, a tree of pages, blocks, databases, comments, sharing.

CREATE TABLE members (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'member', 'guest')),
    job_title TEXT NOT NULL,
    joined_at TEXT NOT NULL
);

CREATE TABLE teamspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    icon TEXT,
    description TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- Every row of a database is also a page (parent_type = 'database').
CREATE TABLE pages (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    icon TEXT,
    parent_type TEXT NOT NULL CHECK (parent_type IN ('workspace', 'page', 'database')),
    parent_page_id TEXT REFERENCES pages(id),
    parent_database_id TEXT REFERENCES databases(id),
    teamspace_id TEXT REFERENCES teamspaces(id),
    -- Access for workspace members (not guests) without their own grant; NULL = inherit.
    member_access TEXT CHECK (member_access IN
        ('no_access', 'can_view', 'can_comment', 'can_edit', 'full_access')),
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    created_by TEXT NOT NULL REFERENCES members(id),
    created_at TEXT NOT NULL,
    last_edited_by TEXT NOT NULL REFERENCES members(id),
    last_edited_at TEXT NOT NULL,
    CHECK (last_edited_at >= created_at),
    CHECK ((parent_type = 'workspace' AND parent_page_id IS NULL AND parent_database_id IS NULL)
        OR (parent_type = 'page' AND parent_page_id IS NOT NULL AND parent_database_id IS NULL)
        OR (parent_type = 'database' AND parent_page_id IS NULL
            AND parent_database_id IS NOT NULL))
);
CREATE INDEX pages_parent_page ON pages(parent_page_id);
CREATE INDEX pages_parent_database ON pages(parent_database_id);

CREATE TABLE databases (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    icon TEXT,
    description TEXT NOT NULL,
    parent_page_id TEXT NOT NULL REFERENCES pages(id),
    created_by TEXT NOT NULL REFERENCES members(id),
    created_at TEXT NOT NULL,
    last_edited_at TEXT NOT NULL,
    CHECK (last_edited_at >= created_at)
);

CREATE TABLE database_properties (
    database_id TEXT NOT NULL REFERENCES databases(id),
    name TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('title', 'rich_text', 'number', 'select', 'multi_select',
        'date', 'checkbox', 'people', 'url', 'email', 'status')),
    position INTEGER NOT NULL CHECK (position >= 0),
    PRIMARY KEY (database_id, name)
);
-- At most one title property per database.
CREATE UNIQUE INDEX one_title_property ON database_properties(database_id) WHERE type = 'title';

CREATE TABLE property_options (
    database_id TEXT NOT NULL,
    property_name TEXT NOT NULL,
    name TEXT NOT NULL,
    color TEXT NOT NULL CHECK (color IN ('default', 'gray', 'brown', 'orange', 'yellow', 'green',
        'blue', 'purple', 'pink', 'red')),
    -- Only status options belong to a group.
    status_group TEXT CHECK (status_group IN ('to_do', 'in_progress', 'complete')),
    position INTEGER NOT NULL CHECK (position >= 0),
    PRIMARY KEY (database_id, property_name, name),
    FOREIGN KEY (database_id, property_name) REFERENCES database_properties(database_id, name)
);

-- One JSON value per (row page, non-title property); the title lives in pages.title.
CREATE TABLE property_values (
    page_id TEXT NOT NULL REFERENCES pages(id),
    database_id TEXT NOT NULL,
    property_name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (page_id, property_name),
    FOREIGN KEY (database_id, property_name) REFERENCES database_properties(database_id, name)
);

CREATE TABLE blocks (
    id TEXT PRIMARY KEY,
    page_id TEXT NOT NULL REFERENCES pages(id),
    parent_block_id TEXT REFERENCES blocks(id) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 0),
    type TEXT NOT NULL CHECK (type IN ('paragraph', 'heading_1', 'heading_2', 'heading_3',
        'bulleted_list_item', 'numbered_list_item', 'to_do', 'code', 'quote', 'divider',
        'toggle')),
    text TEXT NOT NULL,
    checked INTEGER CHECK (checked IN (0, 1)),
    language TEXT,
    created_by TEXT NOT NULL REFERENCES members(id),
    created_at TEXT NOT NULL,
    last_edited_by TEXT NOT NULL REFERENCES members(id),
    last_edited_at TEXT NOT NULL,
    CHECK (last_edited_at >= created_at),
    CHECK ((type = 'to_do') = (checked IS NOT NULL)),
    CHECK ((type = 'code') = (language IS NOT NULL)),
    CHECK (type <> 'divider' OR text = '')
);
CREATE INDEX blocks_parent ON blocks(page_id, parent_block_id, position);
CREATE INDEX blocks_parent_block ON blocks(parent_block_id);

-- A discussion is a comment thread anchored on a page or on one block of it.
CREATE TABLE discussions (
    id TEXT PRIMARY KEY,
    page_id TEXT NOT NULL REFERENCES pages(id),
    block_id TEXT REFERENCES blocks(id) ON DELETE CASCADE,
    resolved INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
    resolved_by TEXT REFERENCES members(id),
    resolved_at TEXT,
    created_at TEXT NOT NULL,
    CHECK ((resolved = 1) = (resolved_at IS NOT NULL AND resolved_by IS NOT NULL))
);
CREATE INDEX discussions_page ON discussions(page_id);

CREATE TABLE comments (
    id TEXT PRIMARY KEY,
    discussion_id TEXT NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
    author_id TEXT NOT NULL REFERENCES members(id),
    body TEXT NOT NULL CHECK (length(body) > 0),
    created_at TEXT NOT NULL
);
CREATE INDEX comments_discussion ON comments(discussion_id);

-- Explicit sharing grants; everything else is inherited up the page tree.
CREATE TABLE page_permissions (
    page_id TEXT NOT NULL REFERENCES pages(id),
    member_id TEXT NOT NULL REFERENCES members(id),
    level TEXT NOT NULL CHECK (level IN
        ('no_access', 'can_view', 'can_comment', 'can_edit', 'full_access')),
    granted_by TEXT NOT NULL REFERENCES members(id),
    granted_at TEXT NOT NULL,
    PRIMARY KEY (page_id, member_id)
);
CREATE INDEX page_permissions_member ON page_permissions(member_id);
