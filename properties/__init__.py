"""The paper's claims as checkable properties, one module per part of the paper.

``REGISTRY`` lists every claim of CLAIMS.md (one entry per reading where the
OCR is unclear); ``tests/test_claims.py`` and ``ntpcheck verify`` use it.
"""

from .registry import REGISTRY, by_name

__all__ = ["REGISTRY", "by_name"]
