"""Structure rules (STR): floor loading.

One module a rule; its examples in examples/<id>/ beside it."""
