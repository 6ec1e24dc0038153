"""The shape calculator: ``shapecheck eval``, one-shot or as an interactive session."""
