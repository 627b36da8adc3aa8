"""Fabric rules (NET): the network's switches, links, tiers, rails and cables.

One module a rule; its examples in examples/<id>/ beside it."""
