"""Layouts and signage, submitted to and approved by the Bureau (§ 601a.10(a))."""

from collections.abc import Mapping

from django.db import models

from casino.models.holders import CertificateHolder
from casino.models.lifecycle import Filed
from casino.rules.layouts import layout_refusals
from casino.rules.words import game_variant_label, variant_label
from games.rules.catalog import GAMES_BY_KEY, game_choices, variant_choices


class Layout(Filed):
    """A layout design for one game and variant, with the elements it shows."""

    holder = models.ForeignKey(CertificateHolder, on_delete=models.PROTECT, related_name="layouts")
    name = models.CharField(max_length=120, help_text="The design's name or reference.")
    game = models.CharField(max_length=32, choices=game_choices())
    variant = models.CharField(max_length=32, choices=variant_choices())
    elements = models.JSONField(
        default=dict,
        blank=True,
        help_text='What it shows: {"name_or_logo": true, "fire_bet_areas": 12, ...}.',
    )

    class Meta:
        ordering = ["holder", "game", "variant", "name"]
        constraints = [
            models.UniqueConstraint(fields=["holder", "name"], name="layout_name_unique_per_holder")
        ]
        permissions = [
            ("submit_layout", "Can submit a layout"),
            ("approve_layout", "Can approve or reject a layout"),
        ]

    def __str__(self) -> str:
        return f"{self.name} · {game_variant_label(self.game, self.variant)}"

    def get_variant_display(self) -> str:
        """The variant's name in the layout's own game (keys such as "standard" repeat)."""
        return variant_label(self.game, self.variant)

    def refusals(self, options: Mapping[str, object] | None = None) -> list[str]:
        """What the layout lacks; with a table's options, also what its wagers need."""
        if (self.game, self.variant) not in {
            (g.key, v) for g in GAMES_BY_KEY.values() for v, _ in g.variants
        }:
            return [f"{self.game} has no variant {self.variant!r}"]
        if not isinstance(self.elements, dict):
            return ["elements must be a JSON object of element names"]
        return layout_refusals(self.game, self.variant, self.elements, options)
