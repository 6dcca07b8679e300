"""Generation speed of the strategies (examples per second).

Run with timing:  pytest tests/benchmarks --benchmark-enable --benchmark-only
In the normal suite (``--benchmark-disable``) each benchmark runs once as a smoke test.
"""

import pytest
from hypothesis import HealthCheck, given, settings

from ntpcheck.strategies import realizable_datasets, violating

N = 200  # examples per round


def _generate(strategy, n=N):
    count = [0]

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def body(x):
        count[0] += 1

    body()
    return count[0]


@pytest.mark.parametrize(
    "name, strategy",
    [
        ("realizable, prefix-closed", realizable_datasets()),
        ("realizable, free sentences", realizable_datasets(prefix_closed=False)),
        ("realizable, |V|=20", realizable_datasets(min_vocab=20, max_vocab=20, max_samples=60)),
        ("violating 1ii", violating("1ii")),
        ("violating 2", violating("2")),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_generation_speed(benchmark, name, strategy):
    benchmark.group = "strategies: generation speed"
    n = benchmark.pedantic(_generate, args=(strategy, N if benchmark.enabled else 10), rounds=3, iterations=1)
    assert n > 0
    if benchmark.enabled and benchmark.stats:
        benchmark.extra_info["examples_per_second"] = N / benchmark.stats.stats.median
