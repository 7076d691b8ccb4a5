"""The two ways input can be wrong: malformed, or forbidden by the rules."""


class MalformedInput(ValueError):
    """The input is not of the documented form (wrong type, unknown name, bad JSON).

    `field` names where it is wrong, e.g. ``steps[3].throw`` or ``options.dice``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RuleViolation(Exception):
    """The input is well formed but the regulations forbid it now.

    `message` is a sentence a dealer understands; `cite` the section that forbids it.
    """

    def __init__(self, message: str, cite: str) -> None:
        super().__init__(f"{message} ({cite})")
        self.message = message
        self.cite = cite
