"""Rules Submissions (§ 601a.2): a certificate holder's choices for one game, versioned."""

from datetime import datetime

from django.db import models
from django.db.models import Q

from casino.models.holders import CertificateHolder
from casino.models.lifecycle import Filed, Lifecycle
from casino.rules.submissions import submission_refusals
from games.rules.catalog import GAMES_BY_KEY, game_choices


class RulesSubmission(Filed):
    """One version of a holder's Rules Submission for a game.

    An approved version is in force from its `effective_at` until the next approved
    version's; so at any moment at most one is in force per holder and game, and which
    one was in force at any past moment never changes (docs/regulations.md).
    """

    holder = models.ForeignKey(
        CertificateHolder, on_delete=models.PROTECT, related_name="rules_submissions"
    )
    game = models.CharField(max_length=32, choices=game_choices())
    version = models.PositiveIntegerField()
    variants = models.JSONField(
        default=list, help_text='The variants covered, e.g. ["10_dice", "6_dice"].'
    )
    table_types = models.JSONField(
        default=list, help_text='The kinds of table covered: "manual", "hybrid", "electronic".'
    )
    options = models.JSONField(
        default=dict, blank=True, help_text="The game engine's options (docs/scenarios.md)."
    )
    supersedes = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="superseded_by"
    )
    effective_at = models.DateTimeField(
        null=True, blank=True, help_text="When an approved version takes force."
    )
    par_sheets = models.JSONField(
        default=dict, blank=True, help_text="House edges computed when it was submitted."
    )

    class Meta:
        ordering = ["holder", "game", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["holder", "game", "version"], name="rules_submission_version_unique"
            ),
            models.UniqueConstraint(
                fields=["holder", "game", "effective_at"],
                condition=Q(status="approved"),
                name="rules_submission_one_in_force_per_moment",
            ),
        ]
        permissions = [
            ("submit_rulessubmission", "Can submit a Rules Submission"),
            ("approve_rulessubmission", "Can approve or reject a Rules Submission"),
        ]

    def __str__(self) -> str:
        return f"{self.holder} · {GAMES_BY_KEY[self.game].name} v{self.version}"

    def refusals(self) -> list[str]:
        """What the engines and the chapters refuse in these choices."""
        return submission_refusals(self.game, self.variants, self.table_types, self.options)

    @classmethod
    def in_force(
        cls, holder: CertificateHolder | int, game: str, at: datetime
    ) -> "RulesSubmission | None":
        """The approved version in force at `at`, or None (its holder read with it: the
        refusals name it). `holder` may be the holder's id."""
        holder_id = holder if isinstance(holder, int) else holder.pk
        return (
            cls.objects.select_related("holder")
            .filter(holder_id=holder_id, game=game, status=Lifecycle.APPROVED, effective_at__lte=at)
            .order_by("-effective_at")
            .first()
        )
