"""Meta rules (DCL): a design that does not load, suppressions, unit spellings.

One module a rule; its examples in examples/<id>/ beside it."""
