"""The pytest plugin (entry point ``pytest11``: :mod:`.pytest_plugin`): claims of papers as tests,
its options, Ctrl-C handling, and ntpcheck's Hypothesis profiles (:mod:`.hypothesis_profiles`).

Importing this package costs nothing: pytest loads the plugin in every project where ntpcheck is
installed."""
