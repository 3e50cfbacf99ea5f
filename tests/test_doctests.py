"""The examples in the packages' docstrings run as tests (the doctests)."""
import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ["comm", "engine", "othellotool", "peer"]
SKIP = {"engine.fit.weights"}   # needs numpy only for refitting; its examples are none


def modules():
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        yield name
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{name}."):   # subpackages too
            if info.name not in SKIP and not info.name.endswith(".__main__"):  # scripts run on import
                yield info.name


def examples():
    out = []
    for name in modules():
        module = importlib.import_module(name)
        for test in doctest.DocTestFinder().find(module):
            if test.examples:
                out.append(pytest.param(test, id=test.name))
    return out


@pytest.mark.parametrize("test", examples())
def test_docstring_example(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=lambda s: print(s, end=""))
    assert result.failed == 0, f"{test.name}: {result.failed} of {result.attempted} examples failed"


def test_there_are_examples_to_run():
    assert len(examples()) >= 3
