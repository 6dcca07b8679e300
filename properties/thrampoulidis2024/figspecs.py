"""The figure of every claim of Thrampoulidis (2024) (:class:`~..framework.figure.FigureSpec`),
by the claim's full name; the traces are in :mod:`.figtraces`.

* limits without rates (Lemma 2, Thm. 2, Lemma 4 (3)-(6), Thm. 1): ``limit``, the quantity
  against k (GD) or B (the regularization path) on log axes with the trend the check fits;
* bounds (Eq. (7), Prop. 1, the genie bound T1-pf (d), Thm. 2's telescoped bound, Remark 2,
  App. C's m_t): ``bound``, both sides against γ, R, k or t;
* identities and certificates: ``scatter`` of the value computed against the formula with
  y = x (or the inequality y ≤ x with its slack), or ``instances``: one number per instance
  against the check's tolerance.

Axis labels are in the paper's notation (matplotlib mathtext).
"""

from __future__ import annotations

from ..framework.figure import FigureSpec
from . import figtraces as ft
from .geometry import SVM_TOL
from .statics import IDENTITY_RTOL

__all__ = ["FIGURES"]

YX = (("$y = x$", 1.0, 0.0),)
K = "$k$ (GD iteration)"
B = r"$B$ (radius of the ball $\Vert W\Vert \leq B$)"
T = "$t$ (context length)"


def _limit(x: str, trace, note: str) -> FigureSpec:
    return FigureSpec("limit", x=x, trace=trace, note=note)


def _identity(x: str, y: str, trace, reference: float | None = None, note: str = "", flag: str = "") -> FigureSpec:
    return FigureSpec("scatter", x=x, y=y, trace=trace, lines=YX, reference=reference, note=note, flag=flag)


def _below(x: str, y: str, trace, note: str = "", flag: str = "", sense: str = "<=") -> FigureSpec:
    return FigureSpec("scatter", x=x, y=y, trace=trace, lines=(("$y = x$ (the bound met with equality)", 1.0, 0.0),),
                      sense=sense, note=note, flag=flag)


def _number(key, value: str, reference: float, log: bool = True, note: str = "") -> FigureSpec:
    return FigureSpec("instances", trace=ft.measured(key), value=value, reference=reference, log=log, note=note)


_GD = "trends of the last two decades of k, as the check fits them; the run's records are geometric in k"
_PATH = "trends over the last certified decade of B (certificate dist <= 1e-6 B), as the check fits them"
_T2 = r"$\langle W_k/\Vert W_k\Vert,\ W^{mm}/\Vert W^{mm}\Vert\rangle$"
_LEMMA14 = ("from the instance's test point (W_F, W_perp, alpha): one point per instance, "
            "out-of-support parts of CE in logs")
_EQ16_X = r"$CE(W) - \Sigma_j\hat\pi_j\Sigma_z\hat p_{j,z}\log A_{j,z}$ (computed)"

#: Claim name -> its figure.
FIGURES: dict[str, FigureSpec] = {
    # §2-3 (statics.py)
    "E2": _identity(r"$\mathcal{H} + \Sigma_j \hat\pi_j\,\mathrm{KL}(\hat p_j\Vert \mathbb{S}(W\bar h_j))$", "$CE(W)$ (Eq. (2), literal sum)",
                    lambda ev, o: {"x": [o.measured["entropy"] + o.measured["kl"]], "y": [o.measured["ce"]]}, IDENTITY_RTOL,
                    note="one point per instance, at the probe W; the tolerance is 1e-9 (1 + CE)"),
    "D1-ind": _identity(r"claimed count: $S_j-1$ for (4), $V-1$ with (6b)", "rank of the constraints (computed)",
                        ft.measured_points("claimed", "ranks"), note="two points per context of every instance"),
    "Fn6": _number(lambda m: max(v for k, v in m.items() if isinstance(v, float)), "largest relative error of Fn. 6's five identities",
                   IDENTITY_RTOL, note="W* in F, W* solves (4), W* + U solves (4) and projects to W*, in-support softmax = p"),
    "Eq7": FigureSpec("bound", x=r"$\gamma$", y=r"$\max_{j,\ v\notin\mathcal{S}_j}\ \mathbb{S}_v(\gamma W^d\bar h_j)$",
                      bound=r"$e^{-\gamma}$", trace=ft.eq7_trace, log=True,
                      note="W^d = W^mm and a random point of (6); the largest over contexts, tokens and directions"),
    **{f"P1 [{r}]": FigureSpec("bound", x=r"$\gamma - M\Vert W^p\Vert$", y=r"$CE(W^p+\gamma W^d)-\mathcal{H}$",
                               bound=r"$V e^{M\Vert W^p\Vert}e^{-\gamma}$", trace=ft.prop1_trace, log=True, note=n)
       for r, n in (("limit", "CE - H falls to 0 along the path: the check asks it below 1e-20 at its end (the bound drawn for scale)"),
                    ("rate", "the path (W^p, W^d) closest to its bound"))},
    **{f"L1 [{r}]": _number("null_dim", r"$\dim\mathcal{F}^\perp$: the solutions of (4) are $W^\star+\mathcal{F}^\perp$",
                            0.5, log=False, note="above 0.5: infinitely many solutions of (4) (and, by §3.1's construction, of (6))")
       for r in ("d > m", "d = m")},
    "Rem1": _identity("multiclass linearly separable (1 = yes, LP on W)", "NTP-separable (1 = yes)",
                      lambda ev, o: {"x": [float(o.measured["multiclass"])], "y": [float(o.measured["separable"])]},
                      note="one-hot data (S_j = 1): H = 0 and F = {0} on every instance"),
    # the NTP-SVM (geometry.py)
    "SVM [Def. 3]": _number("kkt", "KKT residual of $W^{mm}$ (feasible, margin 1, in $\\mathcal{F}^\\perp$)", SVM_TOL),
    "SVM [supports only]": _number("difference", "relative change of $W^{mm}$ under redrawn counts", SVM_TOL),
    "SVM [W* orthogonal]": _number("cosine", r"$|\cos(W^\star, W^{mm})|$", SVM_TOL),
    "Fig2 [general form]": _number("difference", "largest relative distance between rows of $W^{mm}$ of one support pattern",
                                   SVM_TOL, note="instances without two tokens of one pattern have no point"),
    # §4, App. D-E.2 (cef.py)
    "Eq24": _identity(r"Eq. (24), term by term", r"$\langle -\nabla CE(W), U\rangle$", ft.measured_points("eq24", "value")),
    "T1-pf [c]": _identity(r"(24)'s second sum (> 0 by (6b))", r"$\langle -\nabla CE(W), W^{mm}\rangle$",
                           ft.measured_points("second", "value"), note="the first sum is 0 by (6a): the points lie on y = x, right of 0"),
    "D-CEF [a]": _below(r"$CE(W)$", r"$CE_{\mathcal{F}}(W)$", ft.series_points, note="at the probe W"),
    **{f"D-CEF [{r}]": _identity(r"$CE_{\mathcal{F}}(W)$", r"$\lim_R CE(W + RW^d)$", ft.measured_points("targets", "limits"),
                                 note="one point per direction W^d tried; an infinite limit is not drawn")
       for r in ("b, (6a) as printed", "b, with (6)")},
    "D-CEF [c]": _number(lambda m: max(m["at_w_star"], m["far"]), r"$\max(CE_{\mathcal{F}}(W^\star), CE(W^\star+RW^{mm})) - \mathcal{H}$",
                         1e-20, note="R = M ||W*|| + 50; 0 drawn at the floor"),
    "L4 [1]": _number("at_w_star", r"$CE_{\mathcal{F}}(W^\star)-\mathcal{H}$", 1e-20, note="0 drawn at the floor"),
    "L4 [2]": _number(lambda m: m["distance"] / m["tolerance"], r"$\Vert W_{BFGS}-W^\star\Vert$ / tolerance", 1.0),
    "R1 [strictly convex]": _number("gap", r"midpoint gap along $W + s\,\mathbf{1}u^\top$", IDENTITY_RTOL,
                                    note="the gap is 0 along directions the softmax ignores: CE is convex, not strictly"),
    "R1 [W_B unique]": _number("lam", r"$\lambda$ in $-\nabla CE(\hat W_B) = \lambda \hat W_B$ at B = 2", 0.0, log=False,
                               note="lambda > 0 with the constraint active: the minimiser over the ball is unique"),
    "R11 [compatibility necessary]": _below(r"pooled-entropy bound on $\inf CE_{\mathcal{F}} - \mathcal{H}$",
                                            r"$CE_{\mathcal{F}} - \mathcal{H}$ reached", ft.r11_trace, sense=">=",
                                            flag=r"compatible data: $CE_{\mathcal{F}}(W^\star)-\mathcal{H}$ at x = 0"),
    # App. C, Remark 2 (appc.py)
    "AppC [identity]": _identity("CE (2) of the reduced data", "prefix-averaged loss", ft.appc_trace, IDENTITY_RTOL,
                                 flag="App. C's display / (T - 1)"),
    "AppC [m_t non-increasing]": FigureSpec("bound", x=T, y="$m_t$", bound="$m_{t-1}$ (claimed: $m_t \\leq m_{t-1}$)",
                                            trace=ft.step_pairs(ft.m_values, "<="), log=False),
    "AppC [m_t non-decreasing]": FigureSpec("bound", x=T, y="$m_t$", bound="$m_{t-1}$ (claimed: $m_t \\geq m_{t-1}$)",
                                            trace=ft.step_pairs(ft.m_values, ">="), log=False),
    **{f"Rem2 [{r}]": FigureSpec("bound", x=T, y=r"$\mathcal{H}_t$", bound=r"$\mathcal{H}_{t-1}$",
                                 trace=ft.step_pairs(ft.h_values, "<="), log=False) for r in ("empirical data", "stationary data")},
    "Rem2 [Shannon]": FigureSpec("bound", x=T, y=r"$\mathcal{H}_{t+1}$", bound=r"$\mathcal{H}'_t$ (entropy of $z_{t+2}$ given $z_{2:t+1}$)",
                                 trace=ft.rem2_shannon_trace, log=False),
    # the proof's case analysis, R2, Cover (proof_cases.py, remarks.py)
    **{f"T1-pf [(e)(i) {r}]": _below(r"case (i)'s bound on $CE - \mathcal{H}$", r"$CE(W^\star + R'\hat W) - \mathcal{H}$",
                                     ft.measured_points("bound", "excess"), sense=">=",
                                     note="the point (R', theta) closest to its bound, one per instance")
       for r in ("as printed", "corrected")},
    "T1-pf [(e)(ii)]": _below(r"$\log(c'e^{-R'(1-\delta)}/2n^2)$", r"$\log(CE(W^\star + R'\hat W) - \mathcal{H})$",
                              ft.measured_points("log_lhs", "log_rhs"), sense=">=",
                              note="W-hat in F-perp; the point closest to its bound, one per instance"),
    "R2 [as printed]": _identity(r"$\Vert P_{\mathcal{F}}W_k\Vert + \Vert P_\perp W_k\Vert$", r"$\Vert W_k\Vert$",
                                 lambda ev, o: {"x": [o.measured["norm_F"] + o.measured["norm_perp"]], "y": [o.measured["norm"]]}
                                 if "norm" in o.measured else {}, note="the iterate farthest from the printed identity"),
    "R2 [Pythagoras]": _identity(r"$(\Vert P_{\mathcal{F}}W_k\Vert^2 + \Vert P_\perp W_k\Vert^2)^{1/2}$", r"$\Vert W_k\Vert$",
                                 lambda ev, o: {"x": [(o.measured["norm_F"] ** 2 + o.measured["norm_perp"] ** 2) ** 0.5],
                                                "y": [o.measured["norm"]]} if "norm" in o.measured else {}),
    "Cover": _identity(r"Cover's $C(m, d) = 2\sum_{k<d}\binom{m-1}{k}$", "NTP-separable labelings (LP, each of $2^m$)",
                              ft.measured_points("cover", "separable"), note="V = 2, contexts in general position"),
    # the regularization path (regpath.py)
    "Thm. 1": _limit(B, ft.path_limit("omc"), _PATH),
    "Lemma 4 [(5)]": _limit(B, ft.path_limit("dist"), _PATH),
    "Lemma 4 [(6)]": _limit(B, ft.path_limit("perp"), _PATH),
    "T1-pf [(a)]": _identity("$B$", r"$\Vert \hat W_B\Vert$ (certified KKT point, $\mu > 0$)", ft.measured_points("Bs", "norms"),
                             note="at B / ||W^mm|| = 0.5, 2, 8"),
    "T1-pf [(d)]": FigureSpec("bound", x=r"$R$ ($W^\star + RW^{mm}$)", y=r"$\log(CE(W^\star+RW^{mm})-\mathcal{H})$",
                              bound=r"$\log(Ce^{-R})$, $C = Ve^{\Vert W^\star\Vert M}$", trace=ft.genie_trace, xlog=True,
                              note="the genie point; the check compares the certified path's CE(W_B) with the same bound"),
    # GD (dynamics.py)
    "Lemma 2": _limit(K, ft.gd_limit("excess", "norm"), _GD),
    "Thm. 2": _limit(K, ft.gd_limit("omc", "dist"), _GD),
    "Lemma 4 [(3)]": _limit(K, ft.gd_limit("dist"), _GD),
    "Lemma 4 [(4)]": _limit(K, ft.gd_limit("perp"), _GD),
    **{f"T2-pf [{r}, (23) {t}]": FigureSpec("bound", x=K, y=_T2, bound=f"(telescoped, {r})",
                                            log=False, xlog=True, note="from k0, where Lemma 5's threshold (23) holds on")
       for r in ("as printed", "as derived") for t in ("printed", "M")},
    # Lemma 5 (lemma5_claims.py)
    **{f"Lemma 5 [(23) {r}]": _below(r"$\log$ out-of-support part of $CE(W)$", r"$\log$ same of $CE(W_{\mathcal{F}}+(1+\alpha)\Vert W_\perp\Vert \bar W^{mm})$",
                                     ft.measured_points("log_rhs", "log_lhs"), note=_LEMMA14)
       for r in ("e^{4||W*||} (printed)", "e^{4M||W*||}")},
    **{f"Lemma 5 [(20)-(21), {r}]": _below("log of the side claimed larger", "log of the side claimed smaller", ft.eq20_trace,
                                            flag="(21); dots: (20)", note="Case 2 only")
       for r in ("(15)/(16) as printed", "CE")},
    **{f"Lemma 5 [(16) {r}]": _identity(_EQ16_X, "the same by (16) " + r, ft.measured_points("ce_minus_base", "printed_minus_base"),
                                        note="at ||W_perp|| = 3 ||W^mm||") for r in ("as printed", "product")},
}
