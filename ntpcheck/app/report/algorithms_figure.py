"""Which direction does training pick?  ``ntpcheck reproduce algorithms``.

For every training algorithm of :data:`ntpcheck.transformer.algorithms.VARIANTS`, on the
Section 7 dataset (``random_realizable_dataset(20, 90, seed)``, canonical
embeddings, ``T = T' = 900``): ``1 - cos`` of the trained ``W_kq^(t)`` to the
Frobenius max-margin solution (Eq. 3, exact solver) and to the nuclear-norm
one (:func:`ntpcheck.transformer.maxmargin.nuclear.solve_eq3_nuclear`, certified by its
optimality conditions), with the fitted exponent of each over
``t in [T'/5, T']`` and its 95% interval; and the probability of the right
next token on Theorem 3's unseen sentences at the end of training.  The
figure draws the two alignment curves per algorithm; the CSV has every curve.

The nuclear-norm minimiser need not be unique, so at ``t = T'`` each variant
also gets the range of ``1 - cos`` over all of them
(:func:`ntpcheck.transformer.maxmargin.nuclear_range.cosine_range`), and the verdict
"closer to" one direction is given only when the whole range says so
(:func:`~ntpcheck.transformer.maxmargin.nuclear_range.closer_to`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntpcheck.transformer import model
from ntpcheck.transformer.algorithms import VARIANTS, Variant, train_variant
from ntpcheck.transformer.curves import one_minus_cos_rows
from ntpcheck.transformer.embeddings import as_embeddings
from ntpcheck.transformer.maxmargin.nuclear_range import CosineRange, NuclearFace, closer_to, cosine_range
from ntpcheck.properties.framework.checks import fit_exponent
from ntpcheck.transformer.structure import analyse
from ntpcheck.transformer.training import TrainingConfig

from .figures import theorem3_test_arrays

__all__ = ["Direction", "directions", "directions_figure", "directions_csv", "directions_table", "reproduce_algorithms"]


@dataclass(frozen=True)
class Direction:
    """One algorithm's alignment to both max-margin directions, and its predictions."""

    algorithm: Variant
    t: np.ndarray
    to_frobenius: np.ndarray
    to_nuclear: np.ndarray
    fit_frobenius: object  # checks.Fit or None
    fit_nuclear: object
    unseen_min_probability: float | None  # over Theorem 3's unseen sentences, at t = T'
    seconds: float
    nuclear_range: CosineRange | None = None  # 1 - cos at t = T' over every nuclear-norm minimiser

    @property
    def closer_to(self) -> str | None:
        """``frobenius``, ``nuclear`` or ``undecided`` at ``t = T'`` (None without a range)."""
        return None if self.nuclear_range is None else closer_to(float(self.to_frobenius[-1]), self.nuclear_range)

    def to_json(self) -> dict:
        def fit(f):
            return None if f is None else {"exponent": f.exponent, "ci": [f.lo, f.hi], "t_from": f.t_from, "t_to": f.t_to}

        return {"algorithm": self.algorithm.name, "final_one_minus_cos_frobenius": float(self.to_frobenius[-1]),
                "final_one_minus_cos_nuclear": float(self.to_nuclear[-1]), "rate_frobenius": fit(self.fit_frobenius),
                "rate_nuclear": fit(self.fit_nuclear), "unseen_min_probability": self.unseen_min_probability,
                "seconds": self.seconds,
                "final_one_minus_cos_nuclear_set": None if self.nuclear_range is None else self.nuclear_range.to_json(),
                "closer_to": self.closer_to}


def directions(seed: int = 0, variants=VARIANTS, T: int = 900, T2: int = 900) -> tuple[list[Direction], dict]:
    """Every variant's alignment to both directions on the Section 7 dataset of ``seed``;
    also the two solutions' norms and optimality residuals."""
    import time

    from ntpcheck.transformer.maxmargin import eq2_closed_form, solve_eq3_exact
    from ntpcheck.transformer.maxmargin.nuclear import solve_eq3_nuclear
    from ntpcheck.transformer.synthetic import random_realizable_dataset

    st = analyse(random_realizable_dataset(20, 90, seed=seed, approximate=True))
    E = as_embeddings(None, st.dataset.n_vocab)
    W_F = solve_eq3_exact(st, certify=False).W
    nuc = solve_eq3_nuclear(st)
    refs = (eq2_closed_form(st), W_F)
    test = theorem3_test_arrays(st)
    face = NuclearFace(nuc, frobenius_norm=float(np.linalg.norm(W_F)))
    out = []
    for v in variants:
        t0 = time.perf_counter()
        traj = train_variant(st, v, TrainingConfig(T=T, T2=T2, record_attention=False), E, refs, keep_weights=True)
        seconds = time.perf_counter() - t0
        s2 = traj.stage2
        t = s2.steps.astype(float)
        cf, cn = one_minus_cos_rows(s2.weights, W_F), one_minus_cos_rows(s2.weights, nuc.W)
        window = t >= T2 / 5
        prob = None
        if test is not None:
            z = model.logits(traj.W_ov, traj.W_kq, None, test)
            lo, _ = model.cross_entropy_parts(z, test.target)
            prob = float(np.exp(-lo).min())
        out.append(Direction(v, t, cf, cn, fit_exponent(t[window], cf[window]), fit_exponent(t[window], cn[window]), prob, seconds,
                             cosine_range(face, s2.weights[-1])))
    info = {"seed": seed, "n_samples": st.dataset.n_samples, "frobenius_norm": float(np.linalg.norm(W_F)),
            "nuclear_norm_of_nuclear_solution": nuc.nuclear_norm, "nuclear_residuals": nuc.residuals,
            "cos_between_solutions": float(1 - one_minus_cos_rows(W_F[None], nuc.W)[0]), "nuclear_face_tol": face.tol}
    return out, info


def directions_table(rows: list[Direction]) -> list[list[str]]:
    """Rows for :func:`ntpcheck.app.rendering.render.table`: final 1 - cos and fitted rates to both directions, the range
    of 1 - cos over every nuclear-norm minimiser (attained by points found; certified bounds) and the conclusion."""
    def fit(f) -> str:
        return "-" if f is None else f"t^{f.exponent:.2f} [{f.lo:.2f}, {f.hi:.2f}]"

    def span(a: float, b: float) -> str:
        return f"{a:.3g}-{b:.3g}"

    out = []
    for d in rows:
        r = d.nuclear_range
        ranges = ["-", "-"] if r is None else [span(r.lo_attained, r.hi_attained), span(r.lo, r.hi)]
        out.append([d.algorithm.name, f"{d.to_frobenius[-1]:.3g}", fit(d.fit_frobenius), f"{d.to_nuclear[-1]:.3g}",
                    fit(d.fit_nuclear), *ranges, d.closer_to or "-",
                    "-" if d.unseen_min_probability is None else f"{d.unseen_min_probability:.3f}"])
    return out


TABLE_HEADER = ["algorithm", "1-cos to W*_F", "rate", "1-cos to W*_nuc", "rate", "all W_nuc: found", "certified",
                "closer to", "min p(unseen)"]


def directions_csv(rows: list[Direction]) -> str:
    """Long-format CSV: ``algorithm, direction, t, one_minus_cos``; at the last ``t`` also the directions
    ``nuclear_set_lo``, ``nuclear_set_lo_attained``, ``nuclear_set_hi_attained``, ``nuclear_set_hi`` (the range
    over every nuclear-norm minimiser, :class:`~ntpcheck.transformer.maxmargin.nuclear_range.CosineRange`)."""
    lines = ["algorithm,direction,t,one_minus_cos"]
    for d in rows:
        for name, ys in (("frobenius", d.to_frobenius), ("nuclear", d.to_nuclear)):
            lines += [f"{d.algorithm.name},{name},{int(t)},{y!r}" for t, y in zip(d.t, ys)]
        r = d.nuclear_range
        if r is not None:
            bounds = (("lo", r.lo), ("lo_attained", r.lo_attained), ("hi_attained", r.hi_attained), ("hi", r.hi))
            lines += [f"{d.algorithm.name},nuclear_set_{k},{int(d.t[-1])},{v!r}" for k, v in bounds]
    return "\n".join(lines) + "\n"


def directions_figure(rows: list[Direction], info: dict):
    """One panel per algorithm: ``1 - cos`` to the Frobenius (Eq. 3) and nuclear-norm directions over t."""
    from matplotlib.figure import Figure

    n = len(rows)
    cols = 3
    fig = Figure(figsize=(4.2 * cols, 3.0 * ((n + cols - 1) // cols) + 0.8))
    axes = fig.subplots((n + cols - 1) // cols, cols, squeeze=False).ravel()
    for ax, d in zip(axes, rows):
        ax.plot(d.t, d.to_frobenius, color="C0", label="to W*_kq (Frobenius, Eq. 3)")
        ax.plot(d.t, d.to_nuclear, color="C1", label="to the nuclear-norm solution")
        r = d.nuclear_range
        if r is not None:  # every minimiser at t = T': found (solid) and certified (dotted)
            ax.vlines(d.t[-1], r.lo, r.hi, color="C1", linestyle=":", linewidth=1)
            verdict = "undecided" if d.closer_to == "undecided" else f"closer to {d.closer_to}"
            ax.vlines(d.t[-1], r.lo_attained, r.hi_attained, color="C1", linewidth=3,
                      label=f"to every nuclear minimiser at t = {int(d.t[-1])} (dotted: certified): {verdict}")
        ax.set_yscale("log")
        p = "" if d.unseen_min_probability is None else f"; unseen: p >= {d.unseen_min_probability:.2f}"
        ax.set_title(f"{d.algorithm.name}{p}", fontsize=9)
        ax.set_xlabel("stage-2 step t (joint: step)", fontsize=8)
        ax.set_ylabel("1 - cos", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.suptitle(f"Which direction does W_kq align with? Section 7 setting, seed {info['seed']} ({info['n_samples']} samples, "
                 f"|V| = d = 20, T = T' = 900); cos between the two solutions {info['cos_between_solutions']:.3f}", fontsize=10)
    fig.tight_layout()
    return fig


def reproduce_algorithms(out_dir: str, seed: int, t0: float) -> int:
    """``ntpcheck reproduce algorithms``: print the table; write ``algorithms.png``, ``.csv`` and ``.json``."""
    import io
    import os
    import time

    from ntpcheck.common.atomic import atomic_write_bytes

    from ntpcheck.app.rendering.output import json_text
    from ntpcheck.app.rendering.render import table

    rows, info = directions(seed)
    print(table(directions_table(rows), TABLE_HEADER))
    print(f"\nnuclear-norm solution certified: worst optimality residual {max(info['nuclear_residuals'].values()):.1e}; "
          f"cos between the two solutions {info['cos_between_solutions']:.4f}")
    print(f"all W_nuc: 1 - cos at t = T' over every W with R w >= 1 and ||W||_* <= p*(1 + {info['nuclear_face_tol']:g}): "
          "'found' at points of that set, 'certified' bounds; closer to one direction only if the whole range says so")
    base = os.path.join(out_dir, "algorithms")
    atomic_write_bytes(base + ".csv", directions_csv(rows).encode())
    atomic_write_bytes(base + ".json", json_text({**info, "directions": [d.to_json() for d in rows]}).encode())
    buf = io.BytesIO()
    directions_figure(rows, info).savefig(buf, format="png", dpi=100)
    atomic_write_bytes(base + ".png", buf.getvalue())
    print(f"wrote {base}.png, {base}.csv and {base}.json ({time.perf_counter() - t0:.1f} s)")
    return 0
