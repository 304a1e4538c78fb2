"""The catalog: which environments exist, and loading them lazily by id.

Listing reads manifests only; an environment's template database is built the first time a
session needs it, so a process that serves one environment never pays for the others.
"""

from __future__ import annotations

import importlib
import threading

from .environment import Environment, EnvironmentDefinition
from .errors import UnknownEnvironmentError
from .manifest import Manifest

__all__ = ["Catalog", "default_catalog"]

# Hand-built reference environments: id -> module exposing DEFINITION.
REFERENCE_ENVIRONMENTS = {
    "notion": "agentworld.servers.envs.notion",
    "github": "agentworld.servers.envs.github",
    "airline": "agentworld.servers.envs.airline",
}


class Catalog:
    """Maps environment ids to definitions; loads and caches :class:`Environment` objects."""

    def __init__(self, modules: dict[str, str] | None = None) -> None:
        self._modules = dict(REFERENCE_ENVIRONMENTS if modules is None else modules)
        self._definitions: dict[str, EnvironmentDefinition] = {}
        self._loaded: dict[str, Environment] = {}
        self._lock = threading.Lock()

    def add(self, definition: EnvironmentDefinition) -> None:
        """Register a definition built in code (tests, importers)."""
        with self._lock:
            self._definitions[definition.manifest.id] = definition
            self._loaded.pop(definition.manifest.id, None)

    def ids(self) -> list[str]:
        return sorted(set(self._modules) | set(self._definitions))

    def __contains__(self, env_id: object) -> bool:
        return env_id in self._modules or env_id in self._definitions

    def definition(self, env_id: str) -> EnvironmentDefinition:
        if env_id not in self._definitions:
            module_name = self._modules.get(env_id) if isinstance(env_id, str) else None
            if module_name is None:
                raise UnknownEnvironmentError(str(env_id))
            module = importlib.import_module(module_name)
            self._definitions[env_id] = module.DEFINITION
        return self._definitions[env_id]

    def manifest(self, env_id: str) -> Manifest:
        return self.definition(env_id).manifest

    def manifests(self) -> list[Manifest]:
        return [self.manifest(env_id) for env_id in self.ids()]

    def load(self, env_id: str) -> Environment:
        env = self._loaded.get(env_id)
        if env is None:
            definition = self.definition(env_id)
            with self._lock:
                env = self._loaded.get(env_id)
                if env is None:
                    env = self._loaded[env_id] = Environment(definition)
        return env


_default: Catalog | None = None


def default_catalog() -> Catalog:
    """The process-wide catalog of every environment agentworld ships."""
    global _default
    if _default is None:
        _default = Catalog()
    return _default
