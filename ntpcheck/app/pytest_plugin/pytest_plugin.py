"""The ntpcheck pytest plugin: claims as Hypothesis tests, every verdict visible.

Registered through the ``pytest11`` entry point; it adds no test to a run
unless asked, so installing ntpcheck never changes another project's suite.

What it collects
----------------
* ``pytest --ntpcheck`` (from any directory): every registered paper's
  claims (``--ntp-paper NAME``, ``--ntp-claims "Cor. 1,Lemma 7"``).
* In any test file, a module attribute named like a test (``test_*``)
  holding a :class:`~ntpcheck.properties.framework.Claim` (for instance one
  made by :func:`~ntpcheck.properties.framework.conjecture`) or a
  :class:`~ntpcheck.properties.framework.Paper`.

Each claim gives ``claim[<slug>]``, a Hypothesis ``@given`` test (so
``-m hypothesis`` and HypoFuzz find it) that searches the claim's strategy
with the profile's budget (``--ntp-profile``, default ``quick``), its
pinned examples first (``--ntp-no-pinned`` turns them off), randomised or
derandomised and with the example database of the Hypothesis settings in
force (a counterexample found once is replayed first next time); and
``sabotage[<slug>]``, which shows that its checker can fail.  The slug is an
ASCII id usable with ``-k`` (``cor1``, ``prop2-a12``, ``thm1-rate``, ``sec7``).

Verdicts
--------
``holds`` passes; ``falsified`` fails, printing the shrunk counterexample in
the text format and the command that reproduces it; a claim the paper
states that is known false (a registered finding) is a strict xfail whose
reason is the finding; ``vacuous``, ``outside-hypotheses`` and
``inconclusive`` are skipped with the verdict and the counts in the reason.
The verdict, counts and measured values go to ``record_property`` (so
``--junitxml`` carries them), and a terminal section lists every verdict.

Hypothesis profiles and example database
----------------------------------------
The plugin is loaded by every pytest run wherever ntpcheck is installed, so
it touches Hypothesis's global settings only when the run asks for ntpcheck
on the command line: ``--ntpcheck`` or any ``--ntp-*`` option.  Then, at
configuration time (before any test module is imported), it registers the
profiles ``dev``, ``ci`` and ``thorough`` (:mod:`.hypothesis_profiles`;
``HYPOTHESIS_PROFILE`` chooses, else ``ci`` when ``CI`` is set, else
``dev``; ``NTPCHECK_REDIS_URL`` adds the shared Redis database) and loads
the chosen one, unless the run chose a profile itself
(``--hypothesis-profile``, or a conftest that loaded one).  That is what
makes ``pytest --ntpcheck`` and ``hypothesis fuzz -- --ntpcheck`` work from
any directory.  A test file holding claims does not load a profile: it is
found in the middle of collection, and a profile loaded then would change
the settings of the user's other Hypothesis tests depending on the order
they were collected in (and HypoFuzz would reject those whose database then
differs from the default's); its claim tests run under the suite's own
settings.  ntpcheck's own ``tests/conftest.py`` calls
:func:`use_profiles_unless_chosen` for its suite.

HypoFuzz
--------
``hypothesis fuzz -- --ntpcheck`` fuzzes every claim test except the
registered findings: a finding's test is a strict xfail (its claim is known
to be false, and its counterexample pinned), and HypoFuzz does not fuzz xfail
tests.  A claim test keeps the database of the settings in force (HypoFuzz
fuzzes only tests whose database is the default one) and gets its own key
in it (:func:`~.pytest_claims.key_by_nodeid`), the key HypoFuzz uses too, so
what HypoFuzz finds is replayed first by ``pytest --ntpcheck`` with the same
``--ntp-profile``.

Option traps
------------
``--ntp-*`` options with neither ``--ntpcheck`` nor a test file with claims
collected, an empty ``--ntp-claims``, or a claim name that no collected claim
has, are one-line usage errors (:mod:`.pytest_options`).

``--ntp-dataset FILE`` checks every claim on that one dataset instead: a
claim whose assumptions the dataset breaks is skipped as
``outside-hypotheses``, its reason saying whether the conclusion held there;
a falsified claim fails (findings are not expected to fail on a given
dataset, so they are not xfailed).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .pytest_claims import ClaimFalsified, ClaimRun, key_by_nodeid, sabotage_test
from .pytest_options import ClaimOptions, asked_for, check_selection, pytest_addoption

__all__ = ["ClaimCollector", "ClaimFunction", "pytest_addoption", "use_profiles_unless_chosen"]

#: How each per-claim verdict is shown by pytest when the test body itself passed.
_SKIPPED_VERDICTS = ("vacuous", "outside-hypotheses", "inconclusive")


# --- options and profiles ---------------------------------------------------------------

_OPTIONS = pytest.StashKey["ClaimOptions"]()
_COLLECTED = pytest.StashKey[list]()  # the claims of every ClaimCollector made in this run


@pytest.hookimpl(tryfirst=True)  # before Hypothesis's own plugin loads --hypothesis-profile NAME
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ntpcheck: a claim of a paper checked by ntpcheck (added by the ntpcheck plugin)")
    config.stash[_COLLECTED] = []
    if asked_for(config):
        config.stash[_OPTIONS] = ClaimOptions(config)  # a bad option fails here, before any collection
        use_profiles_unless_chosen(config)
    config.pluginmanager.register(_Verdicts(), "ntpcheck-verdicts")
    if config.getoption("ntpcheck"):
        from .pytest_interrupt import CtrlC

        config.pluginmanager.register(CtrlC(config), "ntpcheck-ctrl-c")


def use_profiles_unless_chosen(config: pytest.Config | None = None) -> None:
    """Register ntpcheck's Hypothesis profiles and load one
    (:mod:`.hypothesis_profiles`), unless the run chose a profile already:
    ``--hypothesis-profile NAME``, or a conftest that loaded one (the current
    profile is neither ``default`` nor Hypothesis's automatic ``ci``).  A bad
    ``HYPOTHESIS_PROFILE`` or ``NTPCHECK_REDIS_URL`` is a one-line usage error.
    ``tests/conftest.py`` of ntpcheck's repository calls it for its own suite."""
    from hypothesis import settings

    from ntpcheck.common.errors import NTPCheckError

    from .hypothesis_profiles import register_profiles, use_profiles

    try:
        if config is not None and config.getoption("--hypothesis-profile", None):
            register_profiles()  # so that --hypothesis-profile thorough finds it
        elif settings.get_current_profile_name() in ("default", "ci"):
            use_profiles()
    except NTPCheckError as e:
        raise pytest.UsageError(f"ntpcheck: {e}") from None


def _options(config: pytest.Config) -> ClaimOptions:
    if _OPTIONS not in config.stash:
        config.stash[_OPTIONS] = ClaimOptions(config)
    return config.stash[_OPTIONS]


# --- collection -------------------------------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any):
    """A ``test_*`` attribute holding a Claim or a Paper becomes a collector of claim tests."""
    if not type(obj).__module__.startswith("ntpcheck.properties"):
        return None
    from ntpcheck.properties.framework import Claim, Paper

    if not isinstance(obj, (Claim, Paper)) or not collector.funcnamefilter(name):
        return None
    paper = obj if isinstance(obj, Paper) else None
    claims = obj.claims if paper else (obj,)
    return ClaimCollector.from_parent(collector, name=name, claims=tuple(claims), paper=paper)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """``--ntpcheck``: the registered papers' claims, before ``-k``/``-m`` select among items;
    then the options' traps (:func:`~.pytest_options.check_selection`)."""
    if config.getoption("ntpcheck"):
        _add_papers(session, config, items)
    check_selection(config, config.stash.get(_OPTIONS, None), config.stash.get(_COLLECTED, []))


def _add_papers(session: pytest.Session, config: pytest.Config, items: list) -> None:
    opts = _options(config)
    seen = {it.parent.paper.name for it in items if isinstance(it.parent, ClaimCollector) and it.parent.paper}
    new = []
    for p in opts.papers:
        if p.name in seen:  # already collected from a test file
            continue
        col = ClaimCollector.from_parent(session, name=p.name, claims=p.claims, paper=p, nodeid=f"ntpcheck/{p.name}")
        new.extend(session.genitems(col))
    items[:0] = new


class ClaimCollector(pytest.Collector):
    """The tests of some claims: ``claim[<slug>]`` and ``sabotage[<slug>]`` for each."""

    def __init__(self, *, claims: tuple, paper=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claims = claims
        self.paper = paper
        self.config.stash.setdefault(_COLLECTED, []).extend(claims)

    def collect(self):
        opts = _options(self.config)
        for claim in opts.selected(self.claims):
            run = ClaimRun(claim, opts, self.paper)
            if opts.instance is not None:
                yield _item(self, f"claim[{claim.key}]", run.dataset_test(opts.instance), run, claim)
                continue
            item = _item(self, f"claim[{claim.key}]", run.given_test(), run, claim)
            key_by_nodeid(item.obj, item.nodeid)
            if claim.finding is not None:  # (so HypoFuzz does not fuzz it: it skips xfail tests)
                item.add_marker(pytest.mark.xfail(strict=True, reason=_finding(claim)))
            yield item
            if claim.sabotage is not None:
                yield _item(self, f"sabotage[{claim.key}]", sabotage_test(claim), None, claim)


def _finding(claim) -> str:
    summary = claim.finding.summary
    return summary if summary.lower().startswith("finding") else f"finding: {summary}"


class ClaimFunction(pytest.Function):
    """A claim's test: reported by its claim's name, a falsification by its message alone
    (the counterexample and how to reproduce it), not by the plugin's source."""

    ntp_run: "ClaimRun | None" = None
    ntp_claim: Any = None

    def reportinfo(self):
        return self.path, None, f"{self.name}: {self.ntp_claim.name}"

    def repr_failure(self, excinfo, style=None):
        if excinfo.errisinstance(ClaimFalsified):
            notes = [n for n in getattr(excinfo.value, "__notes__", ()) if n.strip()]
            return "\n".join([str(excinfo.value), *notes])
        return super().repr_failure(excinfo) if style is None else super().repr_failure(excinfo, style=style)


def _item(parent: ClaimCollector, name: str, fn, run, claim) -> ClaimFunction:
    item = ClaimFunction.from_parent(parent, name=name, callobj=fn)  # nodeid ends in the name, slug included
    item.add_marker(pytest.mark.ntpcheck)
    item.ntp_run, item.ntp_claim = run, claim
    return item


# --- reporting --------------------------------------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    run = getattr(item, "ntp_run", None)
    if run is not None:
        run.start()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Turn a claim's verdict into the report: properties always; a passed test whose
    verdict is not ``holds`` becomes a skip naming the verdict and the counts."""
    run = getattr(item, "ntp_run", None)
    if run is not None:
        # Hypothesis offers a patch adding @example to a failing test; here that test is the
        # plugin's shared body, so the patch would be wrong (the counterexample is in the report).
        item._hypothesis_failing_examples = None
    report = yield
    if run is None or call.when != "call":
        return report
    run.finish(call.excinfo)
    r = run.result
    if r is None:
        return report
    props = _properties(r)
    item.user_properties.extend(props)
    report.user_properties.extend(props)
    if report.passed and not hasattr(report, "wasxfail") and r.verdict.value in _SKIPPED_VERDICTS:
        report.outcome = "skipped"
        report.longrepr = (item.nodeid, None, f"Skipped: {_skip_reason(r)}")
    return report


def _skip_reason(r) -> str:
    from ntpcheck.app.rendering.render import counts_text, exercised_text

    parts = f"; parts {exercised_text(r.exercised)}" if r.exercised else ""
    return f"{r.verdict}: {r.claim.name} ({counts_text(r.counts)}; {r.min_tested} distinct needed{parts}): {r.detail}"


def _properties(r) -> list[tuple[str, str]]:
    from ntpcheck.app.rendering.render import json_default

    props = [("ntpcheck_claim", r.claim.name), ("ntpcheck_verdict", r.verdict.value),
             ("ntpcheck_counts", json.dumps(dict(r.counts))),
             ("ntpcheck_measured", json.dumps(dict(r.measured), default=json_default, allow_nan=True))]
    if r.breaks is not None:
        props += [("ntpcheck_breaks", ",".join(r.breaks)), ("ntpcheck_conclusion_holds", json.dumps(r.conclusion_holds))]
    return props


class _Verdicts:
    """The terminal section: one row per claim test, read from the reports (so that it also
    works under pytest-xdist, where the tests run in other processes)."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if report.when == "call" and "ntpcheck_verdict" in props:
            shown = "xfailed" if hasattr(report, "wasxfail") else report.outcome
            self.rows.append((props["ntpcheck_claim"], props["ntpcheck_verdict"], json.loads(props["ntpcheck_counts"]),
                              shown, props.get("ntpcheck_conclusion_holds")))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.rows:
            return
        from ntpcheck.app.rendering.render import counts_text, table

        dataset = any(r[4] is not None for r in self.rows)
        there = {"true": "holds", "false": "fails"}
        body = [[name, verdict, counts_text(counts), shown] + ([there.get(c, "-")] if dataset else [])
                for name, verdict, counts, shown, c in self.rows]
        header = ["claim", "verdict", "tested/drawn", "pytest"] + (["conclusion on the data"] if dataset else [])
        terminalreporter.write_sep("=", "ntpcheck verdicts")
        terminalreporter.write_line(table(body, header))
