"""dclint's version: what every output that names the tool quotes (dclint.__version__ too)."""

__version__ = "0.1.0"
