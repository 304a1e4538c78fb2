"""The catalog: which environments exist, and loading them lazily by id.

Listing reads manifests only; an environment's template database is built the first time a
session needs it, so a process that serves one environment never pays for the others.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .environment import Environment, EnvironmentDefinition
from .errors import UnknownEnvironmentError
from .manifest import Manifest
from .template_cache import TemplateCache

if TYPE_CHECKING:
    from .imported.pool import WorkerPool

__all__ = ["Catalog", "default_catalog", "configured_catalog"]

# Hand-built reference environments: id -> module exposing DEFINITION.
REFERENCE_ENVIRONMENTS = {
    "notion": "agentworld.servers.envs.notion",
    "github": "agentworld.servers.envs.github",
    "airline": "agentworld.servers.envs.airline",
}


class Catalog:
    """Maps environment ids to definitions; loads and caches :class:`Environment` objects.

    ``import_dirs`` adds the environments that ``agentworld import`` wrote there (found by
    listing the directories; their tools run in ``sandbox``, a worker pool made on first use
    if not given). Ids already taken by a module or an added definition win.
    """

    def __init__(self, modules: dict[str, str] | None = None, *, world: bool = False,
                 cache_dir: str | Path | None = None, task_dir: str | Path | None = None,
                 import_dirs: Iterable[str | Path] = (),
                 sandbox: WorkerPool | None = None) -> None:
        """``world`` adds the synthesized world (``servers/world``); ``cache_dir`` keeps its
        built templates on disk."""
        self._modules = dict(REFERENCE_ENVIRONMENTS if modules is None else modules)
        self._world = world
        self._cache = TemplateCache(cache_dir) if cache_dir is not None else None
        self._task_dir = Path(task_dir) if task_dir is not None else None
        self._definitions: dict[str, EnvironmentDefinition] = {}
        self._definitions_added: set[str] = set()
        self._loaded: dict[str, Environment] = {}
        self._lock = threading.Lock()
        self._imported = None
        dirs = [Path(d) for d in import_dirs]
        if dirs:
            from .imported.definition import ImportedDirectory

            self._imported = ImportedDirectory(dirs, pool=sandbox)

    def _imported_ids(self) -> list[str]:
        return self._imported.ids() if self._imported is not None else []

    def _world_cards(self) -> dict:
        if not self._world:
            return {}
        from .world.registry import world_cards

        return world_cards()

    def _buildable(self, env_id: object) -> bool:
        """A world environment, or a domain-pack one the world does not list but still builds
        (the arena's evaluation draws on them)."""
        if not self._world or not isinstance(env_id, str):
            return False
        from .world.registry import pack_cards

        return env_id in self._world_cards() or env_id in pack_cards()

    def add(self, definition: EnvironmentDefinition) -> None:
        """Register a definition built in code (tests, importers)."""
        with self._lock:
            self._definitions[definition.manifest.id] = definition
            self._definitions_added.add(definition.manifest.id)
            self._loaded.pop(definition.manifest.id, None)

    def ids(self) -> list[str]:
        return sorted(set(self._modules) | set(self._definitions) | set(self._imported_ids())
                      | set(self._world_cards()))

    def __contains__(self, env_id: object) -> bool:
        return (env_id in self._modules or env_id in self._definitions
                or (self._imported is not None and env_id in self._imported)
                or self._buildable(env_id))

    def definition(self, env_id: str) -> EnvironmentDefinition:
        if env_id not in self._definitions:
            module_name = self._modules.get(env_id) if isinstance(env_id, str) else None
            if module_name is not None:
                self._definitions[env_id] = importlib.import_module(module_name).DEFINITION
            elif self._imported is not None and env_id in self._imported:
                self._definitions[env_id] = self._imported.definition(env_id)
            elif self._buildable(env_id):
                from .world.registry import compiled

                self._definitions[env_id] = compiled(env_id).definition
            else:
                raise UnknownEnvironmentError(str(env_id))
        return self._definitions[env_id]

    def manifest(self, env_id: str) -> Manifest:
        return self.definition(env_id).manifest

    def manifests(self) -> list[Manifest]:
        """Every manifest; compiles the whole world when it is included (see ``summaries``)."""
        return [self.manifest(env_id) for env_id in self.ids()]

    def summaries(self) -> list[dict[str, Any]]:
        """Id, title, description and taxonomy of every environment, cheaply: the world's come
        from its index, without compiling anything."""
        world = self._world_cards()
        out = []
        for env_id in self.ids():
            if env_id in world and env_id not in self._definitions:
                card = world[env_id]
                out.append({"id": env_id, "title": card.title, "description": card.description,
                            "taxonomy": {"l1": card.l1, "l2": card.l2, "l3": card.l3},
                            "kind": "synthesized"})
            else:
                m = self.manifest(env_id)
                out.append({"id": env_id, "title": m.title, "description": m.description,
                            "taxonomy": {"l1": m.taxonomy.l1, "l2": m.taxonomy.l2,
                                         "l3": m.taxonomy.l3},
                            "kind": self._kind(env_id)})
        return out

    def close(self) -> None:
        """Release what imported environments hold (the sandbox workers this catalog started)."""
        if self._imported is not None:
            self._imported.close()

    def load(self, env_id: str) -> Environment:
        env = self._loaded.get(env_id)
        if env is None:
            definition = self.definition(env_id)
            with self._lock:
                env = self._loaded.get(env_id)
                if env is None:
                    env = self._loaded[env_id] = self._environment(env_id, definition)
        return env

    def _kind(self, env_id: str) -> str:
        if env_id in self._modules:
            return "hand-built"
        if env_id in self._definitions_added:
            return "added"
        return "imported"

    def is_synthesized(self, env_id: str) -> bool:
        return self._buildable(env_id) and env_id not in self._definitions_added

    def _environment(self, env_id: str, definition: EnvironmentDefinition) -> Environment:
        if self._cache is not None and self._buildable(env_id):
            from .world.registry import cache_key

            env = Environment(definition, cache=self._cache, cache_key=cache_key(env_id))
        else:
            env = Environment(definition)
        # Definitions added in code (tests, environments under development) keep their own
        # tasks; everything the catalog ships gets a generated set too.
        if self._task_dir is not None and env_id not in self._definitions_added:
            env.attach_tasks(lambda: self._generated_tasks(env_id))
        return env

    def _generated_tasks(self, env_id: str) -> tuple:
        from .taskgen.run import tasks_for
        from .taskgen.store import TaskStore

        store = TaskStore(self._task_dir)
        if self._imported is not None and env_id in self._imported \
                and env_id not in self._modules:
            # Synthesis runs imported code in the sandbox for seconds: never silently on load.
            # Their task sets come from `import --tasks` or `agentworld tasks generate`.
            records = store.load(env_id) or []
        else:
            records = tasks_for(self, env_id, store)
        return tuple(record.to_task() for record in records)


_default: Catalog | None = None


def default_catalog() -> Catalog:
    """The process-wide catalog: the hand-built environments, the synthesized world, and what
    ``agentworld import`` wrote (``paths.import_dir``), with templates and generated tasks cached
    under ``paths.cache_root``."""
    global _default
    if _default is None:
        _default = configured_catalog()
    return _default


def configured_catalog() -> Catalog:
    """A new catalog of everything, with the directories the environment variables name now
    (``paths``): what entrypoints use."""
    from .paths import import_dir, task_dir, template_dir

    imports = [import_dir()] if import_dir().is_dir() else []
    return Catalog(world=True, cache_dir=template_dir(), task_dir=task_dir(), import_dirs=imports)
