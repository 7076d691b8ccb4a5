"""What every game's Rules Submission options share: only the game's own names are options."""

from collections.abc import Iterable, Mapping

from games.rules.core.errors import MalformedInput


def refuse_unknown_options(raw: Mapping[str, object], names: Iterable[str], game: str) -> None:
    """MalformedInput naming the first option that is not one of `names`."""
    known = tuple(names)
    for name in raw:
        if name not in known:
            raise MalformedInput(
                f"options.{name}", f"is not a {game} option; the options are {', '.join(known)}"
            )
