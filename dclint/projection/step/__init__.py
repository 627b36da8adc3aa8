"""The step-time model: its equations (`model`) and its records and constants (`records`)."""
