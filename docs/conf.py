"""Sphinx configuration of ntpcheck's documentation (issue 45).

Build: ``python -m pip install -e ".[docs]"``, then
``sphinx-build -W --keep-going -b html docs docs/_build/html`` (CI runs exactly this).
The pages are MyST Markdown; ``docs/papers/<paper>.md`` are generated from ``docs/results/``
by ``python -m ntpcheck.app.report.docs_pages docs/results docs/papers``; the command reference comes
from the argument parser (``_ext/ntpcheck_cli.py``); the API reference from the numpydoc
docstrings (autodoc + napoleon).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "ntpcheck"
author = "the ntpcheck developers"
copyright = "2024-2025, the ntpcheck developers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "ntpcheck_cli",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "results"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3  # [text](#a-heading) links, as on GitHub

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
napoleon_google_docstring = False
napoleon_numpy_docstring = True

html_theme = "furo"
html_title = "ntpcheck"
