"""Peer hubs run on the same workload as ours, in the same run (see openenv.py)."""
