"""The world's taxonomy: 20 top-level categories (the paper's), 50 second-level ones, and the
number of leaves (concrete services) in each, 1,978 in all.

Each second-level category has one archetype module in ``archetypes/`` holding its kinds of
service (``ARCHETYPES``) and its leaves (``LEAVES``). Three leaves are the hand-built reference
environments.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Category", "TAXONOMY", "REFERENCE_LEAVES", "categories"]


@dataclass(frozen=True)
class Category:
    l1: str
    l2: str
    module: str       # archetypes/<module>.py
    leaves: int       # leaves in all, reference environments included


# The hand-built environments are leaves of these second-level categories.
REFERENCE_LEAVES = {"notion": "Docs & Knowledge Bases",
                    "github": "Code Hosting & Version Control",
                    "airline": "Air Travel"}

_RAW = {
    "Search & Information Retrieval": [
        ("Web & Enterprise Search", "search_engines", 40),
        ("Directories & Listings", "directories", 39)],
    "Academic & Scientific Research": [
        ("Scholarly Publishing", "scholarly_publishing", 40),
        ("Research Labs & Grants", "research_labs", 39),
        ("Libraries & Archives", "libraries", 40)],
    "Social Media & Community": [
        ("Social Networks", "social_networks", 40),
        ("Forums & Communities", "forums", 39),
        ("Events & Meetups", "events", 40)],
    "Finance & Markets": [
        ("Banking & Payments", "banking", 40),
        ("Trading & Investing", "trading", 40),
        ("Accounting & Invoicing", "accounting", 39)],
    "Cryptocurrency & Web3": [
        ("Crypto Exchanges & Wallets", "crypto_exchanges", 40),
        ("NFT & DAO Platforms", "nft_dao", 39)],
    "Weather & Geospatial": [
        ("Weather & Climate Services", "weather", 39),
        ("Maps & Location Services", "maps", 40)],
    "Software Development": [
        ("Code Hosting & Version Control", "code_hosting", 40),
        ("Issue Tracking & Project Management", "issue_tracking", 40),
        ("CI/CD & Release Management", "ci_cd", 39)],
    "System & Cloud Infrastructure": [
        ("Cloud Compute & Storage", "cloud", 40),
        ("Monitoring & Incident Response", "monitoring", 40),
        ("IT Service Management", "itsm", 39)],
    "Browser Automation & Testing": [
        ("Test Management & QA", "test_management", 39),
        ("Web Scraping & Automation", "web_automation", 39)],
    "Data Storage & Databases": [
        ("Database Administration", "database_admin", 39),
        ("Data Pipelines & Warehousing", "data_pipelines", 40)],
    "AI & Machine Learning": [
        ("ML Experiment Tracking", "ml_experiments", 39),
        ("Model Serving & Data Labeling", "model_serving", 40)],
    "Reasoning & Decision Support": [
        ("Planning & Scheduling", "planning", 40),
        ("Decision & Approval Workflows", "approvals", 39)],
    "Mathematics & Computation": [
        ("Computational Notebooks & Solvers", "notebooks", 39),
        ("Education & Assessment", "education", 40)],
    "Media & Entertainment": [
        ("Streaming & Music", "streaming", 40),
        ("Movies, TV & Ticketing", "ticketing", 40),
        ("Games & Esports", "games", 39)],
    "Healthcare & Life Sciences": [
        ("Clinics & Patient Care", "clinics", 40),
        ("Pharmacy & Prescriptions", "pharmacy", 39),
        ("Labs & Clinical Trials", "clinical_trials", 40)],
    "Travel & Transportation": [
        ("Air Travel", "air_travel", 40),
        ("Lodging", "lodging", 40),
        ("Ground Transport & Logistics", "logistics", 40)],
    "Document & Design": [
        ("Docs & Knowledge Bases", "docs", 40),
        ("Design & Asset Management", "design_assets", 39)],
    "News & Trends": [
        ("Newsrooms & Publishing", "newsrooms", 39),
        ("Trends & Analytics", "trends", 39),
        ("Podcasts & Newsletters", "podcasts", 39)],
    "Cybersecurity & Network Analysis": [
        ("Vulnerability & Threat Management", "vulnerabilities", 40),
        ("Identity & Access Management", "identity", 39)],
    "Communication & General Utilities": [
        ("Team Chat & Email", "team_chat", 40),
        ("Productivity & Tasks", "productivity", 40),
        ("Commerce & Customer Support", "commerce", 39)],
}

TAXONOMY: tuple[Category, ...] = tuple(
    Category(l1, l2, module, leaves) for l1, rows in _RAW.items() for l2, module, leaves in rows)


def categories(l1: str | None = None) -> tuple[Category, ...]:
    return tuple(c for c in TAXONOMY if l1 is None or c.l1 == l1)
