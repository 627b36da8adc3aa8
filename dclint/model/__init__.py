"""Design models: pydantic classes whose physical fields are pint quantities."""
