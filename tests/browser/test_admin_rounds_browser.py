"""The Rounds list at a 1400 px window in Chromium (issue 22): the "Open a round" form,
floated beside the list, squeezed it to about 350 px; as a row above it, the list takes
the page's width."""

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from gaming.rounds import round_open
from tests.browser.test_floor_browser import sign_in
from tests.casino.floor_fixtures import compliant_table, operations

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_the_rounds_list_takes_the_width_of_a_1400_px_window(
    browser: Any, live_server: Any, client: Client
):
    from selenium.webdriver.common.by import By

    recently = timezone.now() - timedelta(hours=1)
    for game in ("high_roll_dice", "sic_bo"):
        table = compliant_table(game, now=recently, open_table=True).table
        round_open(table, by=operations(), now=timezone.now())
    sign_in(browser, live_server, client)
    browser.get(f"{live_server.url}/admin/games/round/")
    window = browser.execute_script("return window.innerWidth")
    # The page's own width: less a vertical scroll bar when the navigation runs longer
    # than the window (it grows with the admin's models).
    page = browser.execute_script("return document.documentElement.clientWidth")
    form = browser.find_element(By.CSS_SELECTOR, "form.open-round").rect
    changelist = browser.find_element(By.ID, "changelist").rect
    filters = browser.find_element(By.ID, "changelist-filter").rect
    assert window == 1400  # the browser fixture's window
    # Measured: floated beside the form, the list and its filters ended at x = 1012 and
    # the list had 433 px (its table overflowing); now they reach the window's edge.
    assert changelist["x"] + changelist["width"] >= page - 50, (changelist, page)
    assert filters["x"] + filters["width"] >= page - 50, (filters, page)
    # The filters in a bar above the list (casino/static/casino/admin-fit.css), the list
    # below them the page's width.
    results = browser.find_element(By.ID, "result_list").rect
    assert filters["y"] + filters["height"] <= results["y"], (filters, results)
    assert changelist["width"] >= 900, changelist
    assert form["y"] + form["height"] <= changelist["y"], (form, changelist)  # above it
