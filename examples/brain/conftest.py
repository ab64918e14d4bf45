"""The caller scripts (test_*.toml) call this folder's brain, served in-process for each."""

import pytest
from mymodule import Greeter


@pytest.fixture
def voqalize_brain():
    return Greeter
