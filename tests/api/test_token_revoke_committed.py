"""A revocation committed for real (api_token_revoke, no test transaction around it) stops
a token whose pass and user the shared cache holds: the version it bumps on commit does
(casino/versioned.py). Its own module: a module-scoped floor's open transaction would keep
the cache out of the way."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from casino.api import auth
from casino.api.overview import FloorView
from casino.services.api_tokens import token_issue
from casino.versioned import read
from tests.api.conftest import API, bearer, error_of
from tests.casino.floor_fixtures import holder_get, operations, staff


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_revocation_that_commits_stops_a_token_the_cache_holds():
    """Committed for real (no test transaction around it): the token's pass and user are in
    the shared cache, and only the version the revocation bumps on commit stops them."""
    holder = holder_get("Committed Casino")
    token, key = token_issue(
        user=staff("ian_integrator", "integrator"),
        holder=holder,
        name="screens",
        by=operations(),
        now=timezone.now(),
    )
    a = bearer(key)
    for _ in range(2):
        assert a.get(f"{API}/tables/").status_code == 200
        assert a.get(f"{API}/floor/").status_code == 200
    pass_scope = auth.token_pass_scope(token.key_id, FloorView.read_permission)
    found = read(auth.TOKENS.keys(pass_scope) + auth.TOKENS.keys(token.key_id), "test")
    assert len(found) == 3  # the version, the pass and the token: served from the cache
    call_command("api_token_revoke", str(token.pk), "--by", "olive_ops", stdout=StringIO())
    error_of(a.get(f"{API}/floor/"), 401, "authentication_failed")
    refused = error_of(a.get(f"{API}/tables/"), 401, "authentication_failed")
    assert refused["detail"] == "the token was revoked"
