"""What every paper uses, and the paper-independent infrastructure (issue 44).

The sequence-data model (tokens and samples, datasets, padded index arrays, the text format's
writer), the errors, atomic file writes, interruption, BLAS threads, numba's cache folder, sparse
columns, ``logsumexp``/``softmax`` and the version record.  Nothing here imports a paper's model
(:mod:`ntpcheck.transformer`, :mod:`ntpcheck.linear`), Hypothesis, or anything above.
"""
