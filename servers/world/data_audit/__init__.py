"""The data audit: would a domain expert believe an environment's seeded data and its text?

It reads an environment's template database back (as the runtime builds it) and checks dates,
states, people in roles, ids, ranges, codes, labels and grammar. Every finding names the
environment, the table, the row and the rule (see ``RULES``). ``agentworld world audit --data``
runs it from the command line; ``filters.run_data_filter`` runs it as the pipeline's fourth
filter.
"""

from .model import Finding, Subject, ToolText, subject_from_db
from .run import (
    CHECKS,
    RULES,
    AuditRun,
    EnvAudit,
    audit_compiled,
    audit_env,
    audit_envs,
    audit_subject,
    subject_for,
)

__all__ = ["Finding", "Subject", "ToolText", "subject_from_db", "RULES", "CHECKS", "AuditRun",
           "EnvAudit", "audit_subject", "subject_for", "audit_compiled", "audit_env",
           "audit_envs"]
