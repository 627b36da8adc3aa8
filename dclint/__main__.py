"""`python -m dclint`: the same as the `dclint` command."""

from dclint.cli import main

raise SystemExit(main())
