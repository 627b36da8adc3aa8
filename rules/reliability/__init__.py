"""Reliability rules (REL): checkpoints against failures, priced in goodput.

One module a rule; its examples in examples/<id>/ beside it."""
