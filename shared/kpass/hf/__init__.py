"""The Hugging Face layer: the only code that imports ``evaluate``."""
