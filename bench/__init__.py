"""Benchmarks, one package per suite; ``python -m bench`` runs them all (never ``make test``)."""
