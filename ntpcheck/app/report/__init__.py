"""Figures and reports: the paper's figures (``ntpcheck reproduce``), the claim figures, the
Markdown and HTML reports of ``verify --report``, and the documentation's paper pages
(:mod:`.docs_pages`)."""
