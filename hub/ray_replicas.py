"""The router's view of the replica actors: where each serves, which incarnation, whether up.

Ray owns placement and restarts; the router only asks each actor where it serves
(:meth:`HubReplica.info`) and notices when the answer changes. A new epoch means Ray replaced
the process, so every session of the old epoch is lost. Actor calls are awaited through their
``concurrent.futures`` form, which is safe from any thread's event loop (the router runs in a
uvicorn thread).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass, field
from typing import Any

from .ray_replica import ReplicaInfo

__all__ = ["ReplicaSlot", "ReplicaTable"]

log = logging.getLogger(__name__)


@dataclass
class ReplicaSlot:
    """One replica position (0..N-1); its actor keeps the slot across restarts."""

    index: int
    handle: Any
    info: ReplicaInfo | None = None
    up: bool = False
    past_epochs: set[str] = field(default_factory=set)
    pending: asyncio.Future | None = None


class ReplicaTable:
    """Replica addresses and liveness, refreshed by polling and on any connection failure."""

    def __init__(self, handles: list[Any], metrics, *, call_timeout: float = 5.0) -> None:
        self.slots = [ReplicaSlot(i, h) for i, h in enumerate(handles)]
        self.metrics, self.call_timeout = metrics, call_timeout
        self._turn = itertools.count()

    @property
    def up_count(self) -> int:
        return sum(slot.up for slot in self.slots)

    async def refresh(self, slot: ReplicaSlot) -> None:
        """Ask the actor where it serves. A call that fails or times out (the process is dead,
        or Ray is still restarting it) marks the slot down. Concurrent callers share one call:
        when a replica dies, hundreds of its sessions notice at once."""
        if slot.pending is None:
            pending = slot.pending = asyncio.ensure_future(self._ask(slot))
            pending.add_done_callback(lambda _: setattr(slot, "pending", None))
        await asyncio.shield(slot.pending)

    async def _ask(self, slot: ReplicaSlot) -> None:
        try:
            future = slot.handle.info.remote().future()
            info = await asyncio.wait_for(asyncio.wrap_future(future), self.call_timeout)
        except Exception as exc:  # RayActorError, GetTimeoutError, TimeoutError
            if slot.up:
                log.warning("hub replica %d is down: %s", slot.index, type(exc).__name__)
            slot.up = False
            return
        old = slot.info
        if old is not None and old.epoch != info.epoch:
            slot.past_epochs.add(old.epoch)
            self.metrics.replica_restarts.labels(str(slot.index)).inc()
            log.warning("hub replica %d was replaced by Ray (now %s)", slot.index, info.url)
        slot.info, slot.up = info, True

    async def refresh_all(self) -> None:
        await asyncio.gather(*(self.refresh(slot) for slot in self.slots))

    async def poll(self, interval: float) -> None:
        """Refresh every slot forever; the router runs this for its whole life."""
        while True:
            await self.refresh_all()
            await asyncio.sleep(interval)

    def rotation(self) -> list[ReplicaSlot]:
        """The slots that are up, starting from the next in round-robin order."""
        up = [slot for slot in self.slots if slot.up and slot.info is not None]
        if not up:
            return []
        start = next(self._turn) % len(up)
        return up[start:] + up[:start]

    def slot_of(self, index: int) -> ReplicaSlot | None:
        return self.slots[index] if 0 <= index < len(self.slots) else None
