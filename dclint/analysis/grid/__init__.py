"""The what-if grids: the runner `check --sweep` and `plan --vary` share (`runner`), the facility
grid of `plan --vary` and its Pareto front (`facility`), and the SQLite file its points go to
(`store`)."""
