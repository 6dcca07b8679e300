"""The application layer: the command line, rendering (text, JSON, Markdown), figures and the benchmark.

It may import everything below it (``ntpcheck.properties``,
``ntpcheck.strategies``, the math core); nothing below imports it.
"""
