"""Headless Chromium through WebDriver (selenium + Debian's chromium-driver), shared by the console's
browser test (console_test.py) and its benchmark row (bench/rows/r11_console.py)."""
import json
import os
import shutil

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(lang="en-US", width=1440, height=1000):
    """A fresh headless Chromium whose network log (DevTools performance events) the caller can read."""
    options = webdriver.ChromeOptions()
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        options.binary_location = binary
    # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                f"--lang={lang}", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--metrics-recording-only", "--no-default-browser-check"]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path), options=options)


def network_events(driver):
    """DevTools Network events since the last call: (method, params)."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method", "").startswith("Network."):
            out.append((message["method"], message.get("params", {})))
    return out


def requested_urls(events):
    return [p["request"]["url"] for m, p in events if m == "Network.requestWillBeSent"]


def transferred_bytes(events):
    """Bytes on the wire (headers and compressed bodies) of the finished requests."""
    return sum(p.get("encodedDataLength", 0) for m, p in events if m == "Network.loadingFinished")


def save(driver, directory, name):
    if directory:
        os.makedirs(directory, exist_ok=True)
        driver.execute_script("document.getElementById('toast')?.classList.remove('show', 'error')")   # a passing notice is not the screen
        driver.save_screenshot(os.path.join(directory, name + ".png"))
