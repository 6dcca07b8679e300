"""The report's figures and pages (:mod:`ntpcheck.app.report.claimfigure`, :mod:`ntpcheck.app.report.reportmd`,
:mod:`ntpcheck.app.report.reporthtml`), checked on the matplotlib Figure objects, not on pixels, and the
HTML page in a real headless browser.

One quick run of every claim of every registered paper is shared by the module (``items``)."""

import json

import pytest

from ntpcheck.app.report.claimfigure import figure_kind, instances_caption
from ntpcheck.app.report.figstyle import MIN_FONT, instance_caption
from ntpcheck.app.report.reporthtml import html_report
from ntpcheck.app.report.reportmd import _unique, markdown, report_items
from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.framework import FigureSpec, Outcome, Verdict, run_claims
from ntpcheck.properties.framework.figure import DEFAULT_FIGURE, thin_indices, trace_of

pytest.importorskip("matplotlib")

INST = {"V": 3, "N": 4, "L_max": 5, "T": 900, "T2": 300, "eta0": 1.4142, "eta": 0.035355}


@pytest.fixture(scope="module")
def items():
    """Every claim of every registered paper, quick profile, seed 0, with its figure."""
    results = [r for name in PAPERS for r in run_claims(paper(name).claims, "quick", 0)]
    return report_items(results)


def _has_data(r) -> bool:
    return r.counts.get("tested", 0) > 0


def test_every_claim_with_tested_instances_gets_a_figure(items):
    for it in items:
        assert (it.figure is not None) == _has_data(it.result), (it.result.claim.name, it.caption)
        assert it.caption


def test_each_figure_has_a_title_labelled_axes_and_readable_text(items):
    for it in (it for it in items if it.figure is not None):
        fig, name = it.figure, it.result.claim.name
        assert fig._suptitle is not None and name in fig._suptitle.get_text(), name
        assert fig.get_size_inches()[0] * fig.dpi >= 1000, name
        axes = [ax for ax in fig.axes if ax.get_visible() and (ax.get_xticks().size or ax.get_yticks().size)]
        assert axes, name
        for ax in axes:
            assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), (name, ax.get_title())
        fig.draw_without_rendering()
        small = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text"))
                 if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT]
        assert not small, (name, small[:5])


def _declares_a_bound(spec: FigureSpec) -> bool:
    return bool(spec.bound or spec.bound2 or spec.lines or spec.reference is not None)


def test_the_claimed_bound_is_drawn_where_the_claim_has_one(items):
    checked = 0
    for it in (it for it in items if it.figure is not None):
        spec = it.result.claim.figure or DEFAULT_FIGURE
        if _declares_a_bound(spec) or figure_kind(it.result) in ("bound", "between", "rate", "gap", "attention"):
            drawn = it.figure.findobj(lambda a: a.get_gid() == "bound")
            assert drawn, it.result.claim.name
            checked += 1
    assert checked >= 20


def test_the_declared_kinds_are_drawn(items):
    kinds = {it.result.claim.name: it.figure.ntpcheck_kind for it in items if it.figure is not None}
    expected = {"Lemma 1": "between", "Thm. 1 [rate]": "rate", "Prop. 1 [loss k'=1]": "rate", "Thm. 3 [gaps]": "gap",
                "Prop. 2 (exact)": "scatter", "Lemma 5 [trained W_ov]": "attention", "§7": "panels",
                "Thm. 1 [alignment bound]": "bound", "Eq. 5": "instances", "Cor. 1 [k=5]": "scatter"}
    for name, kind in expected.items():
        if name in kinds:
            assert kinds[name] == kind, name
    assert len(set(kinds.values())) >= 7


def test_report_figure_count_is_the_claims_with_data(items):
    with_data = sum(_has_data(it.result) for it in items)
    md = markdown(items, "quick", 0)
    assert md.count("](plots/") == with_data
    page = html_report(items, "quick", 0, paper=None)
    assert page.count('src="data:image/png;base64,') == with_data
    for it in items:
        assert f'<article id="{it.anchor}">' in page and f'href="#{it.anchor}"' in page
    for name in PAPERS:  # the table of contents by paper and section
        assert f'href="#paper-{name}"' in page


def test_traces_are_small_json_data(items):
    for it in items:
        for row in it.result.per_instance:
            tr = row[4] if len(row) > 4 else None
            if tr is None:
                continue
            text = json.dumps(tr)
            assert len(text) < 60_000, it.result.claim.name
            assert "trace_error" not in tr, (it.result.claim.name, tr.get("trace_error"))


def test_every_declared_figure_names_a_claim_and_a_known_kind():
    for name in PAPERS:
        for c in paper(name).claims:
            assert c.figure is None or isinstance(c.figure, FigureSpec)
    with pytest.raises(ValueError):
        FigureSpec("pie")
    with pytest.raises(ValueError):
        FigureSpec("rate", law="linear")


def test_a_failing_trace_never_stops_a_run():
    def broken(ev, o):
        raise ZeroDivisionError("boom")

    o = Outcome(Verdict.HOLDS, 0.5, {"fitted_exponent": -2.0})
    tr = trace_of(FigureSpec("rate", trace=broken), None, o)
    assert tr["trace_error"].startswith("ZeroDivisionError") and tr["fitted_exponent"] == -2.0 and tr["slack"] == 0.5
    assert trace_of(None, None, Outcome(Verdict.OUTSIDE)) == {"slack": None}


def test_thinning_keeps_ends_and_both_scales():
    k = thin_indices(20001, 96)
    assert k[0] == 0 and k[-1] == 20000 and len(k) <= 100
    assert (k < 100).sum() >= 10  # log-spaced: the start of a run is seen on a log axis
    assert thin_indices(5, 96).tolist() == [0, 1, 2, 3, 4]


def test_captions():
    assert instance_caption(INST) == "|V| = 3, N = 4, L_max = 5, T = 900, T' = 300, eta_0 = 1.41, eta = 0.0354"
    rows = [(Verdict.HOLDS, 1.0, INST, False), (Verdict.HOLDS, 1.0, {**INST, "V": 7}, False), (Verdict.OUTSIDE, 1.0, None, False)]
    assert instances_caption(rows).startswith("3 instances: |V| 3-7, N 4, ")


def test_plot_names_are_unique():
    used: set[str] = set()
    assert [_unique("plots/a", used) for _ in range(3)] == ["plots/a", "plots/a-2", "plots/a-3"]


def test_html_report_in_a_real_browser(items, tmp_path):
    """The page loads in headless Chromium, every image resolves (naturalWidth > 0), and screenshots of
    its top and of one claim are saved under the report directory."""
    from tests import browser

    if browser.chromium() is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it where it runs as root)")
    (tmp_path / "report.html").write_text(html_report(items, "quick", 0), encoding="utf-8")
    got = browser.check(tmp_path)
    assert got["title"] == "ntpcheck verification report"
    with_data = sum(_has_data(it.result) for it in items)
    assert got["images"] is not None and len(got["images"]) == with_data
    assert all(done and width >= 1000 for done, width in got["images"])
    for path in got["screenshots"]:
        assert (tmp_path / "screenshots").exists() and path.endswith(".png")
        data = open(path, "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert got["claim"] and len(got["screenshots"]) == 2


def test_heatmap_writes_counts_in_cells_and_maps_links_to_them():
    from ntpcheck.app.report.matrixreport import Grid, heatmap

    cols = ["algorithm-1", "gd", "joint-ngd", "adam", "minibatch", "factorised", "random-init"]
    g = Grid("paper: each claim under each training algorithm", "training algorithm", ["A", "B [reading]"], cols, note="n/m")
    for j, c in enumerate(cols):
        g.cells[("A", c)] = (Verdict.FALSIFIED if j == 1 else Verdict.HOLDS, f"{j}/9", None, f"A with {c}")
        g.cells[("B [reading]", c)] = (None, "n/a", None, f"B with {c}") if j == 0 else (Verdict.VACUOUS, "3/4", None, f"B with {c}")
    fig, links = heatmap(g, {("A", "gd"): "#cex-a-with-gd"})
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert all(any(f"{j}/9" in t for t in texts) for j in range(len(cols))) and any("n/a" in t for t in texts)
    (x0, y0, x1, y1, href, title), = links
    w, h = fig.get_size_inches() * fig.dpi
    assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h and href == "#cex-a-with-gd" and title == "A with gd"
    assert x1 - x0 > 40 and y1 - y0 > 20  # a cell, not a point


def test_matrix_report_links_each_falsified_cell_to_its_counterexample(tmp_path):
    import re

    from ntpcheck.app.cli.cli import main

    out = tmp_path / "m"
    assert main(["matrix", "--profile", "quick", "--claims", "Prop. 2 [Section 3 setting]", "--report", str(out)]) == 0
    assert (out / "matrix.png").read_bytes()[:4] == b"\x89PNG"
    page = (out / "report.html").read_text()
    hrefs = re.findall(r'<area shape="rect" coords="[0-9,]+" href="#([^"]+)"', page)
    assert hrefs, "no falsified cell linked"
    for anchor in hrefs:
        assert f'<article id="{anchor}">' in page
    md = (out / "report.md").read_text()
    assert "![the matrix](matrix.png)" in md and md.count("# replay: ") == len(hrefs)
