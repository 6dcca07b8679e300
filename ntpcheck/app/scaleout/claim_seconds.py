"""Each claim's seconds in this user's last run, so that the next run on workers starts the longest first.

A run on workers ends when its last task does.  Tasks taken in plan order leave the longest claims
wherever the plan put them, often last, and one worker then finishes alone (2.4 s of a 29 s
``verify`` on two workers, issue 43).  Started longest first, the tasks left at the end are short
(the longest-processing-time-first rule of list scheduling).  The estimates are the
seconds each claim took in the last run of the same paper and profile on this machine, else those
the paper ships (below); with neither, a run keeps plan order.  They only order and place tasks:
every task runs with the run's seed wherever and whenever it runs, so results never depend on them.

A sharded claim (the thorough profile) keeps each shard's seconds, in shard order: its shards are
tasks of their own, and their seconds differ too much to be guessed as a quarter of the claim's each
(one shard of the first paper's Prop. 2 [Assumptions 1-2 only] took 16.0 s of the claim's 20.6 s on
16 workers, and its worker finished 4.7 s after the next one: issue 43's fifth round).

The file is ``claim-seconds.json`` in ``$NTPCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/ntpcheck``, else
``~/.cache/ntpcheck``: ``{paper: {profile: {claim: seconds, or [seconds of each shard]}}}``.
Reading or writing it never stops a run: an unreadable, damaged or unwritable file means no
estimates (a read-only home, a cluster's service account).

A claim with no seconds of the user's own for a paper and profile (a first run, or one of the claims
a ``--claims`` or interrupted run did not time) is weighed by the estimates the paper's package ships,
if it does: a file ``claim-seconds.json`` beside the module its entry point names (in its package),
as ``{profile: {claim: seconds}}`` (:func:`shipped`), scaled by the median ratio of the user's
seconds to the shipped ones over the claims both have (seconds of two machines are not mixed
unscaled).  Without any, a first thorough run on 16 workers weighs every shard alike: replayed on
the fifth round's 16-worker timeline with each task kept on its chosen worker, its last worker is
done after 58.7 s of tasks, against 45.9 s with the first paper's shipped estimates (a one-worker
run on the 2-core machine, a quarter of a claim's seconds for each shard) and 35.9 s with that run's
own seconds (``tests/benchmarks/manycores/placement_replay.py``; issue 43, sixth round).  Each
shard's own seconds from the one-worker run replayed worse, 47.6 s: in one process a claim reuses
evidence an earlier claim of its strategy computed for the same shard, which on workers may be
computed again, so the built-in papers ship each claim's total.  On two workers a first default run
took the same time either way, within the machine's noise (``tests/benchmarks/manycores/first_run.py``).

Examples
--------
>>> import os, tempfile
>>> from types import SimpleNamespace as R
>>> before = os.environ.get("NTPCHECK_CACHE_DIR")
>>> os.environ["NTPCHECK_CACHE_DIR"] = tempfile.mkdtemp()
>>> load("mypaper", "default")
{}
>>> record("mypaper", "default", [R(claim=R(name="Lemma 1"), seconds=1.25), R(claim=R(name="Ex. 1"), seconds=None)])
>>> load("mypaper", "default")
{'Lemma 1': 1.25}
>>> record("mypaper", "thorough", [R(claim=R(name="Lemma 1"), seconds=3.0)], {"Lemma 1": [2.0, 0.5, 0.25, 0.25]})
>>> load("mypaper", "thorough"), load_shards("mypaper", "thorough")
({'Lemma 1': 3.0}, {'Lemma 1': (2.0, 0.5, 0.25, 0.25)})
>>> len(load("huang2024", "default")) > 0  # a first run: the estimates the paper ships
True
>>> if before is None: del os.environ["NTPCHECK_CACHE_DIR"]
... else: os.environ["NTPCHECK_CACHE_DIR"] = before
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["cache_path", "estimates", "load", "load_shards", "record", "shipped"]

FILE = "claim-seconds.json"


def cache_path() -> Path | None:
    """Where the estimates live (see the module docstring); None where no folder is named (no home)."""
    if os.environ.get("NTPCHECK_CACHE_DIR"):
        return Path(os.environ["NTPCHECK_CACHE_DIR"]) / FILE
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "ntpcheck" / FILE
    home = os.environ.get("HOME", "")
    return Path(home).expanduser() / ".cache" / "ntpcheck" / FILE if home else None


def _read() -> dict:
    path = cache_path()
    try:
        doc = json.loads(path.read_text(encoding="utf-8")) if path is not None else {}
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _profile_entry(doc, profile: str) -> dict:
    """``doc[profile]`` where it is a dict, else {}."""
    entry = doc.get(profile, {}) if isinstance(doc, dict) else {}
    return entry if isinstance(entry, dict) else {}


def _entry(paper: str, profile: str) -> dict:
    """``{claim: seconds or [seconds of each shard]}`` for ``paper`` and ``profile``: the user's file's
    for the claims it has, the paper's :func:`shipped` estimates for the others, scaled by the median
    ratio of the user's seconds to the shipped ones over the claims both have ({} where neither has
    one)."""
    own = _profile_entry(_read().get(paper, {}), profile)
    ship, mine = _totals(_profile_entry(shipped(paper), profile)), _totals(own)
    ratios = sorted(mine[name] / ship[name] for name in mine.keys() & ship.keys() if ship[name] > 0)
    scale = ratios[len(ratios) // 2] if ratios else 1.0
    return {**{name: s * scale for name, s in ship.items()}, **own}


def _totals(entry: dict) -> dict[str, float]:
    """Claim name -> seconds, for the entries of ``entry`` that read as seconds (a sharded claim's summed)."""
    return {name: float(s) if _seconds(s) else float(sum(s)) for name, s in entry.items() if _seconds(s) or _each_shard(s)}


def shipped(paper: str) -> dict:
    """The estimates ``paper``'s package ships: ``{profile: {claim: seconds or [seconds of each
    shard]}}`` read from ``claim-seconds.json`` beside the module its entry point names
    (:func:`ntpcheck.properties.registered`), in that module's package; {} where the paper is
    unknown or ships none, its entry point names a top-level module that is not a package (whose
    folder other distributions share), or the file does not read as JSON.  A plugin declares the
    file as package data, as ``pyproject.toml`` does for the built-in papers.

    Examples
    --------
    >>> sorted(shipped("huang2024"))
    ['default', 'thorough']
    >>> shipped("no-such-paper")
    {}
    """
    import importlib.util

    from ntpcheck.common.errors import NTPCheckError
    from ntpcheck.properties import registered

    try:
        module = registered().get(paper, "").partition(":")[0]
        spec = importlib.util.find_spec(module) if module else None
        if spec is None or not spec.origin or ("." not in module and spec.submodule_search_locations is None):
            return {}
        doc = json.loads((Path(spec.origin).parent / FILE).read_text(encoding="utf-8"))
    except (NTPCheckError, ImportError, OSError, ValueError):  # no such paper or module, no file, not JSON
        return {}
    return doc if isinstance(doc, dict) else {}


def _seconds(x) -> bool:
    """Whether ``x`` reads as seconds: a finite number >= 0 (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def _each_shard(x) -> bool:
    """Whether ``x`` reads as each shard's seconds: a non-empty list of seconds."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(_seconds(s) for s in x)


def estimates(paper: str, profile: str) -> tuple[dict[str, float], dict[str, tuple[float, ...]]]:
    """:func:`load` and :func:`load_shards` of one reading of the file."""
    entry = _entry(paper, profile)
    return _totals(entry), {name: tuple(float(x) for x in s) for name, s in entry.items() if _each_shard(s)}


def load(paper: str, profile: str) -> dict[str, float]:
    """Claim name -> seconds of its last run under ``paper`` and ``profile`` (a sharded claim's shards
    summed; {} where none is known)."""
    return estimates(paper, profile)[0]


def load_shards(paper: str, profile: str) -> dict[str, tuple[float, ...]]:
    """Claim name -> each shard's seconds in its last run under ``paper`` and ``profile``, for the
    claims that ran in shards ({} where none is known)."""
    return estimates(paper, profile)[1]


def record(paper: str, profile: str, results, shards: Mapping[str, Sequence[float]] | None = None) -> None:
    """Keep the seconds of ``results`` (:class:`ClaimResult`, those timed) as the estimates of their
    claims under ``paper`` and ``profile``, each shard's where ``shards`` (claim name -> seconds of
    each shard, in shard order) has them; the others' estimates stay.  Best effort: nothing is raised."""
    timed: dict = {r.claim.name: round(r.seconds, 3) for r in results
                   if getattr(r, "seconds", None) is not None and getattr(r, "claim", None) is not None}
    for name, seconds in (shards or {}).items():
        if name in timed and _each_shard(seconds):
            timed[name] = [round(float(x), 3) for x in seconds]
    path = cache_path()
    if not timed or path is None:
        return
    from ntpcheck.common.atomic import atomic_write_text

    doc = _read()
    by_profile = doc.get(paper) if isinstance(doc.get(paper), dict) else {}
    doc[paper] = by_profile
    by_profile[profile] = {**(by_profile.get(profile) if isinstance(by_profile.get(profile), dict) else {}), **timed}
    try:
        atomic_write_text(str(path), json.dumps(doc, indent=1, sort_keys=True) + "\n")
    except (OSError, ValueError):
        pass
