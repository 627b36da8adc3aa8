"""Loading designs: safe YAML with positions, validation into models, reference resolution."""

from dclint.loader.load import load, load_text

__all__ = ["load", "load_text"]
