"""Sub-commands of the ``sandbox`` command line, one module each, named for its verb.

The top face: it may import any layer; nothing in the package imports it back (the layer
map in docs/architecture.md)."""
