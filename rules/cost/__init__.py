"""Cost rules (CST): a run's budget and deadline.

One module a rule; its examples in examples/<id>/ beside it."""
