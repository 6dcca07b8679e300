"""The command line: parsing, the commands (``check``, ``solve``, ``train``, ``verify``, ``matrix``,
``claims``, ``new-paper``, ...) and their options.  Above the other jobs of the application."""
