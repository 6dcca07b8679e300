"""Installed (``pip install examples/li2024_graphsvm``), the package registers the paper ``li2024``:
ntpcheck's registry finds it and the command line runs it.  Skipped where it is not installed (the
ntpcheck suite runs the same from the source tree, tests/test_example_li2024.py)."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from li2024_graphsvm.claims import PAPER

INSTALLED = any(ep.name == "li2024" for ep in entry_points(group="ntpcheck.papers"))
pytestmark = pytest.mark.skipif(not INSTALLED, reason="not installed: pip install examples/li2024_graphsvm")


def test_registered():
    from ntpcheck.properties import paper, registered

    assert registered()["li2024"] == "li2024_graphsvm.claims:PAPER"
    assert paper("li2024") is PAPER


def test_the_command_line_runs_a_claim(capsys):
    from ntpcheck.app.cli.cli import main

    assert main(["verify", "--paper", "li2024", "--claims", "Graph-SVM [KKT]", "--profile", "quick", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "Graph-SVM" in out and "holds" in out
