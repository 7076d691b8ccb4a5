"""A headless Chromium for the browser tests: Debian's chromium and chromedriver.

Nothing is downloaded (the driver's path skips Selenium Manager). Without the two
binaries a test is skipped with a message saying how to install them; with CI=true it
fails, so CI never passes without having run it (tests/services.py does the same).
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import in_ci

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARGUMENTS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


def require_chromium() -> None:
    """Both binaries, or skip (fail under CI) naming what is missing and the fix."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.is_file()]
    if missing:
        message = (
            f"{' and '.join(missing)} not found; install Debian's packages: "
            "apt-get install chromium chromium-driver (.ci/run does)"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A Selenium WebDriver on headless Chromium, with a fresh profile; quit after the test."""
    require_chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium fetch anything
    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in (*ARGUMENTS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(
        service=Service(executable_path=str(CHROMEDRIVER), log_output=str(tmp_path / "driver.log")),
        options=options,
    )
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
