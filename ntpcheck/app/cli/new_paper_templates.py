"""The files of a new paper package (``ntpcheck new-paper NAME DIR``), as text.

Each template is the file's text with ``__NAME__`` (the paper's name on the command line) and
``__PKG__`` (its import name, ``NAME_paper``) in place of the names; :func:`.new_paper.files`
fills them in.  The package they make is written only against :mod:`ntpcheck.api` (and numpy,
Hypothesis): a model, a strategy, an instance type with a text format that replays, one claim with
one part, and a test.  ``tests/app/test_new_paper.py`` installs it and runs its tests.
"""

from __future__ import annotations

__all__ = ["TEMPLATES"]

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "__NAME__-paper"
version = "0.1.0"
description = "ntpcheck's checks of the claims of __NAME__ (a paper plugin)"
requires-python = ">=3.10"
dependencies = ["ntpcheck", "numpy", "hypothesis"]

[project.optional-dependencies]
test = ["pytest"]

# The registration that makes `ntpcheck papers`, `ntpcheck verify --paper __NAME__`, reports and
# `pytest --ntpcheck` find the paper: name = "module:attribute" of its ntpcheck.api.Paper.
[project.entry-points."ntpcheck.papers"]
__NAME__ = "__PKG__.claims:PAPER"

[tool.setuptools]
packages = ["__PKG__"]

[tool.pytest.ini_options]
testpaths = ["tests", "__PKG__"]
addopts = "--doctest-modules"
pythonpath = ["."]   # the package's source is imported from here, installed or not
'''

README = '''\
# __NAME__: an ntpcheck paper package

Written by `ntpcheck new-paper __NAME__ DIR`: replace the model, the strategy and the claim by the
paper's own.

    pip install .            # registers the paper (entry-point group ntpcheck.papers)
    pytest                   # its tests
    ntpcheck papers          # lists __NAME__
    ntpcheck verify --paper __NAME__

* `__PKG__/model.py`: the model (numpy);
* `__PKG__/instance.py`: what a claim is checked on, and its text format (a counterexample
  replays with `ntpcheck verify --paper __NAME__ --dataset FILE`);
* `__PKG__/strategies.py`: instances drawn by construction (Hypothesis);
* `__PKG__/claims.py`: the claims (`ntpcheck.api.Claim`, each part of a statement a
  `ntpcheck.api.Part` whose mutant is made with `ntpcheck.api.mutable`) and `PAPER`.
'''

INIT = '''\
"""ntpcheck's checks of the claims of __NAME__: a paper plugin, registered in the entry-point
group ``ntpcheck.papers`` as ``__NAME__ = "__PKG__.claims:PAPER"``.

* :mod:`.model`: the model; :mod:`.instance`: an instance and its text format;
* :mod:`.strategies`: instances drawn by construction; :mod:`.claims`: the claims and ``PAPER``.
"""
'''

MODEL = '''\
"""The model: next-token probabilities ``p = softmax(W h)`` of a context ``h`` in R^d, with
``W`` a ``V x d`` matrix (one row per token): ``p_k = exp(z_k) / sum_j exp(z_j)``, ``z = W h``.

Examples
--------
>>> import numpy as np
>>> probabilities(np.zeros((3, 2)), np.ones(2)).round(4).tolist()
[0.3333, 0.3333, 0.3333]
"""

from __future__ import annotations

import numpy as np

__all__ = ["logits", "probabilities"]


def logits(W: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``z = W h``."""
    return np.asarray(W, dtype=float) @ np.asarray(h, dtype=float)


def probabilities(W: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``softmax(W h)``, computed with the largest logit subtracted (no overflow)."""
    z = logits(W, h)
    e = np.exp(z - z.max())
    return e / e.sum()
'''

INSTANCE = '''\
"""An instance of the model (``W``, ``h``) and its text format, which replays.

The instance implements ntpcheck's instance protocol (:class:`ntpcheck.api.PaperInstance`):
``key``, ``identity()``, ``describe()``, ``evidence()`` and ``counterexample_text()``.  The text
format, one ``name = values`` line each (rows of ``W`` separated by ``;``), numbers written so
that they read back exactly::

    # claim: Max-prob
    W = 0.5 -1.0; 2.0 0.0; 0.0 0.0
    h = 1.0 2.0

Examples
--------
>>> import numpy as np
>>> inst = Instance(np.array([[0.5, -1.0], [2.0, 0.0], [0.0, 0.0]]), np.array([1.0, 2.0]))
>>> inst.describe()
{'V': 3, 'N': 1, 'd': 2}
>>> back, header = loads(dumps(inst, claim="Max-prob"))
>>> back.key == inst.key, header.claim
(True, 'Max-prob')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Instance", "Header", "dumps", "loads", "load"]


@dataclass(frozen=True, eq=False)
class Instance:
    """``W`` (``V x d``) and the context ``h`` (``d``)."""

    W: np.ndarray
    h: np.ndarray

    def __post_init__(self) -> None:
        W, h = np.array(self.W, dtype=float, ndmin=2), np.array(self.h, dtype=float, ndmin=1)
        if W.ndim != 2 or h.ndim != 1 or W.shape[1] != h.shape[0] or W.shape[0] < 2:
            raise ValueError(f"W must be V x d with V >= 2 and h of length d, got {W.shape} and {h.shape}")
        if not (np.isfinite(W).all() and np.isfinite(h).all()):
            raise ValueError("W and h must be finite")
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "h", h)

    @property
    def key(self) -> tuple:
        """The computation exactly."""
        return ("__NAME__", self.W.shape, self.W.tobytes(), self.h.tobytes())

    def identity(self) -> tuple:
        """What counts once: here the computation itself (no symmetry is used)."""
        return self.key

    def describe(self) -> dict[str, Any]:
        """Sizes for captions: ``V`` tokens, ``N`` samples (one context), ``d``."""
        return {"V": self.W.shape[0], "N": 1, "d": self.W.shape[1]}

    def evidence(self) -> "Instance":
        """What the checkers receive: the instance itself (a paper with costly evidence computes it
        here, lazily, e.g. with ``functools.cached_property``)."""
        return self

    def counterexample_text(self, claim: str, detail: str, replay: str) -> str:
        return dumps(self, claim=claim, comment=f"counterexample: {detail}") + f"# replay: save this text as FILE, then run: {replay}\\n"


@dataclass(frozen=True)
class Header:
    """What a file says besides the instance: the claim it names, and parameters (none here)."""

    claim: str | None = None
    params: dict | None = None


def dumps(inst: Instance, *, claim: str | None = None, comment: str | None = None) -> str:
    """The text of ``inst`` (module docstring), with a ``# claim:`` line and a comment first."""
    lines = [f"# claim: {claim}"] if claim else []
    lines += [f"# {' '.join(comment.split())}"] if comment else []
    lines.append("W = " + "; ".join(" ".join(repr(float(v)) for v in row) for row in inst.W))
    lines.append("h = " + " ".join(repr(float(v)) for v in inst.h))
    return "\\n".join(lines) + "\\n"


def loads(text: str) -> tuple[Instance, Header]:
    """An instance and its header from the text written by :func:`dumps`."""
    claim, values = None, {}
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# claim:"):
            claim = line.partition(":")[2].strip() or None
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, eq, rest = line.partition("=")
        if not eq or name.strip() not in ("W", "h"):
            raise ValueError(f"line {n}: expected 'W = ...' or 'h = ...', got {line!r}")
        values[name.strip()] = [[float(v) for v in row.split()] for row in rest.split(";")]
    if set(values) != {"W", "h"}:
        raise ValueError("the text needs both a 'W = ...' and an 'h = ...' line")
    return Instance(np.array(values["W"]), np.array(values["h"][0])), Header(claim)


def load(path: str) -> tuple[Instance, Header]:
    """:func:`loads` of a file (``ntpcheck verify --paper __NAME__ --dataset FILE``)."""
    with open(path, encoding="utf-8") as f:
        return loads(f.read())
'''

STRATEGIES = '''\
"""Instances drawn by construction (no filtering), sized by keyword-only bounds.

Examples
--------
>>> from hypothesis import find
>>> find(instances(max_vocab=3, max_dim=2), lambda inst: inst.W.shape[0] == 3).W.shape[0]
3
"""

from __future__ import annotations

import numpy as np
from ntpcheck.api import hypothesis_strategies

from .instance import Instance

st = hypothesis_strategies()

__all__ = ["instances", "SIZES"]

#: Bounds per profile of ``ntpcheck verify --profile``.
SIZES = {"quick": dict(max_vocab=3, max_dim=2), "default": dict(max_vocab=5, max_dim=3), "thorough": dict(max_vocab=8, max_dim=4)}


@st.composite
def instances(draw, *, max_vocab: int = 4, max_dim: int = 3, scales: tuple[float, ...] = (0.0, 0.1, 1.0, 3.0)) -> Instance:
    """``V`` in ``[2, max_vocab]`` tokens, ``d`` in ``[1, max_dim]``, ``W`` with N(0, 1) entries times a
    drawn scale (0 first: uniform logits, where the claim is tight), ``h`` with N(0, 1) entries."""
    V = draw(st.integers(2, max_vocab))
    d = draw(st.integers(1, max_dim))
    scale = draw(st.sampled_from(scales))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return Instance(scale * rng.normal(size=(V, d)), rng.normal(size=d))
'''

CLAIMS = '''\
"""The claims of __NAME__, one :class:`ntpcheck.api.Claim` each, and ``PAPER``.

The one claim here is the model's simplest fact: the most likely next token has probability at
least ``1/V``, ``max_k p_k >= 1/V`` (the mean of ``V`` numbers summing to 1 is ``1/V``).  Its
constant ``1/V`` is a part (:class:`ntpcheck.api.Part`): the runner checks every instance again
with the constant 1% stronger (``1.01/V``, made by :func:`ntpcheck.api.mutable` inside
``ntpcheck.api.mutating("1/V")``) and reports the part tight when some instance falsifies that
(uniform logits do).

Examples
--------
>>> import numpy as np
>>> from ntpcheck import api
>>> ev = Instance(np.zeros((3, 2)), np.ones(2)).evidence()
>>> check_max_prob(ev).verdict.value
'holds'
>>> with api.mutating("1/V"):
...     check_max_prob(ev).verdict.value
'falsified'
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from ntpcheck.api import Claim, Outcome, Paper, Part, Structural, inequality, mutable

from .instance import Instance, load
from .model import probabilities
from .strategies import SIZES, instances

__all__ = ["MAX_PROB", "CLAIMS", "PAPER", "check_max_prob"]


def check_max_prob(ev: Instance, *, bound: Callable[[int], float] = lambda V: 1.0 / V) -> Outcome:
    """``max_k softmax(W h)_k >= 1/V`` (``bound``: the sabotage's wrong constant)."""
    p = probabilities(ev.W, ev.h)
    return inequality(float(p.max()), mutable("1/V", bound(len(p)), "up"), sense=">=", what="max_k p_k >= 1/V")


def data(profile: str):
    """The instances a run draws, sized per profile."""
    return instances(**SIZES[profile])


def same(inst: Instance) -> Instance:
    """The claim's setup: the instance as drawn (a paper's setup would fix training parameters)."""
    return inst


MAX_PROB = Claim(
    "Max-prob", "(model)", "max_k softmax(W h)_k >= 1/V", (), data, check_max_prob, setup=same,
    parts=(Part("1/V", "constant", "the constant 1/V"),),
    sabotage=Structural(lambda: check_max_prob(Instance(np.zeros((3, 1)), np.ones(1)), bound=lambda V: 1.0 / (V - 1)),
                        "the constant 1/(V - 1) on uniform logits"),
    notes="a placeholder claim written by `ntpcheck new-paper`: replace it by the paper's own")

CLAIMS = (MAX_PROB,)


def breaking(condition: str, profile: str, reading=None):
    """Instances breaking one of the paper's conditions (the necessity matrix); it has none."""
    raise ValueError(f"paper __NAME__ has no condition {condition!r}")


PAPER = Paper(name="__NAME__", title="__NAME__ (a paper package written by ntpcheck new-paper)", claims=CLAIMS,
              conditions=(), breaking=breaking, violated=lambda inst: [], load=load)
'''

TEST = '''\
"""The paper's claims run as ntpcheck runs them (``ntpcheck.api.run_claim``)."""

import numpy as np
from ntpcheck import api

from __PKG__.claims import MAX_PROB, PAPER
from __PKG__.instance import Instance, dumps, loads


def test_the_claim_holds_and_its_part_is_tight():
    r = api.run_claim(MAX_PROB, "quick")
    assert r.verdict is api.Verdict.HOLDS, r.detail
    part = r.exercised["parts"]["1/V"]
    # tight: some drawn instance falsified the 1%-stronger mutant (else the text says how loose)
    assert part["status"] == "tight", part["text"]


def test_the_mutant_is_killed_where_the_claim_is_tight():
    ev = Instance(np.zeros((4, 2)), np.ones(2)).evidence()
    assert MAX_PROB.check(ev).verdict is api.Verdict.HOLDS
    with api.mutating("1/V"):
        assert MAX_PROB.check(ev).verdict is api.Verdict.FALSIFIED


def test_the_sabotage_is_caught():
    assert MAX_PROB.sabotage.run().verdict is api.Verdict.FALSIFIED


def test_the_text_format_replays():
    inst = Instance(np.array([[0.1, -2.5], [1e-300, 3.0]]), np.array([1 / 3, -7.0]))
    back, header = loads(inst.counterexample_text("Max-prob", "a detail", "ntpcheck verify ..."))
    assert back.key == inst.key and header.claim == "Max-prob"
    assert dumps(back) == dumps(inst)


def test_the_paper_lists_the_claim():
    assert PAPER.name == "__NAME__" and PAPER.claim("Max-prob") is MAX_PROB
'''

#: Path (with ``__PKG__`` for the package, ``__NAME__`` for the paper) -> template.
TEMPLATES: dict[str, str] = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "__PKG__/__init__.py": INIT,
    "__PKG__/model.py": MODEL,
    "__PKG__/instance.py": INSTANCE,
    "__PKG__/strategies.py": STRATEGIES,
    "__PKG__/claims.py": CLAIMS,
    "tests/test___NAME__.py": TEST,
}
