"""The web console in a real browser (headless Chromium through WebDriver) against a running `herald serve`
with its built-in simulator. ConsoleBrowserTests (Swift) starts the server, a simulated phone and the data,
then runs this with:  python console_test.py <base-url> <json-of-fixtures> [screenshot-dir]
Exit status 0 when every check passed; each failed check prints why."""
import json
import sys
import time
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from browser import chromium, network_events, requested_urls, save

base, fixtures = sys.argv[1], json.loads(sys.argv[2])
shots = sys.argv[3] if len(sys.argv) > 3 else None
WAIT = 45   # generous: the suite runs on two loaded cores


def step(text):
    print(f"- {text}", flush=True)


def wait(driver, condition, what, timeout=WAIT):
    try:
        # The page re-renders parts of itself (the preview after each dry run): an element found a moment ago
        # may be gone; the condition is simply tried again.
        return WebDriverWait(driver, timeout, poll_frequency=0.2, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
    except TimeoutException:
        save(driver, shots and shots + "/failed", "failed")
        raise AssertionError(f"timed out waiting for {what}; page: {driver.find_element(By.TAG_NAME, 'body').text[:1500]}")


def css(driver, selector):
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def visible_text(driver, selector):
    el = css(driver, selector)
    return el.text if el is not None and el.is_displayed() else ""


def attribute(driver, selector, name):
    el = css(driver, selector)
    return el.get_attribute(name) if el is not None else None


def field_error(driver, name):
    return visible_text(driver, f'[data-field="{name}"] .field-error')


def click(driver, selector, what):
    """Clicks, finding the element again if the page replaced it in between."""
    def attempt(d):
        el = css(d, selector)
        if el is None:
            return False
        el.click()
        return True
    wait(driver, attempt, what)


def choose_variant(driver, locale):
    """The preview's variant picker is rebuilt after every dry run: chosen in one script, not found then clicked."""
    driver.execute_script("const s = document.querySelector('.preview select'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))", locale)


def sign_in(driver, key):
    driver.get(base + "/console")
    box = wait(driver, lambda d: css(d, "input[name=key]"), "the sign-in form")
    box.clear(); box.send_keys(key)
    css(driver, "form.signin button[type=submit]").click()


def go(driver, hash_):
    driver.execute_script("location.hash = arguments[0]", hash_)


def main():
    # The headers of the page itself: the strict policy, no framing, no sniffing.
    with urllib.request.urlopen(base + "/console") as r:
        csp = r.headers.get("content-security-policy", "")
        assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp, csp
        assert r.headers.get("x-frame-options") == "DENY", r.headers
    step("CSP and framing headers present")

    driver = chromium("en-US")
    try:
        run(driver)
        # Everything the browser asked for came from the console's own origin.
        urls = requested_urls(network_events(driver))
        foreign = [u for u in urls if not (u.startswith(base + "/") or u.startswith("data:") or u.startswith("blob:"))]
        assert urls and not foreign, f"requests left the origin: {foreign[:5]}"
        violations = [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
        assert not violations, f"CSP violations: {violations[:3]}"
        step(f"{len(urls)} requests, all to {base}; no CSP violation")
    finally:
        driver.quit()
    print("PASS", flush=True)


def run(driver):
    sign_in(driver, "hk_admin_wrong-key")
    wait(driver, lambda d: field_error(d, "key"), "the wrong key's error next to the key field")
    assert not css(driver, "header.top"), "a wrong key must not sign in"
    step(f"wrong key refused: {field_error(driver, 'key')!r}")
    save(driver, shots, "signin")

    sign_in(driver, fixtures["adminKey"])
    wait(driver, lambda d: css(d, "header.top nav"), "the console after sign-in")
    cookies = driver.get_cookies()
    assert all(c.get("httpOnly") for c in cookies if c["name"] == "herald_session"), cookies
    stored = driver.execute_script("return JSON.stringify(Object.assign({}, localStorage)) + JSON.stringify(Object.assign({}, sessionStorage)) + document.cookie")
    assert fixtures["adminKey"] not in stored and "herald_session" not in stored, "the key or session is readable by scripts"
    step("signed in as admin; the session cookie is HttpOnly and the key is stored nowhere the page can read")
    Select(css(driver, "select.app-picker")).select_by_value(fixtures["appId"])

    # Compose: to a tag, with a Chinese variant and a badge increment.
    go(driver, "#/compose")
    wait(driver, lambda d: css(d, "form.compose-form"), "the compose form")
    Select(css(driver, "select[name=mode]")).select_by_value("tags")
    css(driver, "input[name=tagsAny]").send_keys(fixtures["tag"])
    css(driver, "input[name=title]").send_keys("Hello")
    css(driver, "textarea[name=body]").send_keys("The console works")
    driver.find_element(By.XPATH, "//button[normalize-space()='Add localized variant']").click()
    css(driver, "input[name=vlocale]").send_keys("zh-Hans")
    css(driver, "input[name=vtitle]").send_keys("你好")
    css(driver, "textarea[name=vbody]").send_keys("控制台可以用了")
    Select(css(driver, "select[name=badgeMode]")).select_by_value("increment")
    wait(driver, lambda d: "1 device" in visible_text(d, ".audience"), "the audience count (dry run) of the tag")
    wait(driver, lambda d: d.execute_script("return [...document.querySelectorAll('.preview select option')].some(o => o.value === 'zh-Hans')"),
         "the zh-Hans variant in the preview")
    choose_variant(driver, "zh-Hans")
    # The preview follows the form through a debounced dry run: wait for the one that has every change (the
    # badge select came last), not just the first with the variant.
    wait(driver, lambda d: "你好" in css(d, "pre.payload").text and '"badge"' in css(d, "pre.payload").text,
         "the zh-Hans payload with the badge")
    payload = json.loads(css(driver, "pre.payload").text)
    assert payload["aps"]["alert"]["title"] == "你好" and payload["aps"]["badge"] == 1, payload
    size = visible_text(driver, "p.size")
    compact = len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())
    assert "4,096" in size and str(compact) in size.replace(",", ""), (size, compact)
    assert "apns-topic" in css(driver, "dl.headers").text
    assert "你好" in css(driver, ".preview .phone").text
    step(f"preview: payload {size!r}, lock screen shows the variant, headers shown")

    # A value the API refuses: the error appears next to its field, named by the error's `field`.
    relevance = css(driver, "input[name=relevanceScore]")
    driver.execute_script("arguments[0].closest('details').open = true", relevance)
    relevance.send_keys("5")
    wait(driver, lambda d: field_error(d, "content.relevanceScore"), "the relevance score error next to its field")
    assert relevance.get_attribute("aria-invalid") == "true"
    step(f"API validation error next to its field: {field_error(driver, 'content.relevanceScore')!r}")
    save(driver, shots, "compose-error")
    relevance.clear(); relevance.send_keys("0.5")
    wait(driver, lambda d: not field_error(d, "content.relevanceScore") and "1 device" in visible_text(d, ".audience"), "the error to clear")
    choose_variant(driver, "")
    driver.execute_script("window.scrollTo(0, 0)")
    save(driver, shots, "compose")

    css(driver, "#send").click()
    wait(driver, lambda d: "#/pushes/" in d.current_url, "the push page after sending")
    push_id = driver.current_url.split("#/pushes/")[1]
    wait(driver, lambda d: attribute(d, "dl.counts", "data-status") == "done", "the push to reach done", timeout=90)
    assert css(driver, "#count-sent").text == "1", css(driver, "dl.counts").text
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr")) == 1, "the per-device outcome")
    step(f"push {push_id} done: sent 1, per-device outcome listed")
    save(driver, shots, "push")

    # The simulated phone received it, in Chinese; opening it counts on the push.
    go(driver, f"#/simulator/{fixtures['deviceId']}")
    wait(driver, lambda d: "你好" in visible_text(d, ".inbox"), "the notification on the simulated phone")
    save(driver, shots, "simulator")
    click(driver, ".sim-note button.open", "the Open button")
    wait(driver, lambda d: css(d, ".sim-note button.open").get_attribute("disabled") is not None, "the open to be recorded")
    step("notification arrived on the simulated phone and was opened")
    go(driver, f"#/pushes/{push_id}")
    wait(driver, lambda d: visible_text(d, "#count-opened") == "1", "the open counted on the push")
    step("the open is counted on the push")

    # Look the device up by its token.
    go(driver, "#/devices")
    wait(driver, lambda d: css(d, "select[name=by]"), "the device search")
    css(driver, "input[name=value]").send_keys(fixtures["token"])
    css(driver, "form.filters button[type=submit]").click()
    wait(driver, lambda d: fixtures["token"] in visible_text(d, "dl.facts"), "the device page found by token")
    assert fixtures["tag"] in visible_text(driver, "ul.tags")
    step("device found by token, with its tags")
    # Its history: the push just sent, with its outcome, linking to the push's page.
    row = wait(driver, lambda d: visible_text(d, f'#device-history tr[data-push="{push_id}"]'), "the push in the device's history")
    assert "Hello" in row and "sent" in row, row
    assert attribute(driver, f'#device-history tr[data-push="{push_id}"] a', "href").endswith(f"#/pushes/{push_id}")
    step(f"the device's history lists the push with its outcome: {row!r}")
    driver.execute_script("document.getElementById('device-history-title').scrollIntoView({ block: 'center' })")
    save(driver, shots, "device")

    go(driver, "#/overview")
    wait(driver, lambda d: css(d, "figure.chart") and css(d, "#installations-active"), "the overview")
    save(driver, shots, "overview")
    go(driver, "#/apps")
    wait(driver, lambda d: "APNs credentials" in d.find_element(By.TAG_NAME, "main").text, "the apps screen")
    text = wait(driver, lambda d: visible_text(d, 'tr[data-compat="leancloud"]'), "the LeanCloud identity row")
    assert "Not set" in text and "herald apps leancloud set --app app_" in text, text
    text = wait(driver, lambda d: visible_text(d, 'tr[data-compat="jpush"]'), "the JPush identity row")
    assert "4f1c2b3a5d6e7f8091a2b3c4" in text and "Not set" not in text and "jpush-master-secret-for-the-console" not in text, text
    step(f"LeanCloud identity not set, with the command to set it; JPush shown with a hint only: {text!r}")
    # The simulator's credential took the push: APNs' last acceptance is shown.
    text = wait(driver, lambda d: visible_text(d, 'td.credential-state[data-state="accepted"]'), "the credential accepted by APNs")
    assert "Working" in text and "Last accepted by APNs" in text, text
    step(f"the credential's state: {text!r}")
    save(driver, shots, "apps")

    # Webhooks: one to a port nothing listens on; its secret is shown once; a ping's failed attempt shows its error.
    go(driver, "#/webhooks")
    wait(driver, lambda d: css(d, "main form input[name=url]"), "the webhooks screen")
    css(driver, "main form input[name=url]").send_keys("http://127.0.0.1:9/hook")
    for box in driver.find_elements(By.CSS_SELECTOR, "main form input[name=event]"):
        if box.is_selected() != (box.get_attribute("value") == "push.done"):
            box.click()
    css(driver, "main form input[name=description]").send_keys("console test")
    css(driver, "main form button[type=submit]").click()
    secret = wait(driver, lambda d: visible_text(d, ".secrets output.secret"), "the new webhook's secret")
    assert secret.startswith("whsec_"), secret
    row = wait(driver, lambda d: css(d, "main tbody tr[data-webhook]"), "the webhook listed")
    assert "http://127.0.0.1:9/hook" in row.text and "push.done" in row.text and "enabled" in row.text, row.text
    assert "notification.opened" not in row.text, row.text
    step(f"webhook created, listed, its secret shown once ({secret[:10]}...)")
    click(driver, "main tbody tr[data-webhook] a", "the webhook's link")
    wait(driver, lambda d: css(d, "main button[name=ping]") and visible_text(d, "#webhook-state") == "enabled", "the webhook's page")
    assert secret not in driver.find_element(By.TAG_NAME, "body").text, "the secret must not be shown again"
    click(driver, "main button[name=ping]", "the ping button")
    error = wait(driver, lambda d: visible_text(d, "main tr[data-delivery] .attempt-error"), "the ping's failed attempt with its error")
    state = visible_text(driver, "main tr[data-delivery] .delivery-state")
    assert state == "failed", state
    step(f"ping sent; its attempt failed: {error!r}")
    save(driver, shots, "webhooks")
    click(driver, "main button[name=toggle]", "the disable button")
    wait(driver, lambda d: visible_text(d, "#webhook-state") == "disabled" and visible_text(d, "main button[name=toggle]") == "Enable", "the webhook disabled")
    go(driver, "#/webhooks")
    wait(driver, lambda d: visible_text(d, "main tbody tr[data-webhook] .webhook-state") == "disabled", "the webhook listed as disabled")
    assert not css(driver, ".secrets output.secret"), "the secret must not be shown again"
    step("webhook disabled, and listed so")

    # Chinese: every English string has its Chinese one, and the page switches.
    missing = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/console/i18n.js').then(m => done({ zh: m.keys.en.filter(k => !m.keys['zh-Hans'].includes(k)),
                                                      en: m.keys['zh-Hans'].filter(k => !m.keys.en.includes(k)) }), e => done(String(e)));""")
    assert missing == {"zh": [], "en": []}, f"strings missing from a dictionary: {missing}"
    Select(css(driver, "header select.language")).select_by_value("zh-Hans")
    go(driver, "#/compose")
    wait(driver, lambda d: "撰写推送" in css(d, "header nav").text and "发送推送" in d.find_element(By.TAG_NAME, "main").text, "the Chinese console")
    assert driver.execute_script("return document.documentElement.lang") == "zh-Hans"
    step("Chinese rendering")
    save(driver, shots, "compose-zh")
    go(driver, "#/webhooks")
    wait(driver, lambda d: "此应用的 Webhook" in d.find_element(By.TAG_NAME, "main").text and "已停用" in visible_text(d, "main tbody"), "the Chinese webhooks screen")
    step("Chinese webhooks screen")
    Select(css(driver, "header select.language")).select_by_value("en")

    # Sign out: the session ends, and the page is back at sign-in.
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait(driver, lambda d: css(d, "input[name=key]"), "the sign-in form after sign-out")
    status = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/v1/apps', { headers: { 'X-Herald-CSRF': 'x' } }).then(r => done(r.status), e => done(String(e)));""")
    assert status in (401, 403), status
    step("signed out")

    # A master key sees its own app only.
    sign_in(driver, fixtures["otherMasterKey"])
    wait(driver, lambda d: css(d, "header.top nav"), "the console for the other app's master key")
    assert not css(driver, "select.app-picker"), "a master key must not get an app picker"
    assert fixtures["otherAppName"] in css(driver, "header .app-name").text
    go(driver, f"#/pushes/{push_id}")
    wait(driver, lambda d: css(d, "main .form-error"), "the other app's push refused")
    go(driver, "#/pushes")
    wait(driver, lambda d: "No pushes yet." in d.find_element(By.TAG_NAME, "main").text, "an empty push list for the other app")
    step("a master key cannot see another app's pushes")


if __name__ == "__main__":
    main()
