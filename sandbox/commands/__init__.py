"""Sub-commands of the ``sandbox`` command line, one module each."""
