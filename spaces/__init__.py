"""Build and publish the kpass metric modules as Hugging Face Spaces."""
