"""Measures the web console in headless Chromium for bench/rows/r11_console.py:
  python measure.py <base-url> <admin-or-master-key> <app-id> [repeats]
prints one JSON object: the first load's bytes on the wire (a fresh browser: the sign-in page, signing in,
and the compose screen with everything it fetched, compressed where the browser accepts it) and the
compose screen's time to interactive (from navigation start to the console's `herald:interactive:compose`
mark, a full page load with a session), median of `repeats`, plus the time to the first audience count."""
import json
import statistics
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from browser import chromium, network_events, transferred_bytes

base, key, app_id = sys.argv[1:4]
repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 5


def mark(driver, name, timeout=120):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: d.execute_script("const e = performance.getEntriesByName(arguments[0]); return e.length ? e[0].startTime : null", name))


driver = chromium()
try:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    network_events(driver)   # start from nothing
    driver.get(base + "/console")
    box = WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[name=key]"))[0]
    box.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "form.signin button[type=submit]").click()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "form.compose-form"))
    if d := driver.find_elements(By.CSS_SELECTOR, "select.app-picker"):
        Select(d[0]).select_by_value(app_id)
    mark(driver, "herald:interactive:compose")
    time.sleep(1)   # let the screen's own requests finish
    first_load = transferred_bytes(network_events(driver))

    tti, audience = [], []
    for _ in range(repeats):
        driver.get(f"{base}/console?run={len(tti)}#/compose")   # a new URL: a full page load, with the session
        tti.append(mark(driver, "herald:interactive:compose"))
        driver.find_element(By.CSS_SELECTOR, "input[name=title]").send_keys("Hello")
        typed = driver.execute_script("return performance.now()")
        audience.append(mark(driver, "herald:audience", timeout=300) - typed)
    print(json.dumps({"firstLoadBytes": first_load, "composeInteractiveMs": statistics.median(tti), "composeInteractiveAllMs": tti,
                      "audienceCountMs": statistics.median(audience)}))
finally:
    driver.quit()
