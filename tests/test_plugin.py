"""mechlib's pytest plugin, used from a test file outside the repository (as a user would)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mechlib import Mechanism, truncated_geometric

USER_TEST = """
from hypothesis import given, strategies as st

from mechlib import BayesUser, Mechanism, dp_level, optimal_remap


@given(st.from_type(Mechanism), st.from_type(BayesUser))
def test_every_drawn_mechanism_is_dp_and_remappable(mechanism, user):
    assert 0 < dp_level(mechanism).alpha <= 1
    if user.n == mechanism.n:
        optimal_remap(mechanism, user)


def test_fixtures(truncated_geometric_half, gs_appendix_b, uniform_absolute_user, mechlib_t):
    assert truncated_geometric_half == mechlib_t("1/2", 5)
    assert dp_level(gs_appendix_b).alpha == dp_level(truncated_geometric_half).alpha
    assert uniform_absolute_user.n == 5
"""


def test_the_plugin_works_from_a_test_file_outside_the_repo(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        USER_TEST.replace("from mechlib import BayesUser", "from mechlib import BayesUser, dp_level", 1)
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--hypothesis-profile",
            "mechlib-ci",
            "test_user.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_the_plugin_loads_the_profile_named_by_hypothesis_profile(tmp_path: Path) -> None:
    (tmp_path / "test_profile.py").write_text(
        "from hypothesis import settings\n\n"
        "def test_profile():\n"
        "    assert settings.default.max_examples == 60 and settings.default.database is None\n"
    )
    env = {**os.environ, "HYPOTHESIS_PROFILE": "mechlib-ci"}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_profile.py"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    env["HYPOTHESIS_PROFILE"] = "no-such-profile"
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False, env=env)
    assert done.returncode != 0 and "names no registered Hypothesis profile" in done.stderr


def test_a_mechanism_prints_as_code_that_rebuilds_it() -> None:
    from fractions import Fraction

    for m in (
        truncated_geometric(Fraction(1, 3), 3),
        Mechanism([["1/2", "1/2"], ["1/3", "2/3"]], inputs=[10, 20], outputs=[5, 7]),
        Mechanism([["1", "0"], ["1/2", "1/2"], ["0", "1"]], neighbours=[(0, 2)]),
    ):
        assert eval(repr(m), {"Mechanism": Mechanism}) == m
