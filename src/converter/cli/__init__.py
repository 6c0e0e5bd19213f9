"""The command line: thin click commands over the pipeline, one exit point in `main`."""
