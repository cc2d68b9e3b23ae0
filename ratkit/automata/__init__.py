"""ratkit.automata: the WFST algebra on pynini."""

__all__: list[str] = []
