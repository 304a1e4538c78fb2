"""agentworld: realistic, stateful tool-use environments for LLM agents.

The top-level folders of the repository are mapped into this package: ``agentworld.servers``
(environment runtime and fleet), ``agentworld.hub`` (the network service), ``agentworld.gym_api``
(Gymnasium environments) and ``agentworld.trainer`` (GRPO and the arena).
"""

__version__ = "0.1.0"

# Registration only: reads the catalog's id list, imports no environment and builds nothing.
from agentworld.gym_api.registration import register_envs as _register_envs  # noqa: E402

_register_envs()
