"""`python -m dclint`: the same as the `dclint` command."""

from dclint.cli import run

run()
