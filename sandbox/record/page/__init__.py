"""A saved session as one self-contained HTML page (``sandbox export ID --html FILE``)."""
