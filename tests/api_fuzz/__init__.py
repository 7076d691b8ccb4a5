"""The API against its OpenAPI schema: the committed schema, and fuzzing (issue 9)."""
