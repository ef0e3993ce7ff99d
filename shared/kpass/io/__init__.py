"""Reading evaluation outputs: file formats, row parsing, streamed readers, answers files."""
