"""How a count reads in any command's output. Its own module: `inspect` and `scan` use it
without loading evaluate or pricing."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 task`, `2 tasks`: a count with its noun, singular or plural (`plural` when it is not
    the noun with an s: `entry`, `entries`)."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {plural or noun + 's'}"
