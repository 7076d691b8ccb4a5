"""A table's catalog of wagers in the REST API (`GET /tables/{id}/wagers/`): one typed shape
per game (a `oneOf` named by `game`), each wager's `kind` its game's enum (the same enums as
a round's state, games/state_schema.py). casino.services.catalog builds it."""

from rest_framework import serializers

from games.state_schema import GAMES, KINDS

_S = serializers
HOUSE_EDGES = ["stored", "being_computed", "none"]


class MomentSerializer(_S.Serializer):
    words = _S.CharField(help_text="When, as the regulation puts it.")
    section = _S.CharField(help_text='The section that says so, e.g. "623a.4(c)(1)".')
    allowed = _S.BooleanField(help_text="false: never (the words say why).")


class PayoutSerializer(_S.Serializer):
    when = _S.CharField(help_text="The outcome it pays on (or what happens to it).")
    pays = _S.CharField(help_text='e.g. "7 to 6", "returned".')


class ParEdgeSerializer(_S.Serializer):
    kind = _S.CharField(help_text='A PAR record that prices the wager, e.g. "odds:pass:4".')
    house_edge = _S.DecimalField(max_digits=14, decimal_places=10, allow_null=True)


def _offer(game: str) -> type[_S.Serializer]:
    """A wager the table offers, its kind the game's enum."""

    class Offer(_S.Serializer):
        kind = _S.ChoiceField(choices=list(KINDS[game]))
        label = _S.CharField(help_text="Its name in the regulation.")
        section = _S.CharField(help_text="The paragraph that authorizes and defines it.")
        payouts = PayoutSerializer(many=True)
        paid_under = _S.CharField(help_text="The paytable's section.")
        made = MomentSerializer()
        reduced = MomentSerializer()
        removed = MomentSerializer()
        minimum = _S.DecimalField(max_digits=14, decimal_places=2, allow_null=True)
        maximum = _S.DecimalField(max_digits=14, decimal_places=2, allow_null=True)
        limits_note = _S.CharField(allow_null=True, help_text="What else bounds the amount.")
        house_edge = _S.DecimalField(
            max_digits=14,
            decimal_places=10,
            allow_null=True,
            help_text="From the PAR sheet stored with the Rules Submission; null while it is "
            "being computed, or for a wager priced by several records (`par`).",
        )
        par = ParEdgeSerializer(many=True)

    Offer.__name__ = Offer.__qualname__ = f"{_name(game)}OfferSerializer"
    return Offer


def _catalog(key: str) -> type[_S.Serializer]:
    """The catalog of a table of the game `key`."""

    class Catalog(_S.Serializer):
        game = _S.ChoiceField(choices=[key])
        table = _S.IntegerField()
        number = _S.CharField()
        variant = _S.CharField()
        operation = _S.CharField()
        rules_submission = _S.IntegerField(
            allow_null=True, help_text="The Rules Submission in force; null: none."
        )
        options = _S.DictField(allow_null=True, help_text="The engine's options in force.")
        house_edges = _S.ChoiceField(
            choices=HOUSE_EDGES,
            help_text="stored: each wager's edge from the stored PAR sheet; being_computed: "
            "a worker is computing the submission's sheets (ask again in a few seconds); "
            "none: no sheet for this table.",
        )
        detail = _S.CharField(allow_null=True, help_text="Why nothing is offered, or no edge.")
        wagers = _offer(key)(many=True)

    Catalog.__name__ = Catalog.__qualname__ = f"{_name(key)}CatalogSerializer"
    return Catalog


def _name(game: str) -> str:
    return "".join(part.title() for part in game.split("_"))


CATALOGS = {game: _catalog(game) for game in GAMES}
