"""dclint's built-in rule pack: one module a rule, each module's docstring its documentation."""
