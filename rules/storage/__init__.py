"""Storage rules (STO): tiers, bandwidth, capacity and the checkpoint's write and restore.

One module a rule; its examples in examples/<id>/ beside it."""
