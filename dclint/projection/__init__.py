"""Projected training time, memory, energy and cost of a design's workloads, and cluster TCO."""
