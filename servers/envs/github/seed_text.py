"""Believable text for seeded issues and pull requests: titles, bodies, branch names, comments."""

from __future__ import annotations

import random
import re

from .seed_data import (
    BUG_BODY,
    BUG_TITLES,
    COMMENTS,
    DETAILS,
    DOC_TITLES,
    ENHANCEMENT_BODY,
    ENHANCEMENT_TITLES,
    GENERIC_BODY,
    QUESTION_TITLES,
    TRIGGERS,
    RepoSpec,
)

__all__ = ["issue_text", "pull_title", "chore_title", "bump", "branch_slug", "comment",
           "version_of"]

TEMPLATES = {"bug": BUG_TITLES, "enhancement": ENHANCEMENT_TITLES, "docs": DOC_TITLES,
             "question": QUESTION_TITLES}
PREFIX = {"bug": "fix", "enhancement": "feat", "docs": "docs"}
CHORES = (
    "chore: remove deprecated {area} code path",
    "refactor: split {area} into smaller modules",
    "test: cover {area} edge cases",
    "ci: run the {area} tests in parallel",
    "chore: tidy up logging in {area}",
)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].isalpha() else text


def _lower(text: str) -> str:
    # Keep proper nouns and code spans ("SSO", "`harbor login`", "Button") as they are.
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower() and first not in TEMPLATE_NOUNS:
        return text[:1].lower() + text[1:]
    return text


# Words that start titles but are names, so they keep their capital letter.
TEMPLATE_NOUNS = {"Button", "DatePicker", "Modal", "Toast", "Table", "Tooltip", "Select",
                  "Client", "Python", "Deno", "Stripe", "GraphQL", "Helm", "EKS", "RDS",
                  "CloudFront", "VPC", "ESM", "Snowflake", "OAuth"}


def version_of(spec: RepoSpec) -> str:
    return f"{spec.versions[1]}.0" if len(spec.versions) > 1 else spec.default_branch


def issue_text(rng: random.Random, spec: RepoSpec, kind: str) -> tuple[str, str]:
    """A (title, body) pair for an issue of kind bug, enhancement, docs or question."""
    values = {"area": rng.choice(spec.areas), "feature": rng.choice(spec.features),
              "trigger": rng.choice(TRIGGERS), "detail": rng.choice(DETAILS),
              "version": version_of(spec)}
    title = _capital(rng.choice(TEMPLATES[kind]).format(**values))
    template = {"bug": BUG_BODY, "enhancement": ENHANCEMENT_BODY}.get(kind, GENERIC_BODY)
    return title, template.format(title=title, **values)


def pull_title(kind: str, issue_title: str) -> str:
    """A conventional-commit style title for the pull request that fixes an issue.

    "Search bar: allow saved filters" becomes "feat(search-bar): allow saved filters".
    """
    prefix = PREFIX.get(kind, "fix")
    head, sep, rest = issue_title.partition(": ")
    if not sep:
        return f"{prefix}: {_lower(issue_title)}"
    if head == "Regression":
        return f"{prefix}: {_lower(rest)} (regression)"
    scope = re.sub(r"[^a-z0-9]+", "-", head.lower()).strip("-")
    return f"{prefix}({scope}): {rest}"


def chore_title(rng: random.Random, spec: RepoSpec) -> str:
    return rng.choice(CHORES).format(area=rng.choice(spec.areas))


def bump(rng: random.Random, spec: RepoSpec) -> tuple[str, str, str]:
    """A dependency bump: (title, branch name, new version)."""
    dep = rng.choice(spec.deps)
    major, minor, patch = rng.randint(1, 9), rng.randint(0, 30), rng.randint(0, 12)
    old = f"{major}.{minor}.{patch}"
    new = f"{major}.{minor + 1}.0" if rng.random() < 0.5 else f"{major}.{minor}.{patch + 1}"
    branch = f"dependabot/{spec.dep_ecosystem}/{dep.replace('@', '')}-{new}"
    return f"Bump {dep} from {old} to {new}", branch, new


def branch_slug(title: str) -> str:
    """A short kebab-case slug for a branch name, from a title."""
    words = re.sub(r"[^a-z0-9]+", " ", title.lower()).split()
    words = [w for w in words if w not in {"the", "a", "an", "when", "to", "in", "for", "from"}]
    return "-".join(words[:5]) or "update"


def comment(rng: random.Random, spec: RepoSpec) -> str:
    return rng.choice(COMMENTS).format(version=version_of(spec))
