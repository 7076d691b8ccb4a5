"""Email settings from the environment (docs/deploy.md, Email): the console in
development, SMTP when DJANGO_EMAIL_HOST is set; CASINO_SITE_URL starts every link."""

import pytest

from tests.casino.test_settings import manage, production_env

SHOW = (
    "from django.conf import settings as s;"
    "print(s.EMAIL_BACKEND.rsplit('.', 2)[-2], s.EMAIL_HOST or '-', s.EMAIL_PORT,"
    " s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.DEFAULT_FROM_EMAIL, s.CASINO_SITE_URL)"
)


def test_development_writes_email_to_the_console_and_links_to_the_development_server(tmp_path):
    done = manage("shell", "--no-imports", "-c", SHOW, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "console", "-", "587", "True", "False", "casino-floor@localhost", "http://127.0.0.1:8000",
    ]  # fmt: skip


def test_an_smtp_server_from_the_environment(tmp_path):
    done = manage(
        "shell", "--no-imports", "-c", SHOW,
        CASINO_DATA_DIR=str(tmp_path),
        DJANGO_EMAIL_HOST="smtp.example.com",
        DJANGO_EMAIL_USE_SSL="true",
        DJANGO_DEFAULT_FROM_EMAIL="floor@casino.example.com",
        CASINO_SITE_URL="https://floor.casino.example.com/",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "smtp", "smtp.example.com", "465", "False", "True", "floor@casino.example.com",
        "https://floor.casino.example.com",
    ]  # fmt: skip


def test_production_links_to_its_first_allowed_host_by_default(tmp_path):
    env = production_env(tmp_path, DJANGO_ALLOWED_HOSTS=".casino.example.com,other.example.com")
    done = manage("shell", "--no-imports", "-c", SHOW, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "https://casino.example.com"


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"CASINO_SITE_URL": "floor.example.com"}, "CASINO_SITE_URL='floor.example.com'"),
        (
            {"DJANGO_EMAIL_USE_SSL": "on", "DJANGO_EMAIL_USE_TLS": "on"},
            "DJANGO_EMAIL_USE_SSL and DJANGO_EMAIL_USE_TLS are both on",
        ),
    ],
)
def test_a_bad_email_setting_is_refused_naming_it(tmp_path, overrides, problem):
    done = manage("check", CASINO_DATA_DIR=str(tmp_path), **overrides)
    assert done.returncode != 0
    assert problem in done.stderr
