"""The second paper's figures (Thrampoulidis 2024, App. A): ``ntpcheck reproduce linear-fig12`` and
``ntpcheck reproduce linear-fig345``.

**Figs. 1/2** (App. A.1): ``d = 2``, ``m = 3``, ``V = 5``, supports ``{1,2,5}``, ``{1,4,5}``,
``{2,3,4}`` (contexts A, B, C, as Fig. 1's labels "125", "145", "234" under them).  The paper's
embeddings and probabilities are not given ("probabilities are assigned randomly"); here the
contexts are unit vectors at seeded random angles and the counts seeded integers in [1, 9],
redrawn until the data are NTP_ℋ-compatible and NTP-separable (with ``d = 2 < m = 3`` neither is
automatic).  GD at ``η = 1/(2L̄)`` from zero for 10⁵ steps.  Panels: the contexts and the rows
``w_v = W^mmᵀe_v`` (Fig. 1 left); CE against ℋ, ``‖W_k‖``, the correlation with ``W^mm`` and
``‖P_ℱW_k − W⋆‖`` (Fig. 1 right); the matrix ``P̂`` and the rows of ``W⋆`` (Fig. 2).

**Figs. 3–5** (App. A.2): ``n = 5000``, ``m = 50``, ``d = 60``, ``V = 10``, ``S_j = 6``; supports
uniform among the 6-subsets, ``p̂_j ~ Dirichlet(1, …, 1)`` (uniform on the simplex: its expected
entropy is ``H_6 − 1 = 1.45`` nats, the paper's ``ℋ ≈ 1.445``), ``π̂ ~ Dirichlet(1, …, 1)``, counts
``1 + multinomial(n − Σ_j S_j, π̂_j p̂_{j,z})`` (every in-support count ≥ 1, total exactly ``n``).
GD ``η = 0.5``, NGD and Adam ``η = 0.01``, ``β = (0.9, 0.99)``, 10⁴ iterations from LeCun init.  The
embeddings' distribution is not given: ``--embeddings`` chooses ``gaussian`` (``N(0, I/d)``, the
default), ``unit`` (normalised Gaussian columns) or ``standard`` (``N(0, I)``, where ``η = 0.5``
exceeds App. E.1's ``1/(2L̄)``).
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass, field

import numpy as np

from ntpcheck.linear import NTPData
from ntpcheck.linear.dynamics import References, Trajectory, gd_step, train
from ntpcheck.linear.loss import entropy, smoothness_bound
from ntpcheck.linear.subspace import compatibility
from ntpcheck.linear.svm import separability

__all__ = ["fig12_data", "fig345_data", "fig12", "fig345", "csv_text", "EMBEDDINGS", "reproduce_linear"]

#: The readings of the Figs. 3-5 embeddings (module docstring).
EMBEDDINGS = ("gaussian", "unit", "standard")
#: App. A.1's supports (0-based tokens), contexts A, B, C.
FIG1_SUPPORTS = ((0, 1, 4), (0, 3, 4), (1, 2, 3))
OPTIMISERS = (("GD", "gd", 0.5), ("NGD", "ngd", 0.01), ("Adam", "adam", 0.01))


@dataclass
class LinearFigure:
    """One reproduction: its data, references and runs, and the numbers said about them."""

    name: str
    D: NTPData
    refs: References
    runs: dict  # label -> Trajectory
    notes: dict = field(default_factory=dict)


def fig12_data(seed: int = 0, steps: int = 100_000) -> LinearFigure:
    """Figs. 1/2's data (module docstring), the first seed from ``seed`` whose draw is compatible and separable."""
    for s in range(seed, seed + 1000):
        rng = np.random.default_rng(s)
        ang = np.sort(rng.uniform(0, 2 * np.pi, 3))
        C = np.zeros((3, 5), dtype=np.int64)
        for j, S in enumerate(FIG1_SUPPORTS):
            C[j, list(S)] = rng.integers(1, 10, 3)
        D = NTPData(np.vstack([np.cos(ang), np.sin(ang)]), C)
        if compatibility(D).compatible and separability(D).separable:
            break
    else:  # pragma: no cover - never observed
        raise RuntimeError("no compatible and separable draw in 1000 seeds")
    refs = References.of(D)
    tr = train(D, "gd", steps, gd_step(D), init="zero", refs=refs, per_decade=30)
    return LinearFigure("fig12", D, refs, {"GD": tr}, {"seed": s, "entropy": entropy(D), "eta": gd_step(D)})


def fig345_data(seed: int = 0, embeddings: str = "gaussian", steps: int = 10_000) -> LinearFigure:
    """Figs. 3-5's data and the three runs (module docstring)."""
    if embeddings not in EMBEDDINGS:
        raise ValueError(f"embeddings must be one of {', '.join(EMBEDDINGS)}, got {embeddings!r}")
    n, m, d, V, S = 5000, 50, 60, 10, 6
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(m))
    sup = [np.sort(rng.choice(V, S, replace=False)) for _ in range(m)]
    P = [rng.dirichlet(np.ones(S)) for _ in range(m)]
    extra = rng.multinomial(n - m * S, np.concatenate([pi[j] * P[j] for j in range(m)])).reshape(m, S)
    C = np.zeros((m, V), dtype=np.int64)
    for j in range(m):
        C[j, sup[j]] = 1 + extra[j]
    H = rng.normal(size=(d, m))
    if embeddings == "gaussian":
        H /= np.sqrt(d)
    elif embeddings == "unit":
        H /= np.linalg.norm(H, axis=0)
    D = NTPData(H, C)
    refs = References.of(D)
    runs = {label: train(D, method, steps, eta, init="lecun", seed=seed, refs=refs) for label, method, eta in OPTIMISERS}
    return LinearFigure(f"fig345_{embeddings}", D, refs, runs,
                        {"seed": seed, "embeddings": embeddings, "entropy": entropy(D), "gd_limit": 1 / (2 * smoothness_bound(D)),
                         "w_star_norm": float(np.linalg.norm(refs.W_star)), "w_mm_norm": float(np.linalg.norm(refs.W_mm))})


def csv_text(f: LinearFigure) -> str:
    """Every curve, long format: ``run, k, quantity, value``; then ``P``, ``W^mm``, ``W⋆`` entries."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["run", "k", "quantity", "value"])
    for label, tr in f.runs.items():
        for q in ("excess", "norm", "one_minus_corr", "one_minus_corr_corrected", "dist_F", "norm_perp"):
            for k, v in zip(tr.k, tr.records[q]):
                w.writerow([label, int(k), q, repr(float(v))])
        for k, v in zip(tr.k, tr.loss):
            w.writerow([label, int(k), "CE", repr(float(v))])
    for name, M in (("P", f.D.P), ("W_mm", f.refs.W_mm), ("W_star", f.refs.W_star)):
        for (a, b), v in np.ndenumerate(M):
            w.writerow([name, "", f"{a},{b}", repr(float(v))])
    return buf.getvalue()


def _dynamics_panels(axes, tr: Trajectory, H: float, color: str, title: str) -> None:
    """The four panels of App. A's Figs. 1 (right), 4 and 5 for one run."""
    k = np.maximum(tr.k, 1)
    a = axes[0]
    a.plot(k, tr.loss, color=color, label=r"CE$(W_k)$")
    a.axhline(H, color="k", ls="--", lw=1, label=rf"$\mathcal{{H}}$ = {H:.4f}")
    a.set_title(f"{title}: loss", fontsize=10)
    a.set_ylabel("nats")
    a.legend(fontsize=8)
    a = axes[1]
    a.plot(k, tr.norm, color=color)
    a.set_title(rf"{title}: $\|W_k\|$", fontsize=10)
    a = axes[2]
    a.plot(k, 1 - tr.one_minus_corr, color=color, label=r"$\langle \bar W_k, \bar W^{mm}\rangle$")
    a.plot(k, 1 - tr.one_minus_corr_corrected, color=color, ls=":", label=r"corrected: $W_k - W^\star$")
    a.set_ylim(min(0.0, float(np.nanmin(1 - tr.one_minus_corr[1:]))) - 0.05, 1.02)
    a.set_title(f"{title}: correlation with " + r"$W^{mm}$", fontsize=10)
    a.legend(fontsize=8, loc="lower right")
    a = axes[3]
    a.plot(k, tr.dist_F, color=color)
    a.set_yscale("log")
    a.set_title(rf"{title}: $\|P_\mathcal{{F}}(W_k) - W^\star\|$", fontsize=10)
    for a in axes:
        a.set_xscale("log")
        a.set_xlabel("iteration k")
        a.grid(alpha=0.3)


def fig12(f: LinearFigure):
    """Figs. 1 and 2 as one :class:`matplotlib.figure.Figure` (2 × 4 panels, 1600 px wide at dpi 100)."""
    from matplotlib.figure import Figure

    D, refs = f.D, f.refs
    fig = Figure(figsize=(16, 8))
    ax = fig.subplots(2, 4)
    names = "ABC"
    a = ax[0, 0]
    for j in range(3):
        h = D.H[:, j]
        a.plot(*h, "ko")
        a.annotate(f"{names[j]} {''.join(str(z + 1) for z in D.supports[j])}", h, textcoords="offset points", xytext=(5, -12))
    for v in range(D.V):
        w = refs.W_mm[v]
        a.plot([0, w[0]], [0, w[1]], color=f"C{v}")
        a.plot(*w, "*", color=f"C{v}", ms=10, label=f"$w_{v + 1}$")
    a.set_aspect("equal")
    a.set_title(r"Fig. 1 left: contexts $\bar h_j$, rows $w_v$ of $W^{mm}$", fontsize=10)
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    _dynamics_panels([ax[0, 1], ax[0, 2], ax[0, 3], ax[1, 0]], f.runs["GD"], f.notes["entropy"], "C0", "GD")
    a = ax[1, 1]
    img = np.where(D.mask, D.P, np.nan)
    im = a.imshow(img, cmap="viridis", vmin=0, vmax=1)
    a.set_facecolor("black")
    a.set_xticks(range(D.V), [str(v + 1) for v in range(D.V)])
    a.set_yticks(range(3), list(names))
    a.set_xlabel("word v")
    a.set_ylabel("context")
    a.set_title(r"Fig. 2 left: $\hat P$ (black: out of support)", fontsize=10)
    fig.colorbar(im, ax=a, fraction=0.046)
    for a, M, title in ((ax[1, 2], refs.W_mm, r"Fig. 2 middle: rows of $W^{mm}$"), (ax[1, 3], refs.W_star, r"Fig. 2 right: rows of $W^\star$")):
        for v in range(D.V):
            a.plot([0, M[v, 0]], [0, M[v, 1]], color=f"C{v}")
            a.plot(*M[v], "*", color=f"C{v}", ms=10, label=f"$w_{v + 1}$")
        a.set_aspect("equal")
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
        a.set_title(title, fontsize=10)
    fig.suptitle(f"Thrampoulidis (2024) Figs. 1-2 reproduced by ntpcheck: d = 2, m = 3, V = 5, n = {D.n}, "
                 f"$\\mathcal{{H}}$ = {f.notes['entropy']:.4f} (paper: 0.8811), GD $\\eta = 1/(2\\bar L)$ = {f.notes['eta']:.3g}",
                 fontsize=12)
    fig.tight_layout()
    return fig


def fig345(f: LinearFigure):
    """Figs. 3-5 as one :class:`matplotlib.figure.Figure`: Fig. 3's eight contexts, then the four panels
    of each optimiser in a column (GD = Fig. 4, NGD and Adam = Fig. 5); 1800 px wide at dpi 100."""
    from matplotlib.figure import Figure

    D = f.D
    fig = Figure(figsize=(18, 17))
    gs = fig.add_gridspec(5, 8)
    rng = np.random.default_rng(f.notes["seed"] + 1)
    for i, j in enumerate(np.sort(rng.choice(D.m, 8, replace=False))):
        a = fig.add_subplot(gs[0, i])
        S = D.supports[j]
        a.bar(range(len(S)), D.P[j, list(S)], color="C0")
        a.set_xticks(range(len(S)), [str(z + 1) for z in S], fontsize=8)
        a.set_ylim(0, 1)
        a.set_title(f"Fig. 3: context {j + 1}", fontsize=9)
        if i == 0:
            a.set_ylabel(r"$\hat p_{j,z}$")
        a.set_xlabel("token z", fontsize=8)
    cols = ((0, 3), (3, 6), (6, 8))
    for (label, _, eta), (c0, c1), color in zip(OPTIMISERS, cols, ("C0", "C1", "C2")):
        axes = [fig.add_subplot(gs[r, c0:c1]) for r in range(1, 5)]
        _dynamics_panels(axes, f.runs[label], f.notes["entropy"], color, f"{label} ($\\eta$ = {eta})")
    n = f.notes
    fig.suptitle(f"Thrampoulidis (2024) Figs. 3-5 reproduced by ntpcheck: n = {D.n}, m = {D.m}, d = {D.d}, V = {D.V}, "
                 f"$S_j$ = 6, embeddings {n['embeddings']}; $\\mathcal{{H}}$ = {n['entropy']:.4f} (paper: 1.445); "
                 f"1/(2$\\bar L$) = {n['gd_limit']:.3g} (GD uses 0.5)", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def reproduce_linear(figure: str, out_dir: str, seed: int | None, embeddings: str | None) -> int:
    """``ntpcheck reproduce linear-fig12 | linear-fig345``: write the PNG and the CSV, print the numbers."""
    import os

    from ntpcheck.common.atomic import atomic_write_bytes

    t0 = time.perf_counter()
    seed = 0 if seed is None else seed
    if figure == "linear-fig12":
        f = fig12_data(seed)
        fig = fig12(f)
        stem = "thrampoulidis_fig12"
    else:
        f = fig345_data(seed, embeddings or "gaussian")
        fig = fig345(f)
        stem = f"thrampoulidis_fig345_{f.notes['embeddings']}"
    png, csvp = os.path.join(out_dir, stem + ".png"), os.path.join(out_dir, stem + ".csv")
    atomic_write_bytes(csvp, csv_text(f).encode())
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    atomic_write_bytes(png, buf.getvalue())
    print(summary(f))
    print(f"wrote {png} and {csvp} ({time.perf_counter() - t0:.1f} s)")
    return 0


def summary(f: LinearFigure) -> str:
    """The final values of every run, one line each."""
    lines = [", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in f.notes.items())]
    for label, tr in f.runs.items():
        lines.append(f"{label:4s} k = {int(tr.k[-1])}: CE - H = {tr.excess[-1]:.3g}, ||W_k|| = {tr.norm[-1]:.4g}, "
                     f"corr = {1 - tr.one_minus_corr[-1]:.4f}, corrected corr = {1 - tr.one_minus_corr_corrected[-1]:.4f}, "
                     f"||P_F W_k - W*|| = {tr.dist_F[-1]:.3g}, max CE rise = {tr.max_rise:.2g}")
    return "\n".join(lines)
