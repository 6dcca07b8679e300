"""``ntpcheck claims``: every claim and reading a user can select, as text or JSON.

One entry per claim record (a claim, or one reading of it): its id, reading,
full name, test id (the ``pytest -k`` slug, which ``--claims`` also
accepts), section, the assumptions it is stated under, the verdict expected
and the statement in words.  Every name listed here is accepted by
``--claims`` of ``verify`` and ``matrix`` as printed, and so is its ASCII
test id.
"""

from __future__ import annotations

import textwrap

from ntpcheck.properties import PAPERS, paper
from ntpcheck.properties.framework import Claim, Paper, slugify

from ntpcheck.app.rendering.output import write_json

__all__ = ["claim_record", "claims_json", "claims_text", "run_claims_list"]


def claim_record(c: Claim) -> dict:
    """The JSON record of one claim.

    Examples
    --------
    >>> r = claim_record(paper("huang2024").claim("Cor. 1 [k=5]"))
    >>> r["name"], r["slug"], r["id_slug"], r["assumptions"], r["expect"]
    ('Cor. 1 [k=5]', 'cor1-k5', 'cor1', ['1i', '1ii', '2'], 'falsified')
    """
    return {"id": c.id, "reading": c.reading, "name": c.name, "slug": c.key, "id_slug": slugify(c.id),
            "section": c.section, "assumptions": list(c.assumptions), "expect": c.expect.value,
            "statement": c.statement}


def claims_json(papers: list[Paper]) -> dict:
    """The document of ``ntpcheck claims --json``: the papers, and every claim with its paper's name."""
    return {"papers": [{"name": p.name, "title": p.title, "ids": len(dict.fromkeys(c.id for c in p.claims)),
                        "claims": len(p.claims)} for p in papers],
            "claims": [{"paper": p.name, **claim_record(c)} for p in papers for c in p.claims]}


def claims_text(papers: list[Paper], width: int = 100) -> str:
    """One block per claim: its name, test id, section and assumptions, then the statement.

    Examples
    --------
    >>> print(claims_text([paper("huang2024")]).split("\\n\\n")[1])
    Eq. 5  (test id eq5)  App. A  under 1i, 1ii, 2
        grad_{W_ov} L_0 = sum_x (T_0(x) - e_{n(x)}) x^T (Appendix A, Eq. 5)
    """
    blocks = []
    for p in papers:
        blocks.append(f"{p.name}: {p.title}\n{len(p.claims)} claims and readings; select them with --claims "
                      "and any of the names below, or their test ids (e.g. --claims 'Ex. 1,cor1-k5')")
        for c in p.claims:
            head = f"{c.name}  (test id {c.key})  {c.section}  under {', '.join(c.assumptions)}"
            if c.expect.value != "holds":
                head += f"  [expected {c.expect.value}]"
            body = textwrap.fill(c.statement, width, initial_indent="    ", subsequent_indent="    ")
            blocks.append(f"{head}\n{body}")
    return "\n\n".join(blocks)


def run_claims_list(args) -> int:
    """Entry point of ``ntpcheck claims`` (``--paper``: one paper, default every one)."""
    papers = [paper(args.paper)] if args.paper is not None else [paper(name) for name in PAPERS]
    if args.json_path != "-":
        print(claims_text(papers))
    write_json(args.json_path, claims_json(papers))
    return 0
