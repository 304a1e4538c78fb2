"""Environments imported from the Agent-World release, with their tool code sandboxed.

``import_release`` converts a release folder into imported environments (data, view, tools,
rules, tasks); ``Catalog(import_dirs=[...])`` serves them like any other environment. Their tools
run in a :class:`WorkerPool` of sandboxed worker processes, never in the caller's process.
"""

from .backend import FolderBackend, map_release_error, served
from .compare import by_design, differences
from .convert import FORMAT, EnvironmentReport, ImportReport, env_id_for, import_release
from .definition import ImportedDirectory, load_definition
from .pool import SandboxLimits, WorkerPool, WorkerReply
from .release import ReleaseError
from .tasks import answer_match, chain_match, normalize_answer, question_tasks

__all__ = [
    "FORMAT", "EnvironmentReport", "FolderBackend", "ImportReport", "ImportedDirectory",
    "ReleaseError", "SandboxLimits", "WorkerPool", "WorkerReply", "answer_match", "by_design",
    "chain_match", "differences", "env_id_for", "import_release", "load_definition",
    "map_release_error", "normalize_answer", "question_tasks", "served",
]
