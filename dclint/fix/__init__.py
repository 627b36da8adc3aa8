"""Fixes: edits to a design's text at the positions dclint records (never a re-dump)."""
