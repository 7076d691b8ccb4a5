"""The forms of the admin's actions and records: each one only gathers what a service takes.

Nothing here saves: the admin passes the cleaned data to casino.services, which checks
the actor's permission and the rules and refuses with every reason it finds.
"""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from casino.models import EquipmentSet, RulesSubmission, SetInPlay, Table
from casino.rules.equipment import COMPOSITIONS, REASONS, REQUIRED_SETS, TILES
from casino.rules.tables import OPERATIONS
from casino.services.equipment import sets_in_play
from games.rules.catalog import variant_choices

# Intermediate action forms share the changelist's POST with the action form
# (action, index, select_across, _selected_action): a prefix keeps their names apart.
ACTION_PREFIX = "act"

TILE_COMPOSITIONS = [key for key, spec in COMPOSITIONS.items() if spec.kind == TILES]


def _reserve(table: Table, compositions: tuple[str, ...]) -> Any:
    return EquipmentSet.objects.filter(
        holder=table.holder_id,
        composition__in=compositions,
        status=EquipmentSet.Status.RESERVE,
    ).order_by("composition", "identifier")


class ChangeoutForm(forms.Form):
    """Take one set out of play, saying why, and put a set from the reserve in."""

    composition = forms.ChoiceField(label="Set to change")
    reason = forms.ChoiceField(choices=[(r.key, r.label) for r in REASONS.values()])
    new_set = forms.ModelChoiceField(
        queryset=EquipmentSet.objects.none(),
        required=False,
        help_text="From the reserve. Without one, the table cannot start a round until a "
        "set is put in play.",
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)

    def __init__(self, *args: Any, table: Table, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = sets_in_play(table)
        self.fields["composition"].choices = [
            (composition, f"{COMPOSITIONS[composition].label}: {row.equipment_set.identifier}")
            for composition, row in current.items()
        ]
        required = REQUIRED_SETS.get((table.game, table.variant), ())
        self.fields["new_set"].queryset = _reserve(table, required)


class PutInPlayForm(forms.Form):
    """Put a set from the reserve into play where the table has none of its kind."""

    equipment_set = forms.ModelChoiceField(queryset=EquipmentSet.objects.none(), label="Set")

    def __init__(self, *args: Any, table: Table, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        required = REQUIRED_SETS.get((table.game, table.variant), ())
        self.fields["equipment_set"].queryset = _reserve(table, required)


class SubmissionApproveForm(forms.Form):
    effective_at = forms.DateTimeField(
        required=False,
        label="Effective from",
        help_text="Local time, YYYY-MM-DD HH:MM. Empty: now. Never in the past.",
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="The approval reference.",
    )


class LayoutApproveForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="The approval reference.",
    )


class RejectForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), help_text="Why.")


class RulesSubmissionForm(forms.ModelForm):
    """A draft's choices, refused with every reason the engines and chapters give."""

    variants = forms.MultipleChoiceField(
        choices=variant_choices(),
        widget=forms.CheckboxSelectMultiple,
        help_text="The 6-dice variation of High Roll Dice only if selected (§ 675a.6(a)).",
    )
    table_types = forms.MultipleChoiceField(
        choices=[(o, o.capitalize()) for o in OPERATIONS],
        widget=forms.CheckboxSelectMultiple,
        help_text="Hybrid and fully automated electronic tables are Craps only (§ 623b).",
    )

    class Meta:
        model = RulesSubmission
        fields = ["holder", "game", "variants", "table_types", "options", "supersedes"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        draft = RulesSubmission(
            game=cleaned.get("game") or self.instance.game,
            variants=cleaned.get("variants", []),
            table_types=cleaned.get("table_types", []),
            options=cleaned.get("options") if cleaned.get("options") is not None else {},
        )
        refusals = draft.refusals()
        if refusals:
            raise ValidationError(refusals)
        return cleaned


class TileInspectionForm(forms.Form):
    """The dealer's inspection of tiles at the table, verified by the floorperson
    (§ 621a.4(a)); for an unsuitable set, the envelope's signatures and the replacement."""

    set_in_play = forms.ModelChoiceField(
        queryset=SetInPlay.objects.filter(
            removed_at__isnull=True, composition__in=TILE_COMPOSITIONS
        ).select_related("equipment_set", "table"),
        label="Tiles in play",
    )
    dealer_name = forms.CharField(max_length=120)
    floorperson_name = forms.CharField(max_length=120, help_text="Floorperson or above.")
    all_pairs_present = forms.BooleanField(
        required=False, help_text="The Supreme Pair and all 15 pairs (§ 621a.4(a)(1))."
    )
    same_size_and_shading = forms.BooleanField(required=False, help_text="§ 621a.4(a)(2).")
    unflawed = forms.BooleanField(
        required=False,
        help_text="Backs and sides not flawed, scratched or marked (§ 621a.4(a)(3)).",
    )
    envelope_signed_by_dealer = forms.CharField(
        max_length=120, required=False, help_text="Unsuitable set: the sealed envelope."
    )
    envelope_signed_by_floorperson = forms.CharField(max_length=120, required=False)
    replacement = forms.ModelChoiceField(
        queryset=EquipmentSet.objects.filter(
            composition__in=TILE_COMPOSITIONS, status=EquipmentSet.Status.RESERVE
        ),
        required=False,
        help_text="Unsuitable set: the set from the reserve that replaces it (§ 621a.4(a)(3)(i)).",
    )


_YES_NO = [("", "Not inspected (manual shaker)"), ("yes", "Yes"), ("no", "No")]


class SicBoInspectionForm(forms.Form):
    """The floorperson's inspection before a Sic Bo table opens (§ 625a.5(a))."""

    table = forms.ModelChoiceField(queryset=Table.objects.filter(game="sic_bo"))
    floorperson_name = forms.CharField(max_length=120)
    values_entered = forms.CharField(max_length=20, help_text="Three values, e.g. 2,5,5.")
    winning_combinations_lit = forms.BooleanField(
        required=False, help_text="Every winning combination was properly illuminated."
    )
    shaker_operations = forms.IntegerField(
        min_value=0,
        max_value=1000,
        required=False,
        help_text="Automated shaker: times operated (at least 3).",
    )
    dice_properly_tossed = forms.TypedChoiceField(
        choices=_YES_NO,
        required=False,
        coerce=lambda value: value == "yes",
        empty_value=None,
        help_text="Automated shaker: the dice were properly tossed.",
    )


class LocationApprovalForm(forms.Form):
    """The Bureau of Casino Compliance's approval of a table's box locations (§ 601a.10(g))."""

    table = forms.ModelChoiceField(queryset=Table.objects.all())
    drop_box_location = forms.CharField(max_length=200)
    tip_box_location = forms.CharField(max_length=200)
    beside_the_dealer = forms.BooleanField(
        required=False,
        help_text="Both boxes on the dealer's side, on opposite sides of the dealer "
        "(High Roll Dice, Pai Gow, Sic Bo).",
    )
    shaker_location = forms.CharField(
        max_length=200, required=False, help_text="An automated Sic Bo shaker's location."
    )
    approved_by_name = forms.CharField(
        max_length=200, help_text="The Casino Compliance Supervisor who approved it."
    )
    approved_at = forms.DateTimeField(help_text="When the approval was given.")
