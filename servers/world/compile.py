"""Compile a theme card into an ordinary environment definition.

``compile_card`` is pure and cheap (no database is built): it declares tables, tools and rules.
The template is built later, on demand, by the runtime, from the seed steps compiled here.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass

from agentworld.servers.environment import EnvironmentDefinition
from agentworld.servers.errors import EnvironmentDefinitionError
from agentworld.servers.manifest import Manifest, Taxonomy

from .builder import EnvBuilder, Probe, RuleSpec
from .data import POOLS, SOURCES, region
from .entity_rules import add_entity_probes, add_entity_rules
from .entity_schema import SeedValues, table_sql
from .entity_seed import seed_entity
from .entity_tools import add_entity_tools
from .features import FEATURES
from .spec import Archetype, ThemeCard

__all__ = ["CompiledEnvironment", "compile_card", "card_sources", "RESERVED_FIELDS"]

# Names a field may not take: the generic tools use them for their own arguments or columns.
RESERVED_FIELDS = frozenset({"id", "query", "status", "limit", "cursor", "created_at",
                             "updated_at"})


@dataclass(frozen=True)
class CompiledEnvironment:
    card: ThemeCard
    archetype: Archetype
    definition: EnvironmentDefinition
    rules: tuple[RuleSpec, ...]
    probes: dict[str, Probe]
    owners: dict[str, str]


def _check(archetype: Archetype) -> None:
    names = [e.name for e in archetype.entities]
    for i, entity in enumerate(archetype.entities):
        for f in entity.fields:
            if f.name in RESERVED_FIELDS:
                raise EnvironmentDefinitionError(f"{archetype.id}.{entity.name}: field name "
                                                 f"{f.name!r} is reserved")
            if f.kind == "ref" and f.ref not in names[:i]:
                raise EnvironmentDefinitionError(f"{archetype.id}.{entity.name}.{f.name} refers "
                                                 f"to {f.ref!r}, which is not declared before it")
        if entity.label not in {f.name for f in entity.fields}:
            raise EnvironmentDefinitionError(f"{archetype.id}.{entity.name}: label "
                                             f"{entity.label!r} is not a field")


def card_sources(card: ThemeCard, archetype: Archetype) -> set[str]:
    """The data sources an environment is seeded from: generated people, the real-data pools its
    fields draw on, and those of its feature modules."""
    sources = {"people"}
    for entity in archetype.entities:
        for f in entity.fields:
            if f.kind == "pool":
                sources.add(POOLS[f.source][0])
    for name in card.features:
        sources |= set(FEATURES[name].sources)
    return sources


def compile_card(card: ThemeCard, archetype: Archetype) -> CompiledEnvironment:
    """Raises EnvironmentDefinitionError when the card or archetype is inconsistent."""
    _check(archetype)
    b = EnvBuilder(card=card, archetype=archetype, region=region(card.region))
    tables = {e.name: e.plural for e in archetype.entities}
    for entity in archetype.entities:
        b.schema.append(table_sql(entity, tables))
    features = [FEATURES[name] for name in card.features]
    for feature in features:
        feature.extend_schema(b, tables)
    for entity in archetype.entities:
        add_entity_tools(b, entity, tables)
        add_entity_rules(b, entity, tables)
        add_entity_probes(b, entity, tables)
    for feature in features:
        tools_before, rules_before = set(b.tools.names()), len(b.rules)
        feature.extend(b, tables)
        for name in set(b.tools.names()) - tools_before:
            b.owners[name] = feature.name
        for spec in b.rules[rules_before:]:
            b.owners[spec.rule.id] = feature.name
    b.sources |= card_sources(card, archetype)

    def seed(conn: sqlite3.Connection) -> None:
        rng = random.Random(card.seed)
        values = SeedValues(b.region, rng, card.seed)
        ids: dict[str, list[str]] = {}
        for entity in archetype.entities:
            seed_entity(conn, entity, values, ids, tables)
        for step in b.seeders:
            step(conn, rng)

    manifest = Manifest(
        id=card.id, version="1.0.0", title=card.title, description=card.description,
        taxonomy=Taxonomy(card.l1, card.l2, card.l3),
        rules=tuple(spec.rule for spec in b.rules),
        data_sources=tuple(SOURCES[name] for name in sorted(b.sources)),
        tags=(f"archetype:{archetype.id}", f"region:{card.region}",
              *(f"feature:{f}" for f in card.features)),
        bookkeeping=b.bookkeeping)
    definition = EnvironmentDefinition(manifest=manifest, schema_sql="\n\n".join(b.schema),
                                       seed=seed, tools=b.tools)
    return CompiledEnvironment(card, archetype, definition, tuple(b.rules), dict(b.probes),
                               dict(b.owners))
