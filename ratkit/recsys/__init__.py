"""ratkit.recsys."""

__all__: list[str] = []
