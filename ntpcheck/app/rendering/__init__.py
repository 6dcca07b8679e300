"""The text and JSON every command writes (:mod:`.render`, :mod:`.render_check`), where it goes
(:mod:`.output`), and the JSON schemas of ``verify`` and ``matrix`` (``schemas/``).  The lowest job
of the application: the command line, the reports, the pytest plugin and the scale-out use it."""
