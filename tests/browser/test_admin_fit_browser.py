"""The pages operations staff and compliance officers use every day, in Chromium at 1400 and
1024 px: on the demo floor, signed in through the admin's login form as
demo-compliance and as demo-ops, no page is wider than the window, no list scrolls sideways
inside its own box (the admin's list has `overflow-x: auto`, which would hide a too-wide
table from the page's width), no row of a list is a tower, and no two columns share a
heading. A screenshot of each page at each width is kept in .ci/artifacts/fit/. And a
compliance officer records the overdue MC-01's changeout from the equipment schedule, in
one step, the new set the reserve's.
"""

from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from casino.demo import OVERDUE_TABLE, demo_floor_load
from casino.demo_accounts import COMPLIANCE_USERNAME, DEMO_PASSWORD, OPS_USERNAME
from casino.models import SetInPlay, Table

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".ci" / "artifacts" / "fit"
WIDTHS = (1400, 1024)
# A row of a list no taller than five lines of text: the Tables list's equipment took ten
# (273 px at 1400, 325 px at 1024) before; a Pai Gow table's two sets take two lines now.
TALLEST_ROW = 110


def pages(sic_bo: Table) -> dict[str, str]:
    """Each page by the name of its screenshot."""
    return {
        "tables": "/admin/casino/table/",
        "table-page": f"/admin/casino/table/{sic_bo.pk}/change/",
        "equipment-schedule": "/admin/casino/setinplay/schedule/",
        "sets-in-play": "/admin/casino/setinplay/",
        "equipment-sets": "/admin/casino/equipmentset/",
        "rounds": "/admin/games/round/",
        "devices": "/admin/devices/device/",
        "device-events": "/admin/devices/deviceevent/",
        "rules-submissions": "/admin/casino/rulessubmission/",
        "layouts": "/admin/casino/layout/",
        "hold-report": f"/admin/casino/table/{sic_bo.pk}/hold/",
        "hold-and-dice": "/admin/casino/table/statistics/",
        "compliance-report": f"/admin/casino/table/{sic_bo.pk}/report/",
        "floor": "/floor/",
    }


# What the page measures of itself: its width, the window's, any list wider than its box,
# the tallest row of the list and the list's headings.
MEASURE = """
const results = document.querySelector('#changelist-form .results');
const rows = [...document.querySelectorAll('#result_list tbody tr')];
return {
  page: document.documentElement.scrollWidth,
  window: window.innerWidth,
  list: results ? [results.scrollWidth, results.clientWidth] : null,
  tallest: Math.max(0, ...rows.map(r => r.getBoundingClientRect().height)),
  headings: [...document.querySelectorAll('#result_list thead th')]
    .map(th => th.innerText.replace(/^\\d+\\s*/, '').trim().toLowerCase())
    .filter(text => text),
};
"""


def sign_in(browser: Any, live_server: Any, username: str) -> None:
    """Through the admin's own login form, as a person would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.delete_all_cookies()
    browser.get(f"{live_server.url}/admin/login/")
    browser.find_element(By.NAME, "username").send_keys(username)
    browser.find_element(By.NAME, "password").send_keys(DEMO_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    # The next page may still be loading when click() returns (a busy machine): wait for it.
    signed_in = WebDriverWait(browser, 15).until(
        lambda b: (
            b.find_elements(By.ID, "user-tools") or b.find_elements(By.CSS_SELECTOR, ".errornote")
        )
    )
    assert browser.find_elements(By.ID, "user-tools"), f"{username} is not signed in: {signed_in}"


def test_the_daily_pages_fit_1400_and_1024_px(browser: Any, live_server: Any):
    """Both roles that work in the admin every day, on one floor (loading the floor with
    its history is most of this test's time: once, not once a role)."""
    from selenium.webdriver.common.by import By

    demo_floor_load(timezone.now(), history=True)  # the statistics' charts have days to draw
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for username in (COMPLIANCE_USERNAME, OPS_USERNAME):
        sign_in(browser, live_server, username)
        for width in WIDTHS:
            browser.set_window_size(width, 1000)
            for name, url in pages(Table.objects.get(number="SB-01")).items():
                browser.get(f"{live_server.url}{url}")
                assert browser.find_elements(By.ID, "content") or name == "floor", (name, url)
                assert "Forbidden" not in browser.title and "error" not in browser.title.lower()
                seen = browser.execute_script(MEASURE)
                shot = ARTIFACTS / f"{username}-{width}-{name}.png"
                assert browser.save_screenshot(str(shot))
                where = f"{name} at {width} px as {username}"
                assert seen["window"] == width, where
                if seen["page"] > seen["window"]:
                    problems.append(f"{where}: the page is {seen['page']} px wide")
                if seen["list"] and seen["list"][0] > seen["list"][1]:
                    problems.append(
                        f"{where}: the list is {seen['list'][0]} px in {seen['list'][1]}"
                    )
                if seen["tallest"] > TALLEST_ROW:
                    problems.append(f"{where}: a row is {seen['tallest']:.0f} px tall")
                headings = seen["headings"]
                if len(set(headings)) != len(headings):
                    problems.append(f"{where}: headings repeat: {headings}")
        shots = list(ARTIFACTS.glob(f"{username}-*.png"))
        assert len(shots) == len(WIDTHS) * len(pages(Table())), username
    assert not problems, "\n".join(problems)


def test_a_compliance_officer_records_the_overdue_changeout_from_the_schedule(
    browser: Any, live_server: Any
):
    """58 Pa. Code § 623a.7(d): MC-01's dice, past their 24 hours, come out; the schedule's
    row offers a set from the reserve and one click records the changeout."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    demo_floor_load(timezone.now())
    table = Table.objects.get(number=OVERDUE_TABLE)
    old = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    sign_in(browser, live_server, COMPLIANCE_USERNAME)
    browser.set_window_size(1400, 1000)
    browser.get(f"{live_server.url}/admin/casino/setinplay/schedule/")
    row = browser.find_element(By.CSS_SELECTOR, f'tr[data-table="{OVERDUE_TABLE}"]')
    assert row.get_attribute("data-state") == "overdue"
    offered = Select(
        browser.find_element(By.CSS_SELECTOR, f'select[data-new-set="{OVERDUE_TABLE} five_dice"]')
    ).first_selected_option.text
    assert offered.startswith("R-5D-"), offered  # a reserve set of the same kind
    browser.find_element(By.CSS_SELECTOR, f'[data-changeout="{OVERDUE_TABLE} five_dice"]').click()

    message = browser.find_element(By.CSS_SELECTOR, ".messagelist").text
    assert OVERDUE_TABLE in message, message
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "schedule-after-changeout.png"))
    old.refresh_from_db()
    assert old.removed_at is not None
    new = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    assert new.equipment_set.identifier == offered.split()[0]
    assert (
        browser.find_element(By.CSS_SELECTOR, f'tr[data-table="{OVERDUE_TABLE}"]').get_attribute(
            "data-state"
        )
        == "in_date"
    )
