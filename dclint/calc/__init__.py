"""Calculators over a resolved design: power, cooling, fabric, storage, checkpoints."""
