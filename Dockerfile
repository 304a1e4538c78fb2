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

FROM hub AS gpu
RUN pip install --no-cache-dir ".[train,gpu]"
