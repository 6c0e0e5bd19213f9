"""Stage 4: exact pricing (SPEC §8). The contract's `pricing` claim (`model`), the pure engine
that prices each model and tool event (`engine`), and dated public price cards (`card`)."""
