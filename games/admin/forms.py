"""The small forms on a round's page: each gathers what one service takes, nothing more.

The services check the permission, the round's state and (through the engine) the rules;
a form only turns the dealer's text into JSON and names the field when it is not JSON.
"""

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from casino.models import Table
from games import flow
from games.models import Round
from games.rules.core import MalformedInput
from games.rules.core.money import amount_given

WAGERS_HINT = {
    "craps": '[{"player": "p1", "kind": "pass", "amount": "10"}]; odds take "on": "3.1"',
    "sic_bo": '[{"player": "p1", "kind": "small", "amount": "10"}]',
    "high_roll_dice": '[{"player": "p1", "kind": "pip:6", "amount": "10"}]',
    "three_dice_football": '[{"player": "p1", "kind": "touchdown", "amount": "10"}]',
    "pai_gow": '[{"player": "p1", "kind": "pai_gow", "amount": "10", "position": 1}]',
}
RESULT_HINT = {
    "craps": 'throw: [3, 4]; power_odds: {"any_craps": "14 to 1"}',
    "sic_bo": "throw: [1, 2, 3]; no_roll: true; shaker_malfunction: true",
    "high_roll_dice": "throw: [1, 2, 3, 4, 5, 6, 1, 2, 3, 4] (ten or six dice); "
    "extra_roll: the re-thrown dice",
    "three_dice_football": 'throw: {"green": [3, 4], "red": 2}',
    "pai_gow": 'deal: {"dealer": ["1-2", "2-4", "3-5", "6-6"], "positions": {"1": [...]}}; '
    'set: {"3.1": {"high": [...], "low": [...]}}; surrender: ["3.1"]; reveal: true',
}
EVENT_HINT = {
    "craps": 'remove: ["3.1"]; working: {"3.1": false}; pass_dice: true',
    "pai_gow": 'bank: {"player": "p3", "co_bank": false}',
}


class JSONText(forms.CharField):
    """A textarea of JSON, parsed; a syntax error says where it is."""

    widget = forms.Textarea(attrs={"rows": 2, "cols": 70})

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ValidationError(
                f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
            ) from None


class RoundForm(forms.Form):
    """A form for one round's action; the round decides the choices and hints."""

    def __init__(self, *args: Any, round_: Round, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.round = round_


class WagersForm(RoundForm):
    wagers = JSONText(label="Wagers")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["wagers"].help_text = "A JSON list, e.g. " + WAGERS_HINT[self.round.game]


class EventForm(RoundForm):
    """A wagering-phase event other than new wagers (Craps remove/working, Pai Gow bank)."""

    event = forms.ChoiceField(label="Event")
    payload = JSONText(label="Payload")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        events = sorted(flow.WAGERING_EVENTS[self.round.game] - {"wagers"})
        self.fields["event"].choices = [(e, e) for e in events]
        self.fields["payload"].help_text = EVENT_HINT.get(self.round.game, "")


class ResultForm(RoundForm):
    event = forms.ChoiceField(label="Event")
    payload = JSONText(label="Payload")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["event"].choices = [(e, e) for e in sorted(flow.RESULT_EVENTS[self.round.game])]
        self.fields["payload"].help_text = RESULT_HINT[self.round.game]


class VoidForm(RoundForm):
    section = forms.ChoiceField(label="Under")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        sections = flow.VOIDS.get(self.round.game, {})
        self.fields["section"].choices = [(s, f"§ {s}") for s in sections]


class AdjustmentForm(RoundForm):
    memo = forms.CharField(label="Memo", widget=forms.Textarea(attrs={"rows": 2, "cols": 70}))
    lines = JSONText(
        label="Lines",
        help_text="A JSON list of [account, player, amount] summing to zero, e.g. "
        '[["player", "p1", "5.00"], ["inventory", "", "-5.00"]]. Accounts: player, '
        "layout, inventory, fees.",
    )

    def clean_lines(self) -> list:
        """The lines, each amount a decimal string (the floor's one rule for amounts)."""
        lines = self.cleaned_data["lines"]
        if not isinstance(lines, list):
            raise ValidationError("a JSON list of [account, player, amount]")
        wrong = []
        for index, line in enumerate(lines):
            if isinstance(line, list) and len(line) == 3:
                try:
                    line[2] = amount_given(line[2], f"lines[{index}].amount")
                except MalformedInput as error:
                    wrong.append(f"{error.field} {error.message}")
        if wrong:
            raise ValidationError(wrong)
        return lines


class OpenRoundForm(forms.Form):
    table = forms.ModelChoiceField(
        label="Table", queryset=Table.objects.filter(status=Table.Status.OPEN).order_by("number")
    )
