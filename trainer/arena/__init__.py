"""The self-evolution arena: fresh evaluation tasks across the taxonomy each round, a diagnosis
agent that reads the failures, targeted task and database synthesis on the weak spots, and one
round of training; everything recorded in a resumable run directory."""

from .arena import Arena, RunState, load_rounds
from .diagnosis import CLASSES, Diagnosis, EnvFacts, diagnose
from .guidelines import write_guidelines
from .policies import ScriptedPolicy, make_arena_policy
from .records import ArenaConfig, EpisodeRecord, StepRecord
from .rollout import LocalHub, RecordingHub, play_all
from .trainers import ArenaTrainer, TrainOutcome, make_trainer
from .world import ArenaWorld, stratified_sample

__all__ = ["Arena", "ArenaConfig", "ArenaTrainer", "ArenaWorld", "CLASSES", "Diagnosis",
           "EnvFacts", "EpisodeRecord", "LocalHub", "RecordingHub", "RunState",
           "ScriptedPolicy", "StepRecord", "TrainOutcome", "diagnose", "load_rounds",
           "make_arena_policy", "make_trainer", "play_all", "stratified_sample",
           "write_guidelines"]
