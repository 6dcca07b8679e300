"""``ntpcheck train``: run Algorithm 1 (two-stage normalised GD) on one dataset and print both stages."""

from __future__ import annotations

from ntpcheck.common.errors import NTPCheckError

__all__ = ["run_train"]


def run_train(args, _emit, _warn) -> int:
    """``ntpcheck train``: Algorithm 1 on a dataset, its two stages summarised, and ``--predict``'s next tokens;
    ``_emit`` and ``_warn`` are the command line's (:mod:`.cli`)."""
    import numpy as np

    from ntpcheck.transformer.model import predict_proba
    from ntpcheck.transformer.training import TrainingConfig, train

    from ntpcheck.app.rendering import render as report
    from .embedding_choice import load_with_embeddings

    ds, _, E = load_with_embeddings(args)
    predict = [s.split() for s in args.predict]
    encoded = [ds.encode(s) for s in predict]  # fail on bad tokens before training
    cfg = TrainingConfig(T=args.T, T2=args.T2, eta0=args.eta0, eta=args.eta, record_attention=False, stride=max(1, max(args.T, args.T2)))
    if args.idealised:
        cfg = _idealised(cfg, ds, E)
    traj = train(ds, cfg, E)
    preds = []
    for sent, enc in zip(predict, encoded):
        p = predict_proba(traj.W_ov, traj.W_kq, E, enc, ds.n_vocab)
        k = int(np.argmax(p))
        preds.append({"sentence": " ".join(sent), "token": ds.vocab[k], "probability": float(p[k])})

    def stage(s):
        return {"loss": float(s.loss[-1]), "norm": float(s.norm[-1]), "one_minus_cos": float(s.one_minus_cos[-1]), "steps": int(s.steps[-1]), "stopped": s.stopped}

    obj = {
        "stage1": stage(traj.stage1),
        "stage2": stage(traj.stage2),
        "eta0": traj.eta0,
        "eta": traj.eta,
        "predictions": preds,
        "seconds": {"stage1": traj.stage1.seconds, "stage2": traj.stage2.seconds},
    }
    if args.idealised:
        obj["stage1"]["note"] = "W_ov replaced by the idealised A W*_ov after stage 1"
    lines = [f"Algorithm 1 on {ds.name}: T = {args.T}, T' = {args.T2}, eta0 = {traj.eta0:.4g}, eta = {traj.eta:.4g}, d = {E.shape[0]}"]
    if args.idealised:
        lines.append(f"  stage 1 idealised (Appendix C.1): W_ov replaced by A W*_ov with A = {cfg.stage1_margin:.4g}")
    s1 = traj.stage1
    if args.T > 0 and len(s1.loss) > 1 and s1.loss[0] > 0 and s1.loss[-1] > 0.9 * s1.loss[0]:
        obj["stage1"]["warning"] = "stage-1 loss barely moved"
        _warn(f"the stage-1 loss barely moved ({report.fmt(float(s1.loss[0]))} -> {report.fmt(float(s1.loss[-1]))}): "
              f"training has not converged; try a larger --eta0 (now {traj.eta0:.3g}) or --T")
    for name, key, s in (("stage 1 (W_ov, loss L_0)", "stage1", traj.stage1), ("stage 2 (W_kq, loss L)", "stage2", traj.stage2)):
        o = obj[key]
        lines.append(
            f"  {name}: loss {report.fmt(o['loss'])}, ||W|| {report.fmt(o['norm'])}, "
            f"1 - cos(W, W*) {report.fmt(o['one_minus_cos'])}  ({s.seconds:.3g} s)"
        )
        if s.stopped:
            lines.append(f"    stopped early: {s.stopped}")
    for pr in preds:
        lines.append(f"  predict '{pr['sentence']}' -> {pr['token']}  (probability {pr['probability']:.6g})")
    _emit(args, obj, "\n".join(lines))
    return 0


def _idealised(cfg, ds, E):
    """``cfg`` with stage 1 replaced by Appendix C.1's idealisation: margins ``A`` (Cor. 1)."""
    from dataclasses import replace

    from ntpcheck.transformer.instance import Instance
    from ntpcheck.properties.framework import evidence
    from ntpcheck.properties.huang2024 import quantities

    inst = Instance(ds, E, T=cfg.T, T2=cfg.T2, eta0=cfg.eta0, eta=cfg.eta)
    try:
        return replace(cfg, stage1_margin=quantities.A(evidence(inst)))
    except ZeroDivisionError:  # ||W*_ov|| = 0
        raise NTPCheckError("--idealised needs a token with a collocation (a sample 'x -> y'; Assumption 1(i)): "
                            "without one W*_ov = 0 and A = T eta0/(4||W*_ov||^2) is undefined") from None
