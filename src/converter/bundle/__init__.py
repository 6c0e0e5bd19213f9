"""Stage 4b: the normalized, content-free bundle and its receipt (SPEC §9)."""
