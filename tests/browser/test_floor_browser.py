"""The live floor page in a real browser (issue 9, part 4): headless Chromium loads
/floor/ from the live server, signed in as operations staff, checks what each table shows,
watches a change in the database arrive by polling (no reload), and keeps a screenshot
at .ci/artifacts/floor.png for CI.

The page runs on the wall clock, so the floor is built a little before it.
"""

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from casino import floor_page
from casino.api import throttles
from casino.models import Table
from casino.services.tables import table_suspend
from tests.casino.floor_fixtures import compliant_table, operations
from tests.devices.test_consequences import PAI_GOW_WAGERS, generator_at
from tests.games.round_fixtures import close, opened, place, result, settle, wager

# The live server reads what the test commits. serialized_rollback: start from the migrated
# rows (content types, groups) even after another transactional test has emptied them.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / ".ci" / "artifacts" / "floor.png"
WAIT = 20  # seconds: a poll every 2 s, on a slow CI machine
M = timedelta(minutes=1)
H = timedelta(hours=1)


def floor_build() -> dict[str, Any]:
    """SB-01 open with a settled round (3-4-5) and round 2 taking two wagers; HR-01 open
    with a round taking wagers; CR-01 open on dice due out 6 hours ago; a closed table
    whose number is markup (it must show as text)."""
    now = timezone.now()
    base = now - 2 * H
    sic_bo = compliant_table("sic_bo", number="SB-01", now=base, open_table=True).table
    first = opened(sic_bo, now=base + M)
    place(first, wager("ann", "big", "10"), now=base + 2 * M)
    result(first, "throw", [3, 4, 5], now=base + 3 * M)
    settle(first, now=base + 4 * M)
    second = opened(sic_bo, now=base + 10 * M)
    place(second, wager("ann", "small", "10"), wager("bob", "total:9", "25"), now=base + 11 * M)
    high_roll = compliant_table("high_roll_dice", number="HR-01", now=base, open_table=True).table
    rolling = opened(high_roll, now=base + 20 * M)
    place(rolling, wager("cy", "pip:4", "20"), now=base + 21 * M)
    craps = compliant_table("craps", number="CR-01", now=now - 30 * H, open_table=True).table
    odd = Table.objects.create(
        holder=sic_bo.holder, number="<b>XS-1</b>", game="three_dice_football", variant="standard"
    )
    # PG-01: "no more bets" a minute ago and no number from its generator: waiting on it.
    options = {"starting_position": "rng", "shaker_if_rng_down": True}
    pai_gow = compliant_table(
        "pai_gow", number="PG-01", now=base, options=options, open_table=True
    ).table
    generator = generator_at(pai_gow)
    waiting = opened(pai_gow, now=now - 3 * M)
    place(waiting, *PAI_GOW_WAGERS, now=now - 2 * M)
    close(waiting, now=now - M)
    return {"sic_bo": sic_bo, "second": second, "craps": craps, "odd": odd, "rng": generator}


def sign_in(browser: Any, live_server: Any, client: Client) -> None:
    """Operations staff, signed in through the test client; the session cookie handed to
    the browser (on the live server's own origin first, as cookies need)."""
    user = operations()
    user.is_staff = True
    user.save()
    client.force_login(user)
    browser.get(f"{live_server.url}/static/floor/floor.css")
    browser.add_cookie(
        {
            "name": settings.SESSION_COOKIE_NAME,
            "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
            "path": "/",
        }
    )


def card(browser: Any, number: str) -> Any:
    from selenium.webdriver.common.by import By

    [found] = [
        element
        for element in browser.find_elements(By.CSS_SELECTOR, "article.table-card")
        if element.get_attribute("data-table-number") == number
    ]
    return found


def texts(element: Any, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in element.find_elements(By.CSS_SELECTOR, selector)]


def test_the_floor_page_live_in_chromium(browser: Any, live_server: Any, client: Client):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shows
    from selenium.webdriver.support.ui import WebDriverWait

    floor = floor_build()
    sign_in(browser, live_server, client)
    browser.get(f"{live_server.url}/floor/")
    assert "Casino floor" in browser.title
    # The first poll has drawn the page again when the stamp says "updated".
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.text_to_be_present_in_element((By.ID, "floor-updated"), "updated ")
    )
    assert not browser.find_element(By.ID, "floor-lost").is_displayed()

    sic_bo = card(browser, "SB-01")
    assert sic_bo.find_element(By.CSS_SELECTOR, ".table-number").text == "SB-01"
    assert sic_bo.find_element(By.CSS_SELECTOR, ".game").text == "Sic Bo"
    assert sic_bo.find_element(By.CSS_SELECTOR, ".badge").text.lower() == "open"
    round_text = sic_bo.find_element(By.CSS_SELECTOR, ".round-current").text
    assert "Round 2" in round_text and "Wagering open" in round_text
    assert "2 wagers" in round_text and "$35.00" in round_text
    assert texts(sic_bo, ".set.due-ok .word") == ["IN DATE"]  # upper-cased by the CSS
    [device] = sic_bo.find_elements(By.CSS_SELECTOR, ".device")
    assert "health-stale" in device.get_attribute("class")  # heard from 2 hours ago
    assert "STALE" in device.text and "Sic Bo illumination device" in device.text
    assert device.find_element(By.CSS_SELECTOR, ".dot").value_of_css_property(
        "background-color"
    ) in ("rgba(178, 106, 0, 1)", "rgb(178, 106, 0)")  # amber
    [first] = sic_bo.find_elements(By.CSS_SELECTOR, ".result")
    assert "#1" in first.text and "3-4-5" in first.text and "Settled" in first.text
    href = sic_bo.find_element(By.CSS_SELECTOR, ".table-number").get_attribute("href")
    assert href == f"{live_server.url}/admin/casino/table/{floor['sic_bo'].pk}/change/"

    craps = card(browser, "CR-01")
    assert craps.find_element(By.CSS_SELECTOR, ".game").text == "Craps"
    [overdue] = craps.find_elements(By.CSS_SELECTOR, ".set.due-overdue")
    assert "OVERDUE" in overdue.text and "five dice" in overdue.text
    assert overdue.find_element(By.CSS_SELECTOR, ".word").value_of_css_property(
        "background-color"
    ) in ("rgba(198, 40, 40, 1)", "rgb(198, 40, 40)")  # red
    assert craps.find_element(By.CSS_SELECTOR, ".round .none").text == "None"

    high_roll = card(browser, "HR-01")
    assert "High Roll Dice" in high_roll.find_element(By.CSS_SELECTOR, ".game").text
    assert "Round 1" in high_roll.find_element(By.CSS_SELECTOR, ".round-current").text
    assert len(high_roll.find_elements(By.CSS_SELECTOR, ".device")) == 7  # lock-out + 6 seats

    odd = card(browser, "<b>XS-1</b>")  # markup from the database stays text
    assert odd.find_element(By.CSS_SELECTOR, ".table-number").text == "<b>XS-1</b>"
    assert odd.find_elements(By.CSS_SELECTOR, ".table-number b") == []
    assert odd.find_element(By.CSS_SELECTOR, ".badge").text.lower() == "closed"
    assert "MISSING" in odd.find_element(By.CSS_SELECTOR, ".set.due-missing").text

    pai_gow = card(browser, "PG-01")  # drawn by floor.js: the first poll has come
    [waiting] = pai_gow.find_elements(By.CSS_SELECTOR, ".device-wait-alert")
    assert waiting.get_attribute("role") == "alert"
    assert waiting.find_element(By.CSS_SELECTOR, "h2").text.lower() == "waiting on a device"
    what = waiting.find_element(By.CSS_SELECTOR, ".alert-what").text
    assert what.startswith("Round 1 has waited since ")
    assert f"Pai Gow random number generator {floor['rng'].serial_number} (active)" in what
    assert [w.text[:30] for w in waiting.find_elements(By.CSS_SELECTOR, ".ways-out li")] == [
        "Void the round under § 621a.6(",
        "Mark the generator out of orde",
    ]
    assert waiting.value_of_css_property("border-left-color") in (
        "rgba(198, 40, 40, 1)",
        "rgb(198, 40, 40)",
    )  # red

    nav = [a.text for a in browser.find_elements(By.CSS_SELECTOR, ".floor-nav a")]
    assert nav == ["Admin", "Tables", "Rounds", "Devices", "Hold and dice", "Equipment schedule"]
    summary = browser.find_element(By.ID, "floor-summary").text
    assert "4 open" in summary and "1 closed" in summary and "1 set overdue" in summary
    assert "1 round waiting on a device" in summary

    # A change on the floor reaches the page by polling alone: the marker survives.
    browser.execute_script("window.floorMarker = 'no reload';")
    now = timezone.now()
    result(floor["second"], "throw", [1, 2, 3], now=now)
    settle(floor["second"], now=now)
    table_suspend(floor["sic_bo"], by=operations(), now=now)
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: (
            card(b, "SB-01").find_element(By.CSS_SELECTOR, ".badge").text.lower() == "suspended"
        )
    )
    assert browser.execute_script("return window.floorMarker;") == "no reload"
    sic_bo = card(browser, "SB-01")
    assert sic_bo.find_element(By.CSS_SELECTOR, ".round .none").text == "None"
    newest = sic_bo.find_elements(By.CSS_SELECTOR, ".result")[0].text
    assert "#2" in newest and "1-2-3" in newest
    assert "1 suspended" in browser.find_element(By.ID, "floor-summary").text

    # The whole page, for CI's artefacts: a viewport as tall as the page.
    height = browser.execute_script("return document.documentElement.scrollHeight;")
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1400, "height": min(int(height), 6000), "deviceScaleFactor": 1, "mobile": False},
    )
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOT))
    data = SCREENSHOT.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


def test_a_failed_poll_shows_connection_lost(browser: Any, live_server: Any, client: Client):
    """Signed out behind the page's back: the next poll fails and the page says so."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shows
    from selenium.webdriver.support.ui import WebDriverWait

    compliant_table("sic_bo", number="SB-01", now=timezone.now() - H, open_table=True)
    sign_in(browser, live_server, client)
    browser.get(f"{live_server.url}/floor/")
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.text_to_be_present_in_element((By.ID, "floor-updated"), "updated ")
    )
    client.logout()  # the session the browser holds is gone
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.visibility_of_element_located((By.ID, "floor-lost"))
    )
    notice = browser.find_element(By.ID, "floor-lost").text
    assert "Connection lost" in notice and "HTTP 401" in notice
    sign_in_again = browser.find_element(By.ID, "floor-sign-in")
    assert sign_in_again.is_displayed()
    assert sign_in_again.get_attribute("href").endswith("/admin/login/?next=/floor/")
    assert "SB-01" in card(browser, "SB-01").text  # the last floor stays on show


def test_a_poll_over_the_user_s_budget_waits_as_the_429_says(
    browser: Any, live_server: Any, client: Client, settings: Any, monkeypatch: pytest.MonkeyPatch
):
    """Every screen signed in as one user shares the user's budget: past it, the page
    says so, keeps the last floor, and waits for Retry-After (not its 2 s) to poll again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shows
    from selenium.webdriver.support.ui import WebDriverWait

    # 15 s into a window of its own: the 429 says 45 s.
    window = 60.0 * random.randrange(10**8, 10**9)
    monkeypatch.setattr(throttles, "clock", lambda: window + 15)
    compliant_table("sic_bo", number="SB-01", now=timezone.now() - H, open_table=True)
    sign_in(browser, live_server, client)
    browser.get(f"{live_server.url}/floor/")
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.text_to_be_present_in_element((By.ID, "floor-updated"), "updated ")
    )
    settings.CASINO_THROTTLE_USER = (1, 60)  # the page's polls so far have spent it
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.visibility_of_element_located((By.ID, "floor-lost"))
    )
    notice = browser.find_element(By.ID, "floor-lost").text
    assert "Too many requests from this account" in notice and "HTTP 429" in notice
    assert "Retrying in 45 s." in notice  # the window's end, not the poll's 2 s
    assert not browser.find_element(By.ID, "floor-sign-in").is_displayed()
    assert "SB-01" in card(browser, "SB-01").text  # the last floor stays on show


def test_the_statistics_badges_are_drawn_and_kept(
    browser: Any, live_server: Any, client: Client, monkeypatch: pytest.MonkeyPatch
):
    """The hold and dice badges (issue 23): drawn by the page, kept through every redraw
    of the snapshot, and replaced when their own poll (every minute; 1 s here) changes."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shows
    from selenium.webdriver.support.ui import WebDriverWait

    floor = floor_build()
    sic_bo = str(floor["sic_bo"].pk)
    badges = {
        sic_bo: [
            {
                "kind": "hold",
                "text": "hold out of band",
                "detail": "z = -5.64 <b>x</b>",
                "url": "/admin/casino/table/1/hold/",
            }
        ]
    }
    answer = {"at": "", "day": "", "tables": badges, "report_url": ""}
    monkeypatch.setattr(floor_page, "statistics_read", lambda: answer)
    monkeypatch.setattr(floor_page, "STATISTICS_SECONDS", 1)
    sign_in(browser, live_server, client)
    browser.get(f"{live_server.url}/floor/")
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        shows.text_to_be_present_in_element((By.ID, "floor-updated"), "updated ")
    )
    badge = card(browser, "SB-01").find_element(By.CSS_SELECTOR, ".stat-badge.stat-hold")
    assert "hold out of band" in badge.text and "z = -5.64 <b>x</b>" in badge.text  # text
    link = badge.find_element(By.CSS_SELECTOR, "a").get_attribute("href")
    assert link == f"{live_server.url}/admin/casino/table/1/hold/"
    assert card(browser, "CR-01").find_elements(By.CSS_SELECTOR, ".stat-badge") == []
    # The dice turn out loaded: the next statistics poll draws that badge too.
    badges[sic_bo] = badges[sic_bo] + [
        {
            "kind": "dice",
            "text": "dice look loaded",
            "detail": "set D-1: p = 1e-09",
            "url": "javascript:alert(1)",  # never a link off the site
        }
    ]
    WebDriverWait(browser, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: card(b, "SB-01").find_elements(By.CSS_SELECTOR, ".stat-badge.stat-dice")
    )
    dice = card(browser, "SB-01").find_element(By.CSS_SELECTOR, ".stat-badge.stat-dice a")
    assert dice.text == "dice look loaded" and dice.get_attribute("href") is None
