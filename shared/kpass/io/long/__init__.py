"""One row per sample (long tables): grouped by question id, by rows, pyarrow or DuckDB."""
