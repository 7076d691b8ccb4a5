"""Store the PAR sheets of every Rules Submission past draft that has none (run at deploy,
after migrate), so the API only ever reads them."""

import time

from django.core.management.base import BaseCommand

from casino.services.par import submission_par_fill, submissions_without_par


class Command(BaseCommand):
    help = (
        "Compute and store the PAR sheets of every submitted, approved or rejected Rules "
        "Submission that has none (versions stored before sheets were kept). Idempotent."
    )

    def handle(self, *args, **options) -> None:
        missing = submissions_without_par()
        started = time.monotonic()
        filled = sum(submission_par_fill(pk) for pk in missing)
        self.stdout.write(
            f"PAR sheets stored for {filled} of {len(missing)} Rules Submissions without "
            f"them ({time.monotonic() - started:.1f} s)"
        )
