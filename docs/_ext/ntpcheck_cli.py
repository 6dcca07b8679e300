"""A Sphinx directive that renders ntpcheck's command reference from its argument parser.

``ntpcheck-commands`` (in a MyST page: a fenced block ```` ```{ntpcheck-commands} ````) writes one
section per subcommand of :func:`ntpcheck.app.cli.cli.build_parser`, in the parser's order: its
one-line help, then its ``--help`` text as argparse prints it (at 88 columns).  Nothing is
copied by hand, so the reference cannot drift from the parser.
"""

from __future__ import annotations

import argparse
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _subcommands():
    from ntpcheck.app.cli.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    return parser, [(name, helps.get(name, ""), p) for name, p in sub.choices.items()]


def _help(p: argparse.ArgumentParser) -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"  # argparse wraps at $COLUMNS: the same text on every machine, no scrolling
    try:
        return p.format_help()
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


class CommandsDirective(SphinxDirective):
    """One section per ``ntpcheck`` subcommand: its help line and its ``--help`` text."""

    has_content = False

    def run(self):
        parser, commands = _subcommands()
        out = [nodes.literal_block(text=_help(parser), language="text")]
        for name, summary, p in commands:
            section = nodes.section(ids=[nodes.make_id(f"ntpcheck-{name}")])
            section += nodes.title(text=f"ntpcheck {name}")
            if summary:
                section += nodes.paragraph(text=summary[:1].upper() + summary[1:] + ".")
            section += nodes.literal_block(text=_help(p), language="text")
            out.append(section)
        return out


def setup(app):
    app.add_directive("ntpcheck-commands", CommandsDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
