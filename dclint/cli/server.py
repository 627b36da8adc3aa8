"""`dclint server`: the language server (LSP over stdio) for editors; needs `dclint[server]`."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_config, add_rules_dir
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("server", help="run the language server for editors (LSP over stdio)")
    add_config(parser)
    add_rules_dir(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        from dclint.server.lsp import serve
    except ImportError as exc:
        raise ConfigError(
            f"dclint server needs the server extra ({exc.name} is not installed): "
            "pip install 'dclint[server]'"
        ) from None
    engine_args: dict[str, Any] = {"rules_dirs": tuple(args.rules_dir)}
    from dclint.cli._shared import given_config

    config = given_config(args)  # --config's, --isolated's defaults, else each file's own
    if config is not None:
        engine_args["config"] = config
    from dclint.engine.runner import Engine

    Engine(**engine_args)  # bad rules or config: one error line and exit 2, before serving
    try:
        serve(None, engine_args)
    except (OSError, ValueError) as exc:  # no protocol stream to read or write
        raise ConfigError(f"dclint server: cannot use standard input/output: {exc}") from None
    # the protocol owned stdout and the client has closed it: nothing more is written there
    import os
    import sys

    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (lives until the process exits)
    return 0
