"""The layout search: its records (`records`), every layout of a workload checked and ranked
(`layouts`), and the search fed from a design with its figures in units (`plan`)."""
