"""Running on every core and on a cluster: units of work named by data (:mod:`.units`), the
executor (:mod:`.executor`, Dask via :mod:`.dask_connect`), campaigns (:mod:`.campaign`) and the
solver benchmarks (:mod:`.bench`, :mod:`.bench_linear`)."""
