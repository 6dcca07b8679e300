"""The pytest plugin's options: declared, validated once, and their traps caught.

:mod:`.pytest_plugin` imports the hooks defined here.  Every bad value is a
:class:`pytest.UsageError` of one line starting ``ntpcheck:`` (pytest exits
with status 4, no traceback), raised at configuration time when the value
alone shows it, or right after collection when only the collected claims can
tell (an unknown claim name; an ``--ntp-*`` option with no claim to apply
to), before any test runs.  Claim names are matched by
:func:`ntpcheck.properties.framework.select_claims`, the matcher of
``ntpcheck verify --claims``, so both accept the same names.
"""

from __future__ import annotations

import pytest

__all__ = ["PROFILE_NAMES", "ClaimOptions", "asked_for", "check_selection", "pytest_addoption"]

PROFILE_NAMES = ("quick", "default", "thorough")
#: The options that only mean something for claims, by pytest's ``dest`` name.
NTP_OPTIONS = {"ntp_paper": "--ntp-paper", "ntp_claims": "--ntp-claims", "ntp_profile": "--ntp-profile",
               "ntp_dataset": "--ntp-dataset", "ntp_no_pinned": "--ntp-no-pinned"}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ntpcheck", "ntpcheck: the claims of papers as tests")
    group.addoption("--ntpcheck", action="store_true", default=False,
                    help="collect the registered papers' claims as tests (from any directory)")
    group.addoption("--ntp-paper", default=None, metavar="NAME", help="only this paper's claims (default: every registered paper)")
    group.addoption("--ntp-claims", default=None, metavar="IDS", help='comma-separated claim ids or names, e.g. "Cor. 1,Lemma 7"')
    group.addoption("--ntp-profile", default=None, choices=PROFILE_NAMES,
                    help="search budget per claim: quick (default), default or thorough (as `ntpcheck verify --profile`)")
    group.addoption("--ntp-dataset", default=None, metavar="FILE",
                    help="check every claim on this one dataset (text format; of --ntp-paper's paper, "
                         "huang2024 without it) instead of searching")
    group.addoption("--ntp-no-pinned", action="store_true", default=False,
                    help="skip the pinned regression examples: only what the search finds on its own")


def given_options(config: pytest.Config) -> list[str]:
    """The ``--ntp-*`` options given on the command line (or in ``addopts``)."""
    return [flag for dest, flag in NTP_OPTIONS.items() if config.getoption(dest) not in (None, False)]


def asked_for(config: pytest.Config) -> bool:
    """Whether the run asks for ntpcheck by its options: ``--ntpcheck`` or any ``--ntp-*``."""
    return bool(config.getoption("ntpcheck") or given_options(config))


class ClaimOptions:
    """The plugin's options, validated once (a bad value is a usage error, one line)."""

    def __init__(self, config: pytest.Config) -> None:
        from ntpcheck.common.errors import NTPCheckError
        from ntpcheck.properties import DEFAULT_PAPER, PAPERS, paper
        from ntpcheck.properties.framework.selection import split_names

        self.enabled = bool(config.getoption("ntpcheck"))
        self.profile = config.getoption("ntp_profile") or "quick"
        self.pinned = not config.getoption("ntp_no_pinned")
        self.claims = config.getoption("ntp_claims")
        if self.claims is not None and not any(split_names(self.claims)):
            raise pytest.UsageError(f"ntpcheck: --ntp-claims {self.claims!r} names no claim "
                                    "(give comma-separated ids or names, e.g. \"Cor. 1,Lemma 7\")")
        name = config.getoption("ntp_paper")
        try:
            dataset = config.getoption("ntp_dataset")
            # A dataset is in one paper's format: --ntp-paper's, else the default paper's.
            self.papers = [paper(name)] if name else [paper(DEFAULT_PAPER)] if dataset else [paper(n) for n in PAPERS]
            self.instance, self.header = _load_instance(dataset, self.papers[0].load)
        except NTPCheckError as e:
            hint = "" if config.getoption("ntpcheck") else " (add --ntpcheck for the registered papers' claims)"
            raise pytest.UsageError(f"ntpcheck: {' '.join(str(e).split())}{hint}") from None

    def selected(self, claims) -> list:
        """``claims`` (one collector's) that ``--ntp-claims`` names, in their order; a name
        that none of them has is left for :func:`check_selection`, which sees every claim."""
        from ntpcheck.common.errors import NTPCheckError
        from ntpcheck.properties.framework import select_claims
        from ntpcheck.properties.framework.selection import split_names

        if self.claims is None:
            return list(claims)
        wanted = []
        for word in filter(None, split_names(self.claims)):
            try:
                wanted.extend(select_claims(claims, word))
            except NTPCheckError:
                continue
        return [c for c in claims if c in wanted]


def _load_instance(path: str | None, load=None):
    """The instance of ``--ntp-dataset`` as its header gives it, and the header
    (:func:`~ntpcheck.properties.framework.checks_as_given`); ``load``: the paper's
    own format (:attr:`~ntpcheck.properties.framework.Paper.load`), else the first paper's."""
    if path is None:
        return None, None
    if load is not None:
        return load(path)
    from ntpcheck.transformer.instance import Instance
    from ntpcheck.transformer.textformat import load_with_header

    ds, header = load_with_header(path)
    return Instance.from_header(ds, header), header


def check_selection(config: pytest.Config, opts: ClaimOptions | None, collected: list) -> None:
    """After collection: an ``--ntp-*`` option with no claim to act on, or an ``--ntp-claims``
    name that no collected claim has (``collected``: the claims of every collector), is a
    usage error."""
    given = given_options(config)
    if not given:
        return  # (and nothing imported: every pytest run of every project comes here)
    from ntpcheck.common.errors import NTPCheckError
    from ntpcheck.properties.framework import select_claims

    if not config.getoption("ntpcheck") and not collected:
        raise pytest.UsageError(f"ntpcheck: {given[0]} applies to claims, and no test file with claims was "
                                f"collected: add --ntpcheck to check the registered papers' claims")
    if opts is not None and opts.claims is not None:
        try:
            select_claims(list({id(c): c for c in collected}.values()), opts.claims)
        except NTPCheckError as e:
            hint = "" if config.getoption("ntpcheck") else " (add --ntpcheck for the registered papers' claims)"
            raise pytest.UsageError(f"ntpcheck: {' '.join(str(e).split())}{hint}") from None
