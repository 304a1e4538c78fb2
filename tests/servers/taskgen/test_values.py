"""Stated values compared by their type: instants, numbers, case-blind codes, exact text."""

import pytest

from agentworld.servers.taskgen.values import kind_of, looks_generated, same


@pytest.mark.parametrize("expected, actual, column, equal", [
    ("2026-03-09T13:45:00Z", "2026-03-09T14:45:00+01:00", "starts_at", True),
    ("2026-03-09T13:45:00Z", "2026-03-09 13:45", "starts_at", True),
    ("2026-03-09T13:45:00Z", "2026-03-09T01:45:00Z", "starts_at", False),
    ("2026-03-09T13:45:00Z", "2025-03-09T13:45:00Z", "starts_at", False),
    ("2026-03-09T13:45:00Z", "not a time", "starts_at", False),
    (92, 92.0, "amount", True),
    (92, "92", "amount", True),
    (92, 92.01, "amount", False),
    ("#9467bd", "#9467BD", "color", True),
    ("#9467bd", "#9467be", "color", False),
    ("ana@example.org", "Ana@Example.org", "email", True),
    ("web-app", "Web-App", "slug", True),
    ("beacon-platform", "Beacon-Platform", "property_name", False),
    ("api.example.com", "API.example.com", "target", True),
    ("usd", "USD", "currency", True),
    ("standard", "Standard", "fare_family", False),
    ("Offsite lunch", "offsite lunch", "title", False),
    ("Offsite lunch", "  Offsite   lunch ", "title", True),
    (None, None, "reminder", True),
    (None, 0, "reminder", False),
])
def test_values_compare_by_their_type(expected, actual, column, equal):
    assert same(expected, actual, column=column) is equal


def test_kinds_and_generated_shapes():
    assert kind_of("starts_at", "2026-03-09T13:45:00Z") == "instant"
    assert kind_of("colour", "9467bd") == "hex" and kind_of("note", "9467bd") != "hex"
    assert kind_of("status", "in_progress") == "text"
    assert looks_generated("eecd206067779213f3ed2e26e8b0b9ea56a45a7d")
    assert looks_generated("evt_7779894b42") and not looks_generated("Offsite lunch")
