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


def option_choice(
    raw: Mapping[str, object], name: str, choices: tuple[str, ...], default: str
) -> str:
    """The option `name`, one of `choices`; `default` when absent."""
    value = raw.get(name, default)
    if value not in choices:
        raise MalformedInput(f"options.{name}", f"must be one of {', '.join(choices)}")
    return str(value)


def option_flag(raw: Mapping[str, object], name: str, default: bool) -> bool:
    """A yes-or-no option: JSON true/false, or "true"/"false" from the command line."""
    value = raw.get(name, default)
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise MalformedInput(f"options.{name}", "must be true or false")
