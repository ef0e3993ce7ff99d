"""The ``kpass`` command: argument parsing, the report table and the plots."""
