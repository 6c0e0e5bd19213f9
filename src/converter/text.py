"""How a count reads in any command's output. Its own module: `inspect` and `scan` use it
without loading evaluate or pricing."""


def counted(count: int, noun: str) -> str:
    """`1 task`, `2 tasks`: a count with its noun, singular or plural."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"
