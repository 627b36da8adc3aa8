"""Layout rules (PAR): a workload's parallel layout against its GPUs, memory and fabric.

One module a rule; its examples in examples/<id>/ beside it."""
