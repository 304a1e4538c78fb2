"""The declarative form of a synthesized environment: archetypes, entities, lifecycles, rules.

An *archetype* describes one kind of service (a lodging reservation system, a help desk, a
clinical trial registry) as entities with typed fields, lifecycles and constraints. A *theme
card* picks an archetype for one leaf of the taxonomy, names the service, and chooses its feature
modules and its real-data source. The compiler (``compile.py``) turns a card into an ordinary
:class:`~agentworld.servers.environment.EnvironmentDefinition`: nothing downstream knows the
environment was synthesized.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Field", "Transition", "Lifecycle", "NoOverlap", "Capacity", "DateOrder", "RefInState",
    "MaxPerParent", "Policy", "SameGroup", "UniqueTogether", "Expiry", "DatePhase", "Distinct",
    "PoolKey", "Constraint", "Entity", "Archetype", "ThemeCard", "Leaf", "FIELD_KINDS", "FORMATS",
    "DomainVocab",
]

# Field kinds and what they hold:
#   text      short text from `vocab`
#   code      a reference code the system issues (e.g. RSV-4F7K2Q; `vocab[0]` is the prefix):
#             never an argument of create_<entity>, always unique, never changed
#   name      a generated person's full name;  email: a generated person's email
#   int/float numbers in [min, max];  money: integer cents in [min, max] (in the env's currency)
#   bool      0/1;  date: YYYY-MM-DD within `min`..`max` days of the epoch
#   enum      one of `values`;  ref: the id of a row of entity `ref`
#   city, country, currency, company, ...: values from a real-data pool (see data.py); fields of
#             one row drawing on the same pool table take one record (a bank and its BIC)
FIELD_KINDS = frozenset({"text", "code", "name", "email", "int", "float", "money", "bool",
                         "date", "enum", "ref", "pool"})

# Standard formats a field may declare (Field.format): a `code` field is issued in that format
# with correct check digits, and every field with a format is validated by the tools.
FORMATS = frozenset({"iban", "ean13", "upc", "isrc", "isbn13", "loinc", "semver", "email",
                     "currency", "slug"})


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    description: str = ""
    vocab: tuple[str, ...] = ()       # text: phrases to draw from
    values: tuple[str, ...] = ()      # enum: allowed values
    source: str = ""                  # pool: which real-data pool (city, company, icd10, ...)
    ref: str = ""                     # ref: the entity referred to
    min: float | None = None
    max: float | None = None
    required: bool = True
    unique: bool = False
    mutable: bool = True              # changeable through update_<entity>
    filterable: bool = False          # offered as an exact-match filter by search_<entities>
    format: str = ""                  # a standard format (FORMATS): issued and validated
    example: str = ""                 # an example value for the argument's description


@dataclass(frozen=True)
class Transition:
    """A lifecycle move, exposed as the tool ``<verb>_<entity>``."""

    verb: str
    sources: tuple[str, ...]
    target: str
    description: str
    stamp: str = ""                   # a date field set to today's date by the move


@dataclass(frozen=True)
class Lifecycle:
    states: tuple[str, ...]
    initial: str
    transitions: tuple[Transition, ...]
    frozen: tuple[str, ...] = ()      # states in which update_<entity> is refused
    seed_weights: tuple[int, ...] = ()  # how seeded rows spread over `states`


# Capacity, MaxPerParent and NoOverlap are checked for rows in their ``live_states``: include the
# entity's initial state there, or a create is never checked. The seeder fills the first
# referred row a RefInState allows up to a quota's limit, so the rule has something to refuse.


@dataclass(frozen=True)
class NoOverlap:
    """No two live rows share ``resource`` with overlapping [start, end) dates."""

    resource: str
    start: str
    end: str
    live_states: tuple[str, ...]


@dataclass(frozen=True)
class Capacity:
    """Live rows referring to one ``parent`` row, summed over ``amount`` (or counted), never
    exceed the parent's ``capacity_field``."""

    ref: str
    capacity_field: str
    live_states: tuple[str, ...]
    amount: str = ""


@dataclass(frozen=True)
class DateOrder:
    start: str
    end: str


@dataclass(frozen=True)
class RefInState:
    """A new row may only refer to a ``ref`` row whose status is one of ``states``."""

    ref: str
    states: tuple[str, ...]


@dataclass(frozen=True)
class MaxPerParent:
    """At most ``limit`` live rows per referred ``ref`` row (e.g. 3 open loans per member)."""

    ref: str
    limit: int
    live_states: tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """A threshold or cap read from a policy row: ``row[field] <op> parent[limit]``, where the
    parent is the row that ``ref`` points at (a loan amount at most its product's maximum, a
    risk score at least its policy's minimum). Checked on create and on the lifecycle moves
    named in ``moves`` (an approval), so a row may wait in review while it breaks the policy."""

    ref: str
    field: str
    limit: str
    op: str                            # "<=" (a cap) or ">=" (a threshold)
    moves: tuple[str, ...] = ()
    on_create: bool = True


@dataclass(frozen=True)
class SameGroup:
    """Two references must lead to the same group: ``left`` and ``right`` are paths such as
    ``member_id.dao_id`` (the member's DAO) and ``proposal_id.dao_id`` (the proposal's DAO);
    a path of one name is a column of the row itself."""

    left: str
    right: str
    noun: str = ""                     # what the group is called in messages ("DAO")
    text: str = ""                     # the rule in prose, where the generic sentence is stiff


@dataclass(frozen=True)
class UniqueTogether:
    """No two rows share the values of all of ``fields`` (a package and a version)."""

    fields: tuple[str, ...]


@dataclass(frozen=True)
class Expiry:
    """``field`` is an expiry date: rows in ``live_states`` have it in the future, rows in
    ``expired_states`` in the past, and the moves into a live state (``moves``) are refused once
    it has passed."""

    field: str
    live_states: tuple[str, ...]
    expired_states: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()


@dataclass(frozen=True)
class DatePhase:
    """Which side of the clock a date lies on in each state: in ``before`` states the event has
    not happened yet (voting still open, an issue not yet printed), in ``after`` states it has.
    Only the seeder reads it; it keeps seeded states and dates consistent."""

    field: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class PoolKey:
    """The row's real-data records agree with a referred row: the pool fields of the row draw
    records whose ``column`` equals the value at ``path`` (a result's value and flag come from
    the referred test's LOINC code). Only the seeder reads it."""

    path: str
    column: str


@dataclass(frozen=True)
class Distinct:
    """Two references of one row never name the same row (a courier is not the recipient)."""

    left: str
    right: str


Constraint = (NoOverlap | Capacity | DateOrder | RefInState | MaxPerParent | Policy | SameGroup
              | UniqueTogether | Expiry | DatePhase | Distinct | PoolKey)


@dataclass(frozen=True)
class Entity:
    name: str                         # singular snake_case: "booking"
    plural: str                       # "bookings"
    label: str                        # the field that names a row (searched by `query`)
    fields: tuple[Field, ...]
    count: int = 60                   # seeded rows
    description: str = ""
    lifecycle: Lifecycle | None = None
    constraints: tuple[Constraint, ...] = ()
    creatable: bool = True
    id_prefix: str = ""               # the id prefix, when the derived one would be ambiguous

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


@dataclass(frozen=True)
class DomainVocab:
    """A domain pack's words for the feature modules: tags on its rows, the files attached to
    them, the comments people leave and the reasons money is refunded. An empty tuple means
    the feature derives its words from the archetype's own declarations."""

    tags: tuple[str, ...] = ()
    attachments: tuple[str, ...] = ()  # file names, e.g. "master-audio.wav"
    comments: tuple[str, ...] = ()
    refund_reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Archetype:
    id: str
    l2: str
    title: str
    description: str
    entities: tuple[Entity, ...]      # in dependency order: referred entities first
    primary: str                      # the entity feature modules attach to
    people: str = ""                  # the entity whose rows are people (authors, owners)
    features: tuple[str, ...] = ()    # feature modules that suit this archetype
    # Person roles one person may hold at once, as pairs of "entity.field" (or "table.column"
    # for a feature's table), e.g. ("expense.submitted_by", "expense.approved_by") where a
    # self-approval is allowed. Every other pair of roles is filled by different people; the
    # data audit (data_audit/) reports a row where it is not.
    same_person: tuple[tuple[str, str], ...] = ()
    vocab: DomainVocab | None = None  # the words feature modules use (tags, files, comments)

    def entity(self, name: str) -> Entity:
        return next(e for e in self.entities if e.name == name)


@dataclass(frozen=True)
class ThemeCard:
    """One leaf of the taxonomy: which service it is and how it is built."""

    id: str                           # environment id, e.g. "hostel-bookings-lisbon"
    title: str
    description: str
    l1: str
    l2: str
    l3: str
    archetype: str
    features: tuple[str, ...]
    region: str                       # ISO country code: cities, currency, holidays, names
    seed: int


@dataclass(frozen=True)
class Leaf:
    """A concrete service at the taxonomy's third level, written by hand per category."""

    id: str                           # globally unique slug, the environment id
    title: str                        # e.g. "Hostel booking desk"
    description: str                  # one or two sentences: what the service is and does
    archetype: str                    # an archetype id of the same module
