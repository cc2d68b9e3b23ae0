import ratkit


def test_version():
    assert ratkit.__version__
