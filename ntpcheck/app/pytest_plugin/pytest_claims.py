"""The tests the pytest plugin makes of one claim (:mod:`.pytest_plugin` collects them).

* :meth:`ClaimRun.given_test`: a Hypothesis ``@given`` test whose body is one
  step of the claim's :class:`~ntpcheck.properties.framework.Search`, with
  the pinned examples as ``@example``, under the Hypothesis settings in force
  (their example database included: HypoFuzz fuzzes only tests whose
  database is the default one) and under its own database key
  (:func:`key_by_nodeid`);
* :meth:`ClaimRun.dataset_test`: the claim on one given instance
  (:func:`~ntpcheck.properties.framework.run_on_instance`);
* :func:`sabotage_test`: the checker rejects its sabotage.

Nothing here is imported until pytest collects a claim.
"""

from __future__ import annotations

__all__ = ["ClaimFalsified", "ClaimRun", "key_by_nodeid", "sabotage_test"]


class ClaimFalsified(AssertionError):
    """A claim's checker returned ``falsified`` (or ``error``) on an instance."""


def sabotage_test(claim):
    def sabotage() -> None:
        """The checker rejects a bound 1% stronger than the tightest value measured, or a
        deliberately wrong formula or input: it could have failed."""
        from ntpcheck.properties.framework import Verdict, run_sabotage

        o = run_sabotage(claim)
        assert o.verdict is Verdict.FALSIFIED, f"{claim.name} accepted its sabotage: {o.verdict}: {o.detail}"

    return sabotage


class ClaimRun:
    """One claim's test: the Hypothesis test body, its search state, and its result."""

    def __init__(self, claim, opts, paper) -> None:
        self.claim, self.opts, self.paper = claim, opts, paper
        self.search = None
        self.result = None  # a ClaimResult, once decided

    # - search mode: a @given test over the claim's strategy -
    def given_test(self):
        from hypothesis import HealthCheck, example, given, settings

        from ntpcheck.properties.framework import PROFILES, Search, Verdict, search_settings

        claim, profile = self.claim, self.opts.profile

        def claim_test(inst) -> None:
            # Under pytest (start() was called) the profile's budget applies; called any other
            # way (HypoFuzz runs the body for as long as it fuzzes) every instance is checked.
            o = (self.search or Search(claim, profile)).step(inst)
            if o is not None and o.verdict in (Verdict.FALSIFIED, Verdict.ERROR):
                raise ClaimFalsified(self._failure(inst, o))

        claim_test.__signature__ = _profile_signature(profile)  # the profile in the database key
        cfg = search_settings(PROFILES[profile].budget, parent=settings.default)
        # HypoFuzz refuses a test that suppresses nested_given (and no claim test nests @given)
        cfg = settings(cfg, suppress_health_check=[h for h in cfg.suppress_health_check if h is not HealthCheck.nested_given])
        test = settings(cfg)(given(claim.data(profile))(claim_test))
        pins = (*claim.examples, *((claim.finding.counterexample,) if claim.finding else ())) if self.opts.pinned else ()
        for make in reversed(dict.fromkeys(pins)):  # a finding's counterexample is often among the examples
            test = example(make())(test)
        return test

    def _failure(self, inst, o) -> str:
        from ntpcheck.properties.framework.runner import counterexample_text

        text = counterexample_text(self.claim, inst, o, replay=self._reproduce("FILE"))
        return "\n".join([f"{self.claim.name} is {o.verdict}: {o.detail}", "", text.rstrip(), ""])

    def _reproduce(self, path: str) -> str:
        if self.paper is not None:
            return f'ntpcheck verify --paper {self.paper.name} --dataset {path} --claims "{self.claim.name}"'
        return f"pytest --ntp-dataset {path} -k '{self.claim.key}'  (in the directory of the test file)"

    def start(self) -> None:
        """A pytest run of the test begins: a fresh search with the profile's budget."""
        from ntpcheck.properties.framework import Search

        self.result = None
        self.search = Search(self.claim, self.opts.profile)

    def finish(self, excinfo) -> None:
        """The claim's result after its test ran (``excinfo``: the failure, if any)."""
        from ntpcheck.properties.framework import ClaimResult, Verdict
        from ntpcheck.properties.framework.runner import count

        search, self.search = self.search, None
        if self.result is not None or search is None or not search.outcomes:  # dataset mode, or the body never ran
            return
        if excinfo is None:
            self.result = search.result()
            return
        outcomes = search.first_failure or search.outcomes
        verdict = Verdict.FALSIFIED if any(o.verdict is Verdict.FALSIFIED for o in outcomes) else Verdict.ERROR
        self.result = ClaimResult(self.claim, verdict, count(outcomes), {}, None, str(excinfo.value).splitlines()[0],
                                  None, search.need)

    # - dataset mode: the one instance given -
    def dataset_test(self, inst):
        def claim_on_dataset() -> None:
            from ntpcheck.properties.framework import Verdict, checks_as_given, run_on_instance

            breaks = self.paper.violated(inst) if self.paper else _violated(inst)
            r = self.result = run_on_instance(self.claim, inst, breaks, as_given=checks_as_given(self.claim, self.opts.header))
            if r.verdict in (Verdict.FALSIFIED, Verdict.ERROR):
                finding = f"\n(a registered finding: {self.claim.finding.summary})" if self.claim.finding else ""
                cex = f"\n\n{r.counterexample.rstrip()}" if r.counterexample else ""
                name = getattr(getattr(inst, "dataset", None), "name", None)  # (another paper's instance may have none)
                raise ClaimFalsified(f"{self.claim.name} is {r.verdict} on {name or 'the dataset'}: {r.detail}{finding}{cex}")

        return claim_on_dataset


def _violated(inst) -> list[str]:
    from ntpcheck.transformer.assumptions import check_all, failed

    return failed(check_all(inst.dataset, inst.E))


def _profile_signature(profile: str):
    """The signature of a claim's test body, naming the search profile (see :func:`key_by_nodeid`)."""
    from inspect import Parameter, Signature

    return Signature([Parameter("inst", Parameter.POSITIONAL_OR_KEYWORD, annotation=f"ntpcheck profile {profile}")])


def key_by_nodeid(test, nodeid: str) -> None:
    """Give the claim's ``@given`` ``test`` (of pytest item ``nodeid``) its own example-database key.

    Hypothesis keys a test's saved examples by a digest of its body's source,
    its signature and ``_hypothesis_internal_add_digest``.  One body serves every
    claim, so the plugin sets the last to the item's node id, exactly as
    HypoFuzz does when it collects a test: a counterexample HypoFuzz finds is
    the first example ``pytest`` tries, and the reverse.  The profile is in the
    body's signature (:func:`_profile_signature`, which HypoFuzz leaves alone):
    each profile draws from its own strategy, and Hypothesis deletes a saved
    example that does not fail when replayed, so a counterexample found with
    ``--ntp-profile thorough`` must never be replayed by a ``quick`` run.

    Examples
    --------
    >>> from hypothesis import given, strategies as st
    >>> @given(st.integers())
    ... def t(x): pass
    >>> key_by_nodeid(t, "ntpcheck/huang2024::claim[ex1]")
    >>> t.hypothesis.inner_test._hypothesis_internal_add_digest
    b'ntpcheck/huang2024::claim[ex1]'
    """
    test.hypothesis.inner_test._hypothesis_internal_add_digest = nodeid.encode()
