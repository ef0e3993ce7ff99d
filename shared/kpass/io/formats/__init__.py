"""One row per question: the file formats, their detection and readers."""
