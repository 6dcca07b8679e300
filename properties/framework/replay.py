"""A tested instance as text that replays on its own: the claim, the parameters its setup chose,
the embeddings, the dataset, and the command that checks it again."""

from __future__ import annotations

import dataclasses

from ntpcheck.transformer.instance import Instance
from ntpcheck.transformer.textformat import dumps

from .claim import Claim
from .instances import is_paper_instance
from .keys import prepare
from .verdicts import Outcome, Verdict

__all__ = ["counterexample_text", "instance_text", "replay_command", "shell_quoted"]


def instance_text(claim: Claim, inst: Instance, comment: str, replay: str | None = None) -> str:
    """Any tested instance of ``claim`` as :func:`counterexample_text` writes a counterexample,
    with ``comment`` in place of the counterexample's line (``"closest for C_1: ..."``): the
    file replays with ``verify --dataset`` (:mod:`.tightness`, ``verify --instances``)."""
    text = counterexample_text(claim, inst, Outcome(Verdict.HOLDS, detail=comment), replay)
    return text.replace(f"# counterexample: {' '.join(comment.split())}", f"# {' '.join(comment.split())}", 1)


def counterexample_text(claim: Claim, inst: Instance, o: Outcome, replay: str | None = None) -> str:
    """The counterexample in the text format, replayable on its own: the claim's name and
    a comment with the failure, the instance's parameters, algorithm and embeddings in the
    header that :func:`ntpcheck.transformer.textformat.load_with_header` reads back
    (:mod:`ntpcheck.transformer.textheader`), the dataset, and last a comment with the command that
    replays it (``replay``, else :func:`replay_command`).  Another paper's instance writes its
    own text format (:meth:`~.instances.PaperInstance.counterexample_text`)."""
    if is_paper_instance(inst):
        return prepare(claim, inst).counterexample_text(claim.name, " ".join(o.detail.split()), replay or replay_command(claim))
    inst = prepare(claim, inst)
    trained = "" if inst.algorithm is None else f" (trained with {inst.algorithm.name}: {inst.algorithm.description})"
    what = " ".join(f"counterexample{trained}: {o.detail}".split())
    lines = dataclasses.replace(inst.header(), claim=claim.name).text_lines()
    header = "\n".join([lines[0], what, *lines[1:]])
    command = replay or replay_command(claim)
    return (dumps(inst.dataset, header=header, vocab=inst.embeddings is not None)
            + f"# replay: save this text as FILE, then run: {command}\n")


def replay_command(claim: Claim, path: str = "FILE") -> str:
    """``ntpcheck verify --dataset PATH --claims "NAME"`` for a claim of a registered paper
    (with ``--paper`` where it is not the default one)."""
    from ntpcheck.properties import DEFAULT_PAPER, PAPERS, paper

    owner = next((name for name in PAPERS if any(c.name == claim.name for c in paper(name).claims)), DEFAULT_PAPER)
    where = "" if owner == DEFAULT_PAPER else f" --paper {owner}"
    return f"ntpcheck verify{where} --dataset {path} --claims {shell_quoted(claim.name)}"


def shell_quoted(text: str) -> str:
    """``text`` as one shell word: in double quotes when that is safe (claim names), else :func:`shlex.quote`.

    Examples
    --------
    >>> print(shell_quoted("Thm. 1 [norm, 2||W*||]"), shell_quoted("it's $x"))
    "Thm. 1 [norm, 2||W*||]" 'it'"'"'s $x'
    """
    import shlex

    return f'"{text}"' if not any(ch in text for ch in '"$`\\!') else shlex.quote(text)
