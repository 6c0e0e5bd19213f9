"""Stage 4a: exact pricing (SPEC §8). The contract's `pricing` claim (`model`), the pure engine
that prices each model and tool event (`engine`), and dated public price cards (`card`)."""

from importlib import resources


def shipped_cards() -> list[str]:
    """The names of the price cards this version ships, sorted (cheap: no card is read, and no
    model is imported, so a command's `--help` can list them)."""
    folder = resources.files(__name__).joinpath("cards")
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))
