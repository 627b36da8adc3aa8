"""The failure engine: every single failure played (`play`), the plant's failures outside the
power graph (`plant`), and the records of both (`records`)."""
