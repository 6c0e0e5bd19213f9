"""Bounds every stage shares. No imports: the reading worker loads this without pydantic."""

# A count is a JSON integer every reader takes: within int64, like the transcript's own.
INT64_MAX = 2**63 - 1

# No model call reads or writes 2**32 tokens: the reader refuses a larger counter as damage, and
# opening a bundle refuses one too. Bounding each keeps every total a tree or a workload can sum
# far inside the 64-bit integers JSON writers accept.
MAX_TOKEN_COUNT = 2**32
