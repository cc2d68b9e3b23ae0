"""The data containers the loaders return print as one short line, not their contents."""

from __future__ import annotations

import numpy as np

from ratkit.datasets import ReutersDocument, SequenceDataset, from_triples, load_splice


def test_bundled_splice_prints_one_line_of_counts():
    text = repr(load_splice())
    # ATTRIBUTION.md: 3190 sequences of 60 nucleotides, classes EI 767, IE 768, N 1655.
    assert text.startswith("SequenceDataset(n_samples=3190, length=60, classes={'EI': 767, 'IE': 768, 'N': 1655}, ")
    assert text.endswith("splice.data')")
    assert "\n" not in text and len(text) < 300
    assert str(load_splice()) == text


def test_sequence_dataset_repr_ranges_lengths_and_caps_classes():
    sequences = ["a" * k for k in range(1, 21)]  # lengths 1..20
    labels = [f"c{k:02d}" for k in range(20)]  # 20 classes of one example each
    text = repr(SequenceDataset(sequences, labels, source="x.tsv"))
    shown = ", ".join(f"'c{k:02d}': 1" for k in range(8))
    assert (
        text == f"SequenceDataset(n_samples=20, lengths=1..20, classes={{{shown}, ... (20 classes)}}, source='x.tsv')"
    )


def test_unlabelled_and_empty_datasets():
    assert repr(SequenceDataset(["ab", "abc"], [])) == "SequenceDataset(n_samples=2, lengths=2..3, unlabelled)"
    assert repr(SequenceDataset([], [])) == "SequenceDataset(n_samples=0, unlabelled)"


def test_reuters_document_shows_the_start_of_its_body():
    body = "word " * 1000
    text = repr(ReutersDocument(7, "train", ["acq"], body))
    assert text == (
        f"ReutersDocument(newid=7, split='train', topics=['acq'], body={body[:57] + '...'!r} (5000 characters))"
    )
    assert repr(ReutersDocument(8, "test", [], "short")) == (
        "ReutersDocument(newid=8, split='test', topics=[], body='short' (5 characters))"
    )


def test_interactions_repr_counts_without_listing_ids():
    # 1000 users with string ids, 3 items; user u rated item u % 3, and one stored zero.
    users = np.array([f"user-{u:04d}" for u in range(1000)] + ["user-0000"])
    items = np.array([u % 3 for u in range(1000)] + [1])
    values = np.array([1.0] * 1000 + [0.0])
    data = from_triples(users, items, values, source="events.csv")
    text = repr(data)
    assert text == "Interactions(n_users=1000, n_items=3, n_interactions=1000, source='events.csv')"
    assert "user-0999" not in text
