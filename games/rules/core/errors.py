"""The two ways input can be wrong: malformed, or forbidden by the rules."""


class MalformedInput(ValueError):
    """The input is not of the documented form (wrong type, unknown name, bad JSON).

    `field` names where it is wrong, e.g. ``steps[3].throw`` or ``options.dice``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple:
        # Raised in a worker, it crosses a process boundary: pickle the arguments, not the
        # message (Exception's default calls __init__ with the message alone).
        return (type(self), (self.field, self.message), self.__dict__)


class RuleViolation(Exception):
    """The input is well formed but the regulations forbid it now.

    `message` is a sentence a dealer understands; `cite` the section that forbids it.
    """

    def __init__(self, message: str, cite: str) -> None:
        super().__init__(f"{message} ({cite})")
        self.message = message
        self.cite = cite

    def __reduce__(self) -> tuple:
        return (type(self), (self.message, self.cite), self.__dict__)
