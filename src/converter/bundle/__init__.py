"""Stage 4c: the normalized, content-free bundle and its receipt (SPEC §9)."""
