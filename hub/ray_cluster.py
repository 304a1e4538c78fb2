"""A hub on a Ray cluster: N replicas placed and restarted by Ray, behind one entry router.

Why Ray actors rather than Ray Serve: a hub session is an episode held in one process's memory,
and every request of that session must reach that process. Serve balances each request on its
own (power of two choices) with no session affinity; its only routing hint, model
multiplexing, is best effort and needs a header our clients do not send, and it hides which
replica incarnation answered, so a lost session could not be told from an unknown one. Actors
are what Ray offers for state: ``max_restarts=-1`` makes Ray replace a dead replica, a
placement group spreads the replicas over nodes (or puts them in the trainer's own group), and
a named router actor makes the entry URL discoverable from anywhere on the cluster.

Everything here runs in a Ray driver (``ray.init`` done by the caller, or :func:`connect`). The
replicas and the router are owned by that driver: they stop when it exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .in_thread import serve_in_thread
from .ray_replica import REPLICA_KEEP_ALIVE, HubReplica
from .settings import HubSettings

__all__ = ["RayHub", "RayHubConfig", "connect", "find_hub_url", "ray_hub", "run_ray_hub",
           "DEFAULT_NAME", "NAMESPACE"]

DEFAULT_NAME = "agentworld-hub"
NAMESPACE = "agentworld"
# The hub's own processes must not look for a hub when they import agentworld (Gymnasium
# registration reads AGENTWORLD_HUB_URL), though the trainer's job sets it to this very hub.
_OWN_ENV = {"env_vars": {"AGENTWORLD_HUB_URL": ""}}


def _ray():
    try:
        import ray
    except ImportError as exc:
        raise ImportError("a hub on Ray needs Ray: pip install 'agentworld[ray]'") from exc
    return ray


def connect(address: str | None = "auto", **init_kwargs: Any) -> None:
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine with
    ``ray start``; "local" or None: a new single-node Ray for a try-out)."""
    ray = _ray()
    if ray.is_initialized():
        return
    target = None if address in (None, "local") else address
    ray.init(address=target, namespace=NAMESPACE, log_to_driver=False, **init_kwargs)


@dataclass(frozen=True, kw_only=True)
class RayHubConfig:
    """How many replicas, where, and the entry router's address.

    ``settings`` apply to each replica (``max_sessions`` is per replica; the cluster holds
    ``replicas × max_sessions``); their ``token`` guards the router too.
    """

    replicas: int = 2
    num_cpus: float = 1.0
    settings: HubSettings = field(default_factory=HubSettings)
    router_host: str | None = None  # None: the driver node's address
    router_port: int = 0
    name: str = DEFAULT_NAME
    namespace: str = NAMESPACE
    placement_group: Any = None  # the trainer's group; None: a new SPREAD group
    bundle_indices: tuple[int, ...] | None = None
    poll_interval: float = 1.0

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError(f"replicas must be at least 1, got {self.replicas}")
        if self.num_cpus <= 0:
            raise ValueError(f"num_cpus must be positive, got {self.num_cpus}")


class RouterServer:
    """The body of the router actor: the entry router on a real uvicorn."""

    def __init__(self, replica_names: list[str], *, namespace: str, host: str | None,
                 port: int, token: str | None, max_request_bytes: int,
                 poll_interval: float) -> None:
        import ray

        from .ray_router import build_router_app

        # Names, not handles, as arguments: a restarted router looks its replicas up again
        # instead of depending on arguments kept in the object store.
        handles = [ray.get_actor(name, namespace=namespace) for name in replica_names]
        host = host or ray.util.get_node_ip_address()
        app = build_router_app(handles, token=token, max_request_bytes=max_request_bytes,
                               poll_interval=poll_interval)
        self._server, self._thread, bound = serve_in_thread(
            app, host, port=port, ws_max_size=max_request_bytes,
            keep_alive=int(REPLICA_KEEP_ALIVE))
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        self._url = f"http://{shown}:{bound}"

    def url(self) -> str:
        return self._url

    def pid(self) -> int:
        return os.getpid()

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)


class RayHub:
    """Start and stop a hub on the Ray cluster this process is connected to.

    Raises (from :meth:`start`): ImportError without Ray; ``ray.exceptions.GetTimeoutError``
    when the replicas cannot be placed within the timeout (not enough CPUs on the cluster).
    """

    def __init__(self, config: RayHubConfig | None = None, *,
                 catalog_factory: Callable[[], Any] | None = None) -> None:
        self.config = config or RayHubConfig()
        self.catalog_factory = catalog_factory
        self.replicas: list[Any] = []
        self.router: Any = None
        self.url: str | None = None
        self._own_group: Any = None

    def _group(self, timeout: float):
        ray, cfg = _ray(), self.config
        if cfg.placement_group is not None:
            indices = cfg.bundle_indices or tuple(range(cfg.replicas))
            return cfg.placement_group, indices
        from ray.util.placement_group import placement_group

        group = placement_group([{"CPU": cfg.num_cpus}] * cfg.replicas, strategy="SPREAD",
                                name=f"{cfg.name}-replicas")
        self._own_group = group
        ray.get(group.ready(), timeout=timeout)
        return group, tuple(range(cfg.replicas))

    def start(self, *, timeout: float = 120.0) -> str:
        """Place the replicas, wait until each serves, start the router; returns the entry URL."""
        ray, cfg = _ray(), self.config
        from ray.util.scheduling_strategies import (
            NodeAffinitySchedulingStrategy,
            PlacementGroupSchedulingStrategy,
        )

        group, indices = self._group(timeout)
        actor = ray.remote(HubReplica)
        settings = dataclasses.asdict(cfg.settings)
        for i in range(cfg.replicas):
            strategy = PlacementGroupSchedulingStrategy(
                group, placement_group_bundle_index=indices[i % len(indices)])
            self.replicas.append(actor.options(
                runtime_env=_OWN_ENV, name=f"{cfg.name}-replica-{i}", namespace=cfg.namespace,
                num_cpus=cfg.num_cpus, max_restarts=-1, max_task_retries=0,
                scheduling_strategy=strategy,
            ).remote(i, settings=settings, catalog_factory=self.catalog_factory))
        ray.get([r.info.remote() for r in self.replicas], timeout=timeout)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.router = ray.remote(RouterServer).options(
            runtime_env=_OWN_ENV, name=cfg.name, namespace=cfg.namespace, num_cpus=0,
            max_restarts=-1, scheduling_strategy=here,
        ).remote([f"{cfg.name}-replica-{i}" for i in range(cfg.replicas)],
                 namespace=cfg.namespace, host=cfg.router_host, port=cfg.router_port,
                 token=cfg.settings.token, max_request_bytes=cfg.settings.max_request_bytes,
                 poll_interval=cfg.poll_interval)
        self.url = ray.get(self.router.url.remote(), timeout=timeout)
        return self.url

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the router and the replicas (their sessions end) and free their placement."""
        ray = _ray()
        actors = ([self.router] if self.router is not None else []) + self.replicas
        with contextlib.suppress(Exception):  # a dead actor cannot stop gracefully
            ray.get([a.stop.remote() for a in actors], timeout=timeout)
        for actor in actors:
            ray.kill(actor, no_restart=True)
        if self._own_group is not None:
            from ray.util.placement_group import remove_placement_group

            remove_placement_group(self._own_group)
        self.replicas, self.router, self._own_group = [], None, None

    def __enter__(self) -> RayHub:
        if self.url is None:
            try:
                self.start()
            except BaseException:
                self.stop()  # the replicas placed so far, and their placement group
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def ray_hub(config: RayHubConfig | None = None, *,
            catalog_factory: Callable[[], Any] | None = None) -> Iterator[str]:
    """A hub on the connected Ray cluster for the length of a block; yields the entry URL."""
    hub = RayHub(config, catalog_factory=catalog_factory)
    try:
        yield hub.start()
    finally:
        hub.stop()


def find_hub_url(name: str = DEFAULT_NAME, namespace: str = NAMESPACE,
                 timeout: float = 30.0) -> str:
    """The entry URL of the hub named ``name``, from any process on the cluster.

    Raises:
        ValueError: no hub of that name is running (Ray's error for an unknown actor).
    """
    ray = _ray()
    return ray.get(ray.get_actor(name, namespace=namespace).url.remote(), timeout=timeout)


def run_ray_hub(address: str | None, config: RayHubConfig, *,
                catalog_factory: Callable[[], Any] | None = None) -> None:
    """The CLI's ``hub --ray``: start, print the entry URL, serve until SIGINT or SIGTERM."""
    connect(address)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    hub = RayHub(config, catalog_factory=catalog_factory)
    try:
        url = hub.start()
        print(f"agentworld hub: {config.replicas} replicas on Ray, entry URL {url} "
              f"(Ray name {config.namespace}/{config.name})", flush=True)
        while not stop.wait(1.0):
            pass
    finally:
        hub.stop()
        _ray().shutdown()
