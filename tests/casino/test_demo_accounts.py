"""Issue 19, point 2: the demo's accounts cannot sign in in production, however they got
into the database (casino/demo_accounts.py)."""

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone

from casino.demo import (
    DEMO_INTEGRATORS,
    DEMO_PASSWORD,
    DEMO_STAFF,
    DEMO_USERNAME,
    INTEGRATOR_USERNAME,
    OPS_USERNAME,
    demo_floor_load,
)
from casino.demo_accounts import DEMO_USERNAMES, demo_accounts_disable
from casino.services.api_tokens import token_issue

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def demo_loaded():
    """A database where the demo was loaded (in development), as in the issue."""
    return demo_floor_load()


def test_the_marked_usernames_are_exactly_the_loaders_logins(demo_loaded):
    assert {DEMO_USERNAME, *DEMO_STAFF, *DEMO_INTEGRATORS} == DEMO_USERNAMES
    assert set(User.objects.values_list("username", flat=True)) == DEMO_USERNAMES


def test_demo_signs_in_in_development_and_not_in_production(demo_loaded, client, settings):
    # The control: the same request signs in outside production.
    done = client.post("/admin/login/", {"username": "demo", "password": DEMO_PASSWORD})
    assert done.status_code == 302 and client.session.get("_auth_user_id")
    client.logout()
    settings.PRODUCTION = True
    for username in (DEMO_USERNAME, OPS_USERNAME):
        assert authenticate(username=username, password=DEMO_PASSWORD) is None
        done = client.post("/admin/login/", {"username": username, "password": DEMO_PASSWORD})
        assert done.status_code == 200  # the form again, with its error
        assert "_auth_user_id" not in client.session


def test_a_demo_account_given_a_new_password_is_still_refused_in_production(demo_loaded, settings):
    """Someone changed demo-ops' password: the account is still the demo's, by its name."""
    ops = User.objects.get(username=OPS_USERNAME)
    ops.set_password("a-password-nobody-published-9")
    ops.save()
    assert authenticate(username=OPS_USERNAME, password="a-password-nobody-published-9")
    settings.PRODUCTION = True
    assert authenticate(username=OPS_USERNAME, password="a-password-nobody-published-9") is None


def test_a_session_opened_before_production_is_refused_at_its_next_request(
    demo_loaded, client, settings
):
    client.post("/admin/login/", {"username": "demo", "password": DEMO_PASSWORD})
    assert client.get("/admin/").status_code == 200
    settings.PRODUCTION = True
    done = client.get("/admin/")
    assert done.status_code == 302 and done["Location"].startswith("/admin/login/")


def test_a_demo_integrators_token_is_refused_in_production(demo_loaded, client, settings):
    ops = User.objects.get(username=OPS_USERNAME)
    _, key = token_issue(
        user=User.objects.get(username=INTEGRATOR_USERNAME),
        holder=demo_loaded,
        name="demo",
        by=ops,
        now=timezone.now(),
    )
    auth = {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    assert client.get("/api/v1/tables/", **auth).status_code == 200
    settings.PRODUCTION = True
    done = client.get("/api/v1/tables/", **auth)
    assert done.status_code == 401
    assert "a demo account: refused in production" in done.content.decode()


def test_the_published_password_is_refused_for_anyone_in_production(settings):
    """A copy of a demo account under another name still carries the known password."""
    User.objects.create_user("alvarez", password=DEMO_PASSWORD)
    assert authenticate(username="alvarez", password=DEMO_PASSWORD) is not None
    settings.PRODUCTION = True
    assert authenticate(username="alvarez", password=DEMO_PASSWORD) is None
    User.objects.create_user("okafor", password="a-password-nobody-published-9")
    assert authenticate(username="okafor", password="a-password-nobody-published-9")


def test_migrate_in_production_disables_every_demo_account_and_no_other(demo_loaded, settings):
    User.objects.create_user("okafor", password="a-password-nobody-published-9")
    call_command("migrate", verbosity=0)  # development: nothing changes
    assert User.objects.filter(is_active=False).count() == 0
    settings.PRODUCTION = True
    call_command("migrate", verbosity=0)  # what every release runs
    inactive = set(User.objects.filter(is_active=False).values_list("username", flat=True))
    assert inactive == DEMO_USERNAMES
    assert User.objects.get(username="okafor").is_active
    assert demo_accounts_disable() == 0  # a second run finds nothing left to do


def test_the_demo_loader_refuses_production_loudly(settings):
    settings.PRODUCTION = True
    with pytest.raises(CommandError, match="not in DJANGO_ENV=production"):
        call_command("load_demo_floor")
    assert not User.objects.exists()
