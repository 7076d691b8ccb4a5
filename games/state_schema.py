"""A round's table in the REST API's schema: `state`, one typed shape per game (a `oneOf`
with the discriminator `game`, so a generated client gets a class per game), its floor
summary, and `next`. The shapes are the engines' `state_view` and `state_summary`
(games/rules/<game>/view.py); tests/api/test_round_state.py holds every engine's view to
its shape here. The kinds are enums, each game's its engine's `kinds`.
"""

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from devices.models import Device
from games import flow
from games.rules.pai_gow.dealing import DEALING_STYLES, PLACES
from games.rules.registry import ENGINE_MODULES, engine_get
from games.rules.three_dice_football.field import DOWN_NAMES

_S = serializers
GAMES = tuple(sorted(ENGINE_MODULES))
KINDS = {game: engine_get(game).kinds for game in GAMES}
# The enum's choices (settings.SPECTACULAR_SETTINGS names each).
CRAPS_KINDS = list(KINDS["craps"])
SIC_BO_KINDS = list(KINDS["sic_bo"])
HIGH_ROLL_DICE_KINDS = list(KINDS["high_roll_dice"])
THREE_DICE_FOOTBALL_KINDS = list(KINDS["three_dice_football"])
PAI_GOW_KINDS = list(KINDS["pai_gow"])
WAGER_KINDS = sorted({kind for kinds in KINDS.values() for kind in kinds})
# Each shape's discriminator: the one game it is.
CRAPS_GAME, SIC_BO_GAME, HIGH_ROLL_DICE_GAME = ["craps"], ["sic_bo"], ["high_roll_dice"]
THREE_DICE_FOOTBALL_GAME, PAI_GOW_GAME = ["three_dice_football"], ["pai_gow"]
CRAPS_VARIANTS = ["craps", "mini_craps"]
CRAPS_CALLS = ["on", "off"]
SIC_BO_SHAKERS = ["manual", "automated"]
HIGH_ROLL_DICE_DICE = [(10, "ten dice"), (6, "six dice (§ 675a.6)")]
THREE_DICE_FOOTBALL_DOWNS = [*DOWN_NAMES, "Extra Point"]
THREE_DICE_FOOTBALL_TYPES = ["full_game", "single_play"]
PAI_GOW_PLACES = list(PLACES)
PAI_GOW_STYLES = list(DEALING_STYLES)
PAI_GOW_HAND_STATES = ["waiting", "to_set", "dealer_sets", "set", "surrendered", "void"]
# What `next` may name: the engines' wagering and result events and the floor's own two.
NEXT_EVENTS = sorted(
    {*(e for events in flow.WAGERING_EVENTS.values() for e in events)}
    | {e for events in flow.RESULT_EVENTS.values() for e in events}
    | {"no_more_bets", "no_roll"}
)
VOID_SECTIONS = sorted({section for voids in flow.VOIDS.values() for section in voids})
DEVICE_STATUSES = Device.Status.choices


def _game(key: str) -> _S.ChoiceField:
    return _S.ChoiceField(choices=[key], help_text="The game: names this shape.")


def _amount(**kwargs: Any) -> _S.DecimalField:
    return _S.DecimalField(max_digits=14, decimal_places=2, **kwargs)


def _wager_base(kinds: list[str]) -> type[_S.Serializer]:
    """A wager on a game's layout: the fields every game shows, its kind the game's enum."""

    class Wager(_S.Serializer):
        id = _S.CharField(help_text="The wager's ref (ROUND.N).")
        player = _S.CharField()
        kind = _S.ChoiceField(choices=kinds)
        amount = _amount(help_text="On the layout now (after any reduction).")

    return Wager


# --- Craps and Mini-Craps -------------------------------------------------------------------


class CrapsMaySerializer(_S.Serializer):
    """What the wager may still do before the next throw (§ 623a.4(c), (d), § 623a.6)."""

    remove = _S.BooleanField(help_text="Be taken down.")
    reduce = _S.BooleanField(help_text="Be reduced to a smaller amount.")
    add_odds = _S.BooleanField(help_text="Have odds added (a line or come bet with its point).")
    call_on = _S.BooleanField(help_text="Be called on (working).")
    call_off = _S.BooleanField(help_text="Be called off (not working).")


class CrapsWagerSerializer(_wager_base(CRAPS_KINDS)):  # type: ignore[misc]
    number = _S.IntegerField(
        allow_null=True,
        help_text="The number it stands on: a line or come bet's point, odds' point, a Place, "
        "Buy, Lay, Hardway or Horn High number; null for none (yet).",
    )
    on = _S.CharField(allow_null=True, help_text="Odds: the bet they support.")
    odds = _amount(allow_null=True, help_text="A line or come bet: the odds on it, in total.")
    working = _S.BooleanField(help_text="Decided by the next throw if it settles it.")
    called = _S.ChoiceField(
        choices=CRAPS_CALLS, allow_null=True, help_text="The player's call, if any."
    )
    seat = _S.IntegerField(allow_null=True, help_text="Mini-Craps: the player's seat.")
    may = CrapsMaySerializer()


class CrapsStateSerializer(_S.Serializer):
    """Craps and Mini-Craps (ch. 623a, 623b)."""

    game = _game("craps")
    point = _S.IntegerField(
        allow_null=True, help_text="The point (the puck on); null: the next throw is a come out."
    )
    shooter = _S.IntegerField(help_text="The shooter, counted from the table's opening.")
    variant = _S.ChoiceField(choices=CRAPS_VARIANTS)
    come_out = _S.BooleanField(help_text="The next throw is a come out roll.")
    new_shooter = _S.BooleanField(help_text="The shooter has not thrown a come out roll yet.")
    power_odds = _S.DictField(
        child=_S.CharField(),
        allow_null=True,
        help_text='The Power Odds selected for the next throw (§ 623b.5), e.g. {"hard:6": '
        '"18 to 1"}; null: none.',
    )
    come_points = _S.ListField(child=_S.IntegerField(), help_text="Come Bets' points.")
    dont_come_points = _S.ListField(child=_S.IntegerField(), help_text="Don't Come points.")
    wagers = CrapsWagerSerializer(many=True, help_text="Every wager on the layout.")


class CrapsSummarySerializer(_S.Serializer):
    game = _game("craps")
    point = _S.IntegerField(allow_null=True)
    shooter = _S.IntegerField()


# --- Sic Bo ---------------------------------------------------------------------------------


class SicBoWagerSerializer(_wager_base(SIC_BO_KINDS)):  # type: ignore[misc]
    """A Sic Bo wager on the layout."""


class SicBoStateSerializer(_S.Serializer):
    """Sic Bo (ch. 625a)."""

    game = _game("sic_bo")
    thrown = _S.BooleanField(
        help_text="The round's own dice have been thrown and their winning combinations lit "
        "(§ 625a.5(d)): false in a round until its throw (the last round's were cleared once "
        "its wagers were settled, § 625a.5(f)); a settled round keeps its throw."
    )
    dice = _S.ListField(
        child=_S.IntegerField(), allow_null=True, help_text="The three dice of that throw."
    )
    shaker = _S.ChoiceField(choices=SIC_BO_SHAKERS)
    wagers = SicBoWagerSerializer(many=True)


class SicBoSummarySerializer(_S.Serializer):
    game = _game("sic_bo")
    thrown = _S.BooleanField()
    dice = _S.ListField(child=_S.IntegerField(), allow_null=True)


# --- High Roll Dice -------------------------------------------------------------------------


class HighRollDiceFirstRollSerializer(_S.Serializer):
    face = _S.IntegerField(help_text="The die value occurring the most (§ 675a.2(d)).")
    count = _S.IntegerField(help_text="How many: the dice moved to the throw box.")
    rethrown = _S.IntegerField(help_text="The dice the extra roll re-throws (§ 675a.4(g)).")


class HighRollDicePositionSerializer(_S.Serializer):
    player = _S.CharField()
    position = _S.IntegerField(allow_null=True, help_text="The betting position, if named.")
    pip_street = _S.ListField(child=_S.IntegerField(), help_text="Die faces wagered on.")
    like_kind = _S.ListField(child=_S.IntegerField(), help_text="Like Kind circles (counts).")
    no_match = _S.BooleanField(help_text="The six-dice game's no match circle.")
    millionaire_row = _S.ListField(child=_S.IntegerField())
    extra_roll = _S.BooleanField(help_text="An Extra Roll bought this round.")


class HighRollDiceWagerSerializer(_wager_base(HIGH_ROLL_DICE_KINDS)):  # type: ignore[misc]
    position = _S.IntegerField(allow_null=True)


class ExtraRollDeviceSerializer(_S.Serializer):
    position = _S.IntegerField(help_text="The betting position it serves.")
    serial = _S.CharField()
    status = _S.ChoiceField(choices=DEVICE_STATUSES)


class LockOutSerializer(_S.Serializer):
    serial = _S.CharField()
    status = _S.ChoiceField(choices=DEVICE_STATUSES)


class HighRollDiceDevicesSerializer(_S.Serializer):
    """The table's Extra Roll devices (§ 675a.1(c)): an Extra Roll is bought at a working
    wagering device while the lock-out control works."""

    extra_roll = ExtraRollDeviceSerializer(many=True)
    lock_out = LockOutSerializer(allow_null=True)


class HighRollDiceStateSerializer(_S.Serializer):
    """High Roll Dice (ch. 675a) and its six-dice variation (§ 675a.6)."""

    game = _game("high_roll_dice")
    extra_roll_pending = _S.BooleanField(help_text="A first roll is thrown; the extra roll next.")
    first_roll = HighRollDiceFirstRollSerializer(allow_null=True)
    dice = _S.ChoiceField(choices=HIGH_ROLL_DICE_DICE)
    payout_limit = _amount(allow_null=True, help_text="Per player per round (§ 675a.5(e)).")
    extra_roll_players = _S.ListField(
        child=_S.CharField(),
        help_text="Who bought an Extra Roll; once the first roll is thrown, whose circles "
        "ride on the extra roll.",
    )
    positions = HighRollDicePositionSerializer(many=True, help_text="Each player's areas.")
    wagers = HighRollDiceWagerSerializer(many=True)
    devices = HighRollDiceDevicesSerializer()


class HighRollDiceSummarySerializer(_S.Serializer):
    game = _game("high_roll_dice")
    extra_roll_pending = _S.BooleanField()
    first_roll = HighRollDiceFirstRollSerializer(allow_null=True)


# --- Three Dice Football --------------------------------------------------------------------


class ThreeDiceFootballWagerSerializer(_wager_base(THREE_DICE_FOOTBALL_KINDS)):  # type: ignore[misc]
    type = _S.ChoiceField(choices=THREE_DICE_FOOTBALL_TYPES, help_text="§ 661a.3(b) or (d).")


class ThreeDiceFootballStateSerializer(_S.Serializer):
    """Three Dice Football (ch. 661a): the drive."""

    game = _game("three_dice_football")
    game_number = _S.IntegerField(help_text="The game at the table, from 1.")
    down = _S.ChoiceField(
        choices=THREE_DICE_FOOTBALL_DOWNS, help_text="The Down Puck (§ 661a.2(b)(5))."
    )
    yard_line = _S.IntegerField(help_text="The Yard Marker: yards to the end zone.")
    play = _S.IntegerField(help_text="The Game Length Puck: the play about to be thrown.")
    quarterback = _S.IntegerField(help_text="The Quarterback with the dice, from 1.")
    extra_point_pending = _S.BooleanField(help_text="A touchdown waits on the extra point roll.")
    goal_to_go = _S.BooleanField(help_text="A 1st & Goal was earned (§ 661a.6(e)(2)).")
    game_started = _S.BooleanField(help_text="The game's first throw is made.")
    wagers = ThreeDiceFootballWagerSerializer(many=True)


class ThreeDiceFootballSummarySerializer(_S.Serializer):
    game = _game("three_dice_football")
    game_number = _S.IntegerField()
    down = _S.ChoiceField(choices=THREE_DICE_FOOTBALL_DOWNS)
    yard_line = _S.IntegerField()
    play = _S.IntegerField()
    quarterback = _S.IntegerField()
    extra_point_pending = _S.BooleanField()


# --- Pai Gow --------------------------------------------------------------------------------


class PaiGowSettingSerializer(_S.Serializer):
    high = _S.ListField(child=_S.CharField(), help_text='Two tiles, e.g. ["6-6", "1-2"].')
    low = _S.ListField(child=_S.CharField())


class PaiGowBankerSerializer(_S.Serializer):
    player = _S.CharField()
    wager = _S.CharField(help_text="The bank's wager, whose position holds its hand.")
    co_bank = _S.BooleanField()
    chips = _amount()
    dealer_wager = _amount(help_text="The dealer's wager against the bank (§ 621a.9(h)).")


class PaiGowDealingSerializer(_S.Serializer):
    count = _S.IntegerField(allow_null=True, help_text="The dice total or generator number.")
    starting_place = _S.ChoiceField(choices=PAI_GOW_PLACES, allow_null=True)
    style = _S.ChoiceField(choices=PAI_GOW_STYLES, allow_null=True)


class PaiGowHandSerializer(_S.Serializer):
    wager = _S.CharField()
    player = _S.CharField()
    position = _S.IntegerField()
    amount = _amount()
    bank = _S.BooleanField(help_text="The player bank's hand.")
    state = _S.ChoiceField(
        choices=PAI_GOW_HAND_STATES,
        help_text="waiting for the deal; to be set by its player (or by the dealer for a "
        "co-bank); set; surrendered (§ 621a.8(e)); void (§ 621a.10(d)).",
    )
    tiles = _S.ListField(child=_S.CharField(), allow_null=True)
    set = PaiGowSettingSerializer(allow_null=True)


class PaiGowStateSerializer(_S.Serializer):
    """Pai Gow (ch. 621a)."""

    game = _game("pai_gow")
    bank = _S.CharField(allow_null=True, help_text="The player banking this round, if any.")
    dealt = _S.BooleanField()
    starting_place = _S.ChoiceField(choices=PAI_GOW_PLACES, allow_null=True)
    rounds_played = _S.IntegerField(help_text="Since the start of the game (§ 621a.9(b)).")
    last_bank = _S.CharField(allow_null=True, help_text="Who banked the last round.")
    banker = PaiGowBankerSerializer(allow_null=True)
    dealing = PaiGowDealingSerializer(allow_null=True)
    dealer = PaiGowSettingSerializer(
        allow_null=True, help_text="The dealer's hands, once every player has set his."
    )
    hands = PaiGowHandSerializer(many=True)


class PaiGowSummarySerializer(_S.Serializer):
    game = _game("pai_gow")
    bank = _S.CharField(allow_null=True)
    dealt = _S.BooleanField()
    starting_place = _S.ChoiceField(choices=PAI_GOW_PLACES, allow_null=True)


STATES = {
    "craps": CrapsStateSerializer,
    "high_roll_dice": HighRollDiceStateSerializer,
    "pai_gow": PaiGowStateSerializer,
    "sic_bo": SicBoStateSerializer,
    "three_dice_football": ThreeDiceFootballStateSerializer,
}
SUMMARIES = {
    "craps": CrapsSummarySerializer,
    "high_roll_dice": HighRollDiceSummarySerializer,
    "pai_gow": PaiGowSummarySerializer,
    "sic_bo": SicBoSummarySerializer,
    "three_dice_football": ThreeDiceFootballSummarySerializer,
}
TABLE_STATE = PolymorphicProxySerializer(
    component_name="TableState", serializers=STATES, resource_type_field_name="game"
)
TABLE_SUMMARY = PolymorphicProxySerializer(
    component_name="TableSummary", serializers=SUMMARIES, resource_type_field_name="game"
)


class NextSerializer(_S.Serializer):
    """What the round takes now (docs/api.md, The table's state)."""

    events = _S.ListField(
        child=_S.ChoiceField(choices=NEXT_EVENTS),
        help_text="wagers: POST wagers/; remove, working, pass_dice, bank: events/; "
        "no_more_bets: no-more-bets/; the results (throw, extra_roll, power_odds, deal, set, "
        "surrender, reveal, ...): result/; no_roll: no-roll/. Empty once the result is in.",
    )
    wagers = _S.ListField(
        child=_S.ChoiceField(choices=WAGER_KINDS),
        help_text="The wager kinds taken now, each from some player: the engine's check "
        "and the devices' (an Extra Roll needs a working wagering device and lock-out "
        "control, § 675a.1(c)).",
    )
    voids = _S.ListField(
        child=_S.ChoiceField(choices=VOID_SECTIONS),
        help_text="The sections POST void/ takes now (the engine's check and the devices').",
    )


def _view_field(key: str, schema: Any) -> type[_S.Field]:
    """A round's field read from its view (gaming.round_views: `state` or `next`), typed in
    the schema as `schema`."""

    @extend_schema_field(schema)
    class ViewField(_S.Field):
        def __init__(self, view: Any, **kwargs: Any) -> None:
            self.view = view
            super().__init__(source="*", read_only=True, **kwargs)

        def to_representation(self, round_: Any) -> Any:
            """The round's view's `key`."""
            return self.view(round_)[key]

    return ViewField


# The round's `state` (its table after its last event) and `next`.
StateField = _view_field("state", TABLE_STATE)
NextField = _view_field("next", NextSerializer)


@extend_schema_field(TABLE_SUMMARY)
class SummaryField(_S.Field):
    """A table's summary on the floor: written by the floor snapshot, declared here."""

    def to_representation(self, value: Any) -> Any:
        """The summary as the snapshot wrote it."""
        return value
