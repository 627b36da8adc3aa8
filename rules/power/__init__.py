"""Power rules (PWR): racks, feeds, panels, UPS, transformers, generation, the chain between them.

One module a rule; its examples in examples/<id>/ beside it."""
