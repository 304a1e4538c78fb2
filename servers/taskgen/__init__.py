"""Task synthesis: graph-based and programmatic verifiable tasks for any environment, their
rubrics, the quality gates every task must pass, splits, and dataset exports."""
