"""``manage.py par``: the same PAR sheets as ``python -m games.par``."""

from django.core.management.base import BaseCommand, CommandError

from games.par import par_document, parse_option_args, render
from games.rules.core import MalformedInput


class Command(BaseCommand):
    help = "Print the exact PAR sheet of a game under Rules Submission options."

    def add_arguments(self, parser):
        parser.add_argument("game")
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, game: str, option: list[str], as_json: bool, **options):
        try:
            document = par_document(game, parse_option_args(option))
        except MalformedInput as error:
            raise CommandError(str(error)) from None
        self.stdout.write(render(document, as_json=as_json))
