"""ratkit.learners."""

__all__: list[str] = []
