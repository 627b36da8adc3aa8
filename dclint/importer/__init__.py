"""`dclint import`: designs read from where they live (NetBox, Nautobot, spreadsheets) and
written as a dclint design fragment. Beside the loader: it knows the model, never the rules,
and `dclint check` never imports it."""
