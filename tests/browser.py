"""A headless Chromium for the HTML report tests, driven through chromedriver by `selenium`.

Debian's `chromium` and `chromium-driver` (`make test-deps-browser` installs them), started with every
background fetch off and a new empty profile, with the performance log on: `requests()` lists every
request the page made (CDP `Network.requestWillBeSent`), `console_errors()` every SEVERE console entry.
Nothing here reaches past this machine: the pages are file:// and the tests assert they fetch nothing.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

CHROMIUM = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
CHROMEDRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-default-apps",
         "--disable-extensions", "--no-default-browser-check", "--disable-dev-shm-usage",
         "--window-size=1280,1600")


def _first(paths: tuple[str, ...]) -> str | None:
    return next((p for p in paths if Path(p).exists()), None)


def missing() -> str:
    """Why no browser can be started here ("" when one can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[test]')"
    if _first(CHROMIUM) is None or _first(CHROMEDRIVER) is None:
        return "Debian's chromium and chromium-driver are not installed (make test-deps-browser, as root)"
    return ""


class Browser:
    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.mkdtemp(prefix="stackaudit-chromium-")
        options = Options()
        options.binary_location = _first(CHROMIUM) or ""
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=_first(CHROMEDRIVER) or ""), options=options)
        self.driver.set_page_load_timeout(20)
        self.driver.set_script_timeout(20)
        self.driver.get("about:blank")

    def open(self, path: Path) -> list[dict[str, Any]]:
        """Load a file and return the log entries the load made (the performance log is drained first)."""
        self.driver.get_log("performance")
        self.driver.get_log("browser")
        self.driver.get(path.resolve().as_uri())
        return self.requests()

    def requests(self) -> list[dict[str, Any]]:
        """Every request since the last call: `url`, and `document` (the URL of the page that made it)."""
        out = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                params = message["params"]
                out.append({"url": params["request"].get("url", ""), "document": params.get("documentURL", "")})
        return out

    def console_errors(self) -> list[str]:
        return [e["message"] for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def js_async(self, script: str, *args: Any) -> Any:
        return self.driver.execute_async_script(script, *args)

    def click(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.CSS_SELECTOR, css).click()

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)
