"""The second paper's figures (Thrampoulidis 2024, :mod:`ntpcheck.properties.thrampoulidis2024.figspecs`),
checked on the matplotlib Figure objects, and its report (``verify --paper thrampoulidis2024 --report``)
in a real headless browser.

One quick run of the paper's claims is shared by the module (``items``).
"""

import re

import pytest

from ntpcheck.app.report.claimfigure import figure_kind
from ntpcheck.app.report.reportmd import report_items
from ntpcheck.properties import paper
from ntpcheck.properties.framework import run_claims
from ntpcheck.properties.thrampoulidis2024.figspecs import FIGURES

pytest.importorskip("matplotlib")

PAPER = "thrampoulidis2024"
#: Claims whose shrunk counterexample cannot show the declared kind: (20)'s left side is negative
#: there, so it has no logarithm to scatter; the figure is then one number per instance.
FALLS_BACK = {"Lemma 5 [(20)-(21), CE]"}


@pytest.fixture(scope="module")
def items():
    return report_items(run_claims(paper(PAPER).claims, "quick", 0))


def test_every_claim_declares_a_figure():
    claims = paper(PAPER).claims
    assert {c.name for c in claims} == set(FIGURES)
    assert all(c.figure is FIGURES[c.name] for c in claims)


def test_every_claim_with_tested_instances_gets_its_declared_figure(items):
    assert len(items) == len(FIGURES)
    for it in items:
        r = it.result
        assert (it.figure is not None) == (r.counts.get("tested", 0) > 0), r.claim.name
        if it.figure is not None and r.claim.name not in FALLS_BACK:
            assert it.figure.ntpcheck_kind == r.claim.figure.kind == figure_kind(r), r.claim.name


def test_each_figure_has_a_title_two_labelled_axes_and_its_bound(items):
    for it in (it for it in items if it.figure is not None):
        fig, name, spec = it.figure, it.result.claim.name, it.result.claim.figure
        assert fig._suptitle is not None and name in fig._suptitle.get_text(), name
        axes = [ax for ax in fig.axes if ax.get_visible()]
        assert axes, name
        for ax in axes:
            assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), (name, ax.get_title())
        if spec.bound or spec.lines or spec.reference is not None or spec.kind == "limit":
            assert fig.findobj(lambda a: a.get_gid() == "bound"), name


def test_limits_are_drawn_on_log_axes_with_their_trend(items):
    limits = [it for it in items if it.figure is not None and it.result.claim.figure.kind == "limit"]
    assert {it.result.claim.name for it in limits} >= {"Thm. 1", "Thm. 2", "Lemma 2", "Lemma 4 [(3)]", "Lemma 4 [(5)]"}
    for it in limits:
        curves = it.figure.axes[:-1]
        assert all(ax.get_xscale() == "log" for ax in curves), it.result.claim.name
        texts = " ".join(t.get_text() for ax in curves for t in ax.get_legend().get_texts())
        assert "95% interval" in texts and "slope 0" in texts, it.result.claim.name


def test_report_html_images_resolve_in_a_browser(tmp_path):
    """``ntpcheck verify --paper thrampoulidis2024 --profile quick --report DIR``: report.html has one
    image per claim with tested instances, and all of them load in headless Chromium."""
    from ntpcheck.app.cli.cli import main

    from tests import browser

    out = tmp_path / "r"
    assert main(["verify", "--paper", PAPER, "--profile", "quick", "--report", str(out)]) in (0, 1)
    page = (out / "report.html").read_text(encoding="utf-8")
    n = page.count('src="data:image/png;base64,')
    assert n >= 40 and n == len(re.findall(r"\]\(plots/", (out / "report.md").read_text()))
    if browser.chromium() is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    got = browser.check(out)
    assert got["images"] is not None and len(got["images"]) == n
    assert all(done and width >= 1000 for done, width in got["images"])
