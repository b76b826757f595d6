"""PassTimingRecord behaves like the seed's dataclass."""

import pickle

import pytest

from passtiming import PassTimingRecord


def test_positional_arguments_fill_fields_in_declaration_order():
    r = PassTimingRecord("tl.Simplify", 0.25, 2, 0.125, 7, "matmul")
    assert (r.name, r.duration_s, r.depth, r.self_duration_s, r.sequence, r.kernel) == (
        "tl.Simplify",
        0.25,
        2,
        0.125,
        7,
        "matmul",
    )


def test_keyword_arguments_and_defaults():
    r = PassTimingRecord(depth=1, duration_s=1.5, name="p")
    assert (r.name, r.duration_s, r.depth) == ("p", 1.5, 1)
    assert r.self_duration_s == 0.0
    assert r.sequence == 0
    assert r.kernel == ""


def test_missing_required_argument_is_a_type_error():
    with pytest.raises(TypeError):
        PassTimingRecord("p", 1.0)


def test_equality_compares_every_field():
    a = PassTimingRecord("p", 1.0, 0, 0.5, 3, "k")
    assert a == PassTimingRecord("p", 1.0, 0, 0.5, 3, "k")
    assert a != PassTimingRecord("p", 1.0, 0, 0.5, 3, "other")
    assert a != PassTimingRecord("p", 1.0, 0, 0.5, 4, "k")
    assert a != PassTimingRecord("q", 1.0, 0, 0.5, 3, "k")


def test_comparison_with_other_types_is_not_equal():
    a = PassTimingRecord("p", 1.0, 0)
    assert a != ("p", 1.0, 0, 0.0, 0, "")
    assert a.__eq__(("p",)) is NotImplemented


def test_unhashable_like_a_mutable_dataclass():
    with pytest.raises(TypeError):
        hash(PassTimingRecord("p", 1.0, 0))


def test_repr_reads_like_the_dataclass():
    r = PassTimingRecord("tl.Lower'x", 0.1, 1, self_duration_s=0.05, sequence=2, kernel="mm")
    assert repr(r) == (
        "PassTimingRecord(name=\"tl.Lower'x\", duration_s=0.1, depth=1, "
        "self_duration_s=0.05, sequence=2, kernel='mm')"
    )


def test_fields_are_writable():
    r = PassTimingRecord("p", 1.0, 0)
    r.kernel = "k"
    r.duration_s = 2.0
    assert r == PassTimingRecord("p", 2.0, 0, kernel="k")


def test_pickle_round_trip():
    r = PassTimingRecord("p", 1.0, 1, 0.5, 9, "k")
    assert pickle.loads(pickle.dumps(r)) == r


def test_pattern_matching_by_position():
    match PassTimingRecord("p", 1.0, 3):
        case PassTimingRecord(name, duration, depth):
            assert (name, duration, depth) == ("p", 1.0, 3)
        case _:
            pytest.fail("positional pattern did not match")
