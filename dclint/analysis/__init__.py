"""Analyses above the engine: capacity, diff, sweeps, scaffolds and the report summary."""
