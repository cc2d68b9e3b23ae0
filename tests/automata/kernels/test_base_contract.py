"""Every built-in kernel family and combinator, and a third party's, passes KernelContract;
and what the contract of a family promises beyond it: specs from the registry, one
hyphenated name style, parameters in the repr, the feature maps of combinations."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from ratkit import plugins
from ratkit.automata import kernels as K
from ratkit.automata.kernels import SpecError, VocabularyError, from_spec, to_spec, vocabulary_from_state
from ratkit.testing import KernelContract

from ...thirdparty import installed_distribution
from .kernel_oracles import gappy_kernel, ngram_kernel, random_strings

# -- the built-in families and combinators -----------------------------------------------


class TestNgram(KernelContract):
    def make_kernel(self):
        return K.ngram(2)


class TestNgramByAutomata(KernelContract):
    def make_kernel(self):
        return K.ngram(3, strategy="features")


class TestGappy(KernelContract):
    def make_kernel(self):
        return K.gappy(2, 0.5)


class TestGappyLong(KernelContract):
    def make_kernel(self):
        return K.gappy(3, 0.3)


class TestMismatchDeclaredAlphabet(KernelContract):
    def make_kernel(self):
        return K.mismatch(2, 1, "abc")


class TestMismatchInferredAlphabet(KernelContract):
    def make_kernel(self):
        return K.mismatch(2, 1)


class TestSubsequence(KernelContract):
    max_length = 6

    def make_kernel(self):
        return K.subsequence()


class TestEditDistanceTropical(KernelContract):
    def make_kernel(self):
        return K.edit_distance()


class TestEditDistanceProbability(KernelContract):
    max_length = 5

    def make_kernel(self):
        # a kernel is symmetric: insertions weigh what deletions do
        return K.edit_distance("probability", insertion=0.2, deletion=0.2, substitution=0.1, match=0.8)


class TestCountBased(KernelContract):
    def make_kernel(self):
        return K.count_based(["ab", "c", "bca"], [1.0, 0.5, 2.0])


class TestCountBasedTokens(KernelContract):
    def make_kernel(self):
        return K.count_based([("a", "b"), ("c",)])

    def make_inputs(self, seed=0, n=10):
        rng = random.Random(seed)
        return [tuple(rng.choice("abc") for _ in range(rng.randint(0, 6))) for _ in range(n)]


class TestTransducer(KernelContract):
    def make_kernel(self):
        return K.from_transducer(K.ngram(2).factor("abc"))


class TestSum(KernelContract):
    def make_kernel(self):
        return K.ngram(1) + 0.5 * K.gappy(2, 0.5)


class TestWeightedSumWithAZeroWeight(KernelContract):
    def make_kernel(self):
        return K.SumKernel([K.ngram(2), K.mismatch(2, 1, "abc"), K.ngram(1)], [2.0, 0.5, 0.0])


class TestProduct(KernelContract):
    def make_kernel(self):
        return K.ngram(1) * K.ngram(2)


class TestProductOfThree(KernelContract):
    def make_kernel(self):
        return K.ProductKernel([K.ngram(1), K.gappy(2, 0.5), K.count_based(["a", "bc"])])


class TestProductWithoutFeatures(KernelContract):
    max_length = 6

    def make_kernel(self):
        return K.ngram(1) * K.exp_kernel(K.edit_distance(), 0.5)


class TestScale(KernelContract):
    def make_kernel(self):
        return 2.5 * K.ngram(3)


class TestScaledSumOfProductsWithACommonScale(KernelContract):
    """split_scale() takes a common scale out of every level (issue 35)."""

    def make_kernel(self):
        small = K.count_based(["ab", "c"], [0.25, 0.125])
        return 3.0 * (small * K.count_based(["a", "b"], [4.0, 8.0]) + 0.5 * small)


class TestPolynomial(KernelContract):
    def make_kernel(self):
        return K.polynomial(K.ngram(2), degree=3, coef0=1.0, scale=0.5)


class TestCosine(KernelContract):
    def make_kernel(self):
        return K.cosine(K.ngram(2))


class TestCosineOfSum(KernelContract):
    def make_kernel(self):
        return K.cosine(K.ngram(2) + K.gappy(2, decay=0.5))


class TestExp(KernelContract):
    def make_kernel(self):
        return K.exp_kernel(K.edit_distance(), 0.5)


class TestNdsToPds(KernelContract):
    def make_kernel(self):
        return K.nds_to_pds(K.edit_distance(), "ab")


# -- a third party's family: one module, one entry point ---------------------------------

THIRD_PARTY = {
    "ratkit_tp_kernels.py": '''
        import numpy as np

        from ratkit.automata import from_arcs
        from ratkit.automata.kernels import Kernel, RationalKernel


        class LengthKernel(Kernel):
            """K(x, y) = (|x| + c)(|y| + c): a kernel with gram alone, no transducer."""

            is_pds = True

            def __init__(self, c=1.0):
                self.c = c

            def _gram(self, X, Y=None):
                a = np.array([len(x) + self.c for x in X], dtype=float)
                b = a if Y is None else np.array([len(y) + self.c for y in Y], dtype=float)
                return np.outer(a, b)


        class UnigramCounter(RationalKernel):
            """K(x, y) = Σ_σ |x|_σ |y|_σ: T skips a prefix, copies one symbol, skips the rest."""

            def _build_factor(self, alphabet):
                arcs = [(q, s, "", 1.0, q) for s in alphabet for q in (0, 1)]
                arcs += [(0, s, s, 1.0, 1) for s in alphabet]
                return from_arcs(arcs, 0, {1: 1.0}, alphabet=alphabet)


        class SymbolCount(RationalKernel):
            """K(x, y) = |x|_s |y|_s for one symbol s."""

            def __init__(self, symbol="a", weight=1.0):
                self.symbol = symbol
                self.weight = weight

            def _validate_params(self):
                if not isinstance(self.symbol, str) or not self.symbol:
                    raise ValueError(f"SymbolCount needs a non-empty symbol; got {self.symbol!r}.")

            def _build_factor(self, alphabet):
                self._validate_params()
                arcs = [(q, s, "", 1.0, q) for s in alphabet for q in (0, 1)]
                if self.symbol in alphabet:
                    arcs.append((0, self.symbol, self.symbol, float(self.weight), 1))
                return from_arcs(arcs, 0, {1: 1.0}, alphabet=alphabet)
    ''',
}
ENTRY_POINTS = {
    "ratkit.kernels": {
        "tp-unigram": "ratkit_tp_kernels:UnigramCounter",
        "tp-symbol-count": "ratkit_tp_kernels:SymbolCount",
        "tp-length": "ratkit_tp_kernels:LengthKernel",
    }
}


@pytest.fixture
def third_party(tmp_path):
    with installed_distribution(tmp_path / "site", "ratkit-tp-kernels", THIRD_PARTY, ENTRY_POINTS) as root:
        yield root


class _ThirdParty(KernelContract):
    @pytest.fixture(autouse=True)
    def _installed(self, third_party):
        yield


class TestThirdPartyUnigram(_ThirdParty):
    def make_kernel(self):
        return from_spec({"family": "tp-unigram"})


class TestThirdPartySymbolCount(_ThirdParty):
    def make_kernel(self):
        return from_spec({"family": "tp-symbol-count", "symbol": "b", "weight": 2.0})


class TestThirdPartyInACombination(_ThirdParty):
    def make_kernel(self):
        return K.cosine(from_spec({"family": "tp-unigram"}) + K.ngram(2))


class TestThirdPartyKernelWithGramAlone(_ThirdParty):
    def make_kernel(self):
        return from_spec({"family": "tp-length", "c": 0.5})


class TestThirdPartyKernelWithGramAloneInASum(_ThirdParty):
    def make_kernel(self):  # the sum passes strategy= to NgramKernel, not to the plain kernel
        return K.ngram(2) + from_spec({"family": "tp-length"})


def test_a_third_party_family_round_trips_through_its_spec(third_party):
    spec = {"family": "tp-symbol-count", "symbol": "b", "weight": 2.0}
    k = from_spec(spec)
    assert type(k).__name__ == "SymbolCount" and repr(k) == "SymbolCount(symbol='b', weight=2.0)"
    assert to_spec(k) == spec
    assert to_spec(from_spec(to_spec(k))) == spec
    X = ["abba", "b", "", "ca"]
    want = np.array([[2 * x.count("b") * y.count("b") * 2 for y in X] for x in X], dtype=float)
    np.testing.assert_allclose(from_spec(to_spec(k)).gram(X), want)
    nested = {"family": "sum", "kernels": [spec, {"family": "tp-unigram"}]}
    assert to_spec(from_spec(nested)) == nested
    with pytest.raises(SpecError, match=r"Unknown key 'colour' at spec \(a tp-symbol-count kernel\); accepted keys: "):
        from_spec({"family": "tp-symbol-count", "colour": "red"})
    with pytest.raises(SpecError, match=r"spec.kernels\[0\]: SymbolCount needs a non-empty symbol"):
        from_spec({"family": "sum", "kernels": [{"family": "tp-symbol-count", "symbol": ""}]})


def test_a_plain_rational_kernel_gives_features_from_its_transducer_alone(third_party):
    k = from_spec({"family": "tp-unigram"})
    X = ["abca", "bb", "", "cab"]
    vocabulary, F = k.fit_features(X)
    assert [("a",), ("b",), ("c",)] == vocabulary.patterns()
    np.testing.assert_array_equal(F.toarray(), [[2, 1, 1], [0, 2, 0], [0, 0, 0], [1, 1, 1]])


# -- specs come from the registry ----------------------------------------------------------


def test_every_family_and_combinator_is_a_registered_kernel_plugin():
    names = set(plugins.available("kernel"))
    assert {"sum", "product", "scale", "polynomial", "cosine", "exp", "nds-to-pds"} <= names
    assert {"ngram", "gappy", "mismatch", "subsequence", "edit-distance", "count-based", "transducer"} <= names
    assert not any("_" in n for n in names if n.startswith(("edit", "count", "nds")))


@pytest.mark.parametrize(
    "spec, family",
    [
        ({"family": "edit_distance"}, "edit-distance"),
        ({"family": "count_based", "patterns": ["ab"]}, "count-based"),
        ({"family": "nds_to_pds", "kernel": {"family": "edit_distance"}, "x0": "a"}, "nds-to-pds"),
    ],
)
def test_underscore_family_names_of_earlier_files_still_read(spec, family):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read as they are, without a deprecation warning
        k = from_spec(spec)
    written = to_spec(k)
    assert written["family"] == family and "_" not in json.dumps(written).split('"x0"')[0].replace("show_progress", "")
    assert to_spec(from_spec(written)) == written


def test_to_spec_refuses_an_unregistered_family():
    class Unregistered(K.RationalKernel):
        def _build_factor(self, alphabet):
            return K.ngram(1).factor(alphabet)

    with pytest.raises(SpecError, match=r"Unregistered has no spec form: it is not registered as a kernel family"):
        to_spec(Unregistered())
    with pytest.raises(SpecError, match=r"Unregistered has no spec form"):
        to_spec(K.cosine(Unregistered()))


def test_unknown_nested_keys_are_named_by_their_path_with_the_accepted_keys():
    spec = {"family": "sum", "kernels": [{"family": "ngram", "n": 2}, {"family": "gappy", "n": 2, "lambda": 1}]}
    with pytest.raises(
        SpecError,
        match=r"Unknown key 'lambda' at spec.kernels\[1\] \(a gappy kernel\); accepted keys: family, n, decay, "
        r"strategy, n_jobs, show_progress\.",
    ):
        from_spec(spec)
    with pytest.raises(SpecError, match=r"spec.kernels\[1\] must be a kernel spec"):
        from_spec({"family": "sum", "kernels": [{"family": "ngram", "n": 2}, 3]})
    with pytest.raises(SpecError, match=r"Missing key 'kernel' at spec \(a cosine kernel\)"):
        from_spec({"family": "cosine"})


def test_keyword_options_are_spec_keys_written_only_when_set():
    k = from_spec({"family": "ngram", "n": 2, "strategy": "features"})
    assert k.strategy == "features"
    assert to_spec(k) == {"family": "ngram", "n": 2, "strategy": "features"}
    assert to_spec(K.ngram(2)) == {"family": "ngram", "n": 2}


# -- repr shows the parameters ---------------------------------------------------------------


def test_repr_shows_every_parameter_on_one_line():
    assert repr(K.NgramKernel(n=3)) == "NgramKernel(n=3)"
    assert repr(K.ngram(3, strategy="features")) == "NgramKernel(n=3, strategy='features')"
    assert repr(K.gappy(2, 0.5)) == "GappyKernel(n=2, decay=0.5)"
    assert repr(K.subsequence()) == "SubsequenceKernel()"
    assert repr(2 * K.ngram(3)) == "ScaledKernel(kernel=NgramKernel(n=3), factor=2.0)"
    assert repr(K.cosine(K.ngram(2) + K.ngram(3))) == (
        "CosineKernel(kernel=SumKernel(kernels=[NgramKernel(n=2), NgramKernel(n=3)], weights=None))"
    )
    long = K.count_based([f"a{i}" for i in range(500)])
    assert "\n" not in repr(long) and len(repr(long)) <= 700


def test_grid_search_best_params_print_the_kernel_parameters():
    rng = random.Random(0)
    X = ["".join(rng.choice("ab") for _ in range(8)) + "aa" for _ in range(12)]
    X += ["".join(rng.choice("ab") for _ in range(8)) + "bb" for _ in range(12)]
    y = [0] * 12 + [1] * 12
    grid = GridSearchCV(SVC(), {"kernel": [K.ngram(1), K.ngram(3)]}, cv=3).fit(X, y)
    assert str(grid.best_params_["kernel"]) in ("NgramKernel(n=1)", "NgramKernel(n=3)")


# -- feature maps of combinations, against brute force -----------------------------------------

XS = random_strings(random.Random(5), 9, "abc", 9, min_len=1)
NEW = random_strings(random.Random(6), 4, "abcd", 7)


def _oracle(f, A, B):
    return np.array([[f(a, b) for b in B] for a in A], dtype=float)


@pytest.mark.parametrize(
    "kernel, oracle",
    [
        (K.ngram(2) + K.ngram(3), lambda a, b: ngram_kernel(a, b, 2) + ngram_kernel(a, b, 3)),
        (2 * K.ngram(3), lambda a, b: 2 * ngram_kernel(a, b, 3)),
        (K.ngram(1) * K.ngram(2), lambda a, b: ngram_kernel(a, b, 1) * ngram_kernel(a, b, 2)),
        (
            K.SumKernel([K.ngram(1), K.gappy(2, 0.5)], [0.25, 3.0]),
            lambda a, b: 0.25 * ngram_kernel(a, b, 1) + 3.0 * gappy_kernel(a, b, 2, 0.5),
        ),
    ],
    ids=["ngram2+ngram3", "2*ngram3", "ngram1*ngram2", "weighted-sum"],
)
def test_combined_feature_maps_equal_brute_force_kernels(kernel, oracle):
    vocabulary, F = kernel.fit_features(XS)
    np.testing.assert_allclose((F @ F.T).toarray(), _oracle(oracle, XS, XS), rtol=1e-12)
    G = kernel.transform_features(vocabulary, NEW)
    np.testing.assert_allclose((G @ F.T).toarray(), _oracle(oracle, NEW, XS), rtol=1e-12, atol=1e-12)


def test_cosine_features_divide_by_the_full_norm_of_new_sequences():
    k = K.cosine(K.ngram(2) + K.gappy(2, decay=0.5))

    def base(a, b):
        return ngram_kernel(a, b, 2) + gappy_kernel(a, b, 2, 0.5)

    vocabulary, F = k.fit_features(XS)
    G = k.transform_features(vocabulary, NEW)
    norms = np.sqrt([base(z, z) for z in NEW])
    raw = _oracle(base, NEW, XS) / np.sqrt([base(x, x) for x in XS])[None, :]
    want = np.divide(raw, norms[:, None], out=np.zeros_like(raw), where=norms[:, None] > 0)
    np.testing.assert_allclose((G @ F.T).toarray(), want, rtol=1e-12, atol=1e-12)
    # 'd' never occurs in training: its patterns count in the norm only
    assert any("d" in z for z in NEW)


def test_product_vocabulary_holds_only_pairs_seen_in_training():
    k = K.ngram(1) * K.ngram(1)
    vocabulary, F = k.fit_features(["ab", "c"])
    # a and b occur together, c alone: pairs aa, ab, ba, bb, cc, not ac, bc, ...
    assert vocabulary.n_features == 5 and F.shape == (2, 5)
    left, right = vocabulary.split(np.arange(5))
    pats = [(vocabulary.left.patterns()[a], vocabulary.right.patterns()[b]) for a, b in zip(left, right)]
    assert sorted("".join(p[0] + p[1]) for p in pats) == ["aa", "ab", "ba", "bb", "cc"]


def test_composite_vocabularies_rebuild_from_one_flat_state():
    k = K.cosine(K.ngram(1) * K.ngram(2) + 2 * K.gappy(2, 0.5))
    vocabulary, F = k.fit_features(XS)
    meta, arrays = vocabulary.to_state()
    json.dumps(meta)  # one JSON dict
    assert all(isinstance(v, np.ndarray) for v in arrays.values()) and len(arrays) == 4
    again = vocabulary_from_state(json.loads(json.dumps(meta)), dict(arrays))
    assert again.n_features == vocabulary.n_features
    np.testing.assert_array_equal(again.pattern_codes()[0], np.arange(1, F.shape[1] + 1))
    np.testing.assert_allclose(
        k.transform_features(again, NEW).toarray(), k.transform_features(vocabulary, NEW).toarray()
    )
    with pytest.raises(ValueError, match="unknown vocabulary type 'trie'"):
        vocabulary_from_state({"type": "trie"}, {})


def test_check_vocabulary_names_a_pattern_the_kernel_cannot_produce():
    vocabulary, _ = (K.ngram(2) + K.ngram(3)).fit_features(XS)
    K.SumKernel([K.ngram(2), K.ngram(3)]).check_vocabulary(vocabulary, np.arange(vocabulary.n_features))
    last = np.array([vocabulary.n_features - 1])  # a trigram, in the second block
    with pytest.raises(VocabularyError, match=r"NgramKernel\(n=4\) cannot produce the pattern '...' of the vocabulary"):
        (K.ngram(2) + K.ngram(4)).check_vocabulary(vocabulary, last)
    K.ngram(5).check_vocabulary(vocabulary.parts[0], np.array([], dtype=np.int64))  # nothing to check
    with pytest.raises(VocabularyError, match=r"reads a BlockVocabulary; got a FeatureMap"):
        (K.ngram(2) + K.ngram(3)).check_vocabulary(vocabulary.parts[0], np.array([0]))
    with pytest.raises(VocabularyError, match=r"has 3 parts; the vocabulary has 2 blocks"):
        K.SumKernel([K.ngram(2), K.ngram(3), K.ngram(1)]).transform_features(vocabulary, NEW)
    pairs, _ = (K.ngram(1) * K.ngram(2)).fit_features(XS)
    with pytest.raises(VocabularyError, match=r"NgramKernel\(n=3\) cannot produce the pattern"):
        (K.ngram(1) * K.ngram(3)).check_vocabulary(pairs, np.arange(pairs.n_features))


def test_kernels_without_a_finite_feature_map_say_so():
    for k in (K.edit_distance(), K.exp_kernel(K.ngram(2)), K.ngram(2) + K.edit_distance(), K.polynomial(K.ngram(1))):
        with pytest.raises(K.TooManyPaths):
            k.fit_features(XS)


def test_feature_automata_of_the_naive_representation():
    phis, cosine = K.cosine(K.ngram(2)).feature_automata(XS[:3])
    assert cosine is True and len(phis) == 3
    assert K.ngram(2).feature_automata(XS[:3])[1] is False
    assert K.edit_distance().feature_automata(XS[:3]) is None
    assert (K.ngram(2) + K.ngram(3)).feature_automata(XS[:3]) is None


def test_combinations_pass_the_strategy_to_their_parts():
    k = K.cosine(K.ngram(2) + K.gappy(2, 0.5))
    np.testing.assert_allclose(k.gram_with(XS, strategy="composition"), k.gram(XS), rtol=1e-12)
    with pytest.raises(ValueError, match="The 'strategy' parameter of NgramKernel must be one of"):
        k.gram_with(XS, strategy="magic")


def test_sparse_blocks_of_a_sum_are_scaled_by_the_square_root_of_the_weights():
    vocabulary, F = K.SumKernel([K.ngram(1)], [4.0]).fit_features(["ab"])
    assert sp.isspmatrix_csr(F) and F.toarray().tolist() == [[2.0, 2.0]]
    assert vocabulary.parts[0].patterns() == [("a",), ("b",)]
