#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    """Run administrative tasks; one that needs a database nobody has set up is refused in
    one line (casino/management/database_ready.py)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    from casino.management.database_ready import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
