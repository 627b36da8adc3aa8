"""Data files shipped with dclint: unit definitions and the hardware catalog."""
