"""The tests the pytest plugin makes of one claim (:mod:`.pytest_plugin` collects them).

* :meth:`ClaimRun.given_test`: a Hypothesis ``@given`` test whose body is one
  step of the claim's :class:`~ntpcheck.properties.framework.Search`, with
  the pinned examples as ``@example`` and the ambient example database under
  the claim's own key;
* :meth:`ClaimRun.dataset_test`: the claim on one given instance
  (:func:`~ntpcheck.properties.framework.run_on_instance`);
* :func:`sabotage_test`: the checker rejects its sabotage.

Nothing here is imported until pytest collects a claim.
"""

from __future__ import annotations

__all__ = ["ClaimFalsified", "ClaimRun", "sabotage_test"]


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
        from hypothesis import example, given, settings

        from ntpcheck.properties.framework import PROFILES, Search, Verdict, search_settings

        claim, profile = self.claim, self.opts.profile

        def claim_test(inst) -> None:
            # Under pytest (start() was called) the profile's budget applies; called any other
            # way (HypoFuzz runs the body for as long as it fuzzes) every instance is checked.
            o = (self.search or Search(claim, profile)).step(inst)
            if o is not None and o.verdict in (Verdict.FALSIFIED, Verdict.ERROR):
                raise ClaimFalsified(self._failure(inst, o))

        ambient = settings.default
        db = ambient.database
        cfg = search_settings(PROFILES[profile].budget, parent=ambient,
                              database=None if db is None else _claim_database(db, self._db_prefix()))
        test = settings(cfg)(given(claim.data(profile))(claim_test))
        pins = (*claim.examples, *((claim.finding.counterexample,) if claim.finding else ())) if self.opts.pinned else ()
        for make in reversed(dict.fromkeys(pins)):  # a finding's counterexample is often among the examples
            test = example(make())(test)
        return test

    def _db_prefix(self) -> bytes:
        paper = self.paper.name if self.paper else "user"
        return f"ntpcheck:{paper}:{self.claim.key}:{self.opts.profile}:".encode()

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
                raise ClaimFalsified(f"{self.claim.name} is {r.verdict} on {inst.dataset.name or 'the dataset'}: {r.detail}{finding}{cex}")

        return claim_on_dataset


def _violated(inst) -> list[str]:
    from ntpcheck.assumptions import check_all, failed

    return failed(check_all(inst.dataset, inst.E))


def _claim_database(db, prefix: bytes):
    """``db`` with every key prefixed by the claim's own: one function body serves every
    claim, so Hypothesis's own key (a digest of the body) is the same for all of them."""
    from hypothesis.database import ExampleDatabase

    class ClaimDatabase(ExampleDatabase):
        def __init__(self) -> None:
            super().__init__()

        def __repr__(self) -> str:
            return f"ClaimDatabase({db!r}, {prefix!r})"

        def save(self, key: bytes, value: bytes) -> None:
            db.save(prefix + key, value)

        def fetch(self, key: bytes):
            return db.fetch(prefix + key)

        def delete(self, key: bytes, value: bytes) -> None:
            db.delete(prefix + key, value)

        def move(self, src: bytes, dest: bytes, value: bytes) -> None:
            db.move(prefix + src, prefix + dest, value)

    return ClaimDatabase()
