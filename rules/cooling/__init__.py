"""Cooling rules (CLG): CDUs, coolant loops, air handling and heat rejection.

One module a rule; its examples in examples/<id>/ beside it."""
