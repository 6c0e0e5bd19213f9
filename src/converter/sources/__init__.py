"""Stage 1: find the files of a session tree, refuse unsafe ones, read and hash each once."""
