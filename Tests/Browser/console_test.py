#!/usr/bin/env python3
"""The console in real headless Chromium (Selenium): sign in, fill the new-link form (pick the iOS and Android apps
from the project's lists and see their fields filled, type a bad `isi` and see the warning appear beside that field,
within the viewport, name the link), see the name on the link page, find it in the list, open its stats (chart and table), download its QR code as PNG and
decode it back to the short link with zbarimg, sign out; no browser console errors. Screenshots go to the folder
printed at the start (RELINK_SCREENSHOTS, else a new temporary folder).

Usage: Tests/Browser/console_test.py [path to the relink binary]  (default: .build/debug/relink)
Needs: chromium, chromium-driver, zbar-tools (Debian), libqrencode4, selenium (PyPI); .ci/run installs them.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/relink"))
SHOTS = os.environ.get("RELINK_SCREENSHOTS") or tempfile.mkdtemp(prefix="relink-console-screenshots-")
os.makedirs(SHOTS, exist_ok=True)
print(f"screenshots: {SHOTS}", flush=True)

work = tempfile.mkdtemp(prefix="relink-console-test-")
database = os.path.join(work, "relink.sqlite")
downloads = os.path.join(work, "downloads")
os.makedirs(downloads)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def relink(*arguments):
    return subprocess.run([BINARY, *arguments], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


step_number = 0


def shot(driver, name):
    global step_number
    step_number += 1
    path = os.path.join(SHOTS, f"{step_number:02d}-{name}.png")
    driver.save_screenshot(path)
    print(f"  screenshot {path}", flush=True)


class Failure(Exception):
    pass


def fail(message):
    raise Failure(message)


with open(os.path.join(ROOT, "routes.json")) as f:
    PROJECT = next(project for project in json.load(f)["projects"] if project["id"] == "pictlink")
# The last of each list, so picking is more than taking the first.
IOS_APP = PROJECT["ios"][-1]
ANDROID_APP = PROJECT["android"][-1]
LINK_NAME = "Browser test ☀️ <b>sale</b>"

key = relink("keys", "create", "--project", "pictlink", "--db", database)
port = free_port()
server = subprocess.Popen(
    [BINARY, "serve", "--db", database, "--port", str(port), "--secret-file", os.path.join(work, "secret")],
    cwd=ROOT, stdout=open(os.path.join(work, "serve.log"), "w"), stderr=subprocess.STDOUT)
base = f"http://127.0.0.1:{port}"
driver = None
try:
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except Exception:
            time.sleep(0.1)
    else:
        fail("relink serve did not start; see " + os.path.join(work, "serve.log"))

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"]:
        options.add_argument(argument)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option(
        "prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    wait = WebDriverWait(driver, 10)

    print("sign in", flush=True)
    driver.get(base + "/console/links")
    wait.until(EC.presence_of_element_located((By.ID, "key")))
    if not driver.current_url.endswith("/console/sign-in"):
        fail(f"an anonymous visit was not sent to the sign-in form: {driver.current_url}")
    shot(driver, "sign-in")
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.ID, "sign-in").click()
    wait.until(EC.presence_of_element_located((By.ID, "q")))
    cookies = {c["name"]: c for c in driver.get_cookies()}
    session = cookies.get("relink_console")
    if not session or not session.get("httpOnly") or session.get("sameSite") != "Strict":
        fail(f"the session cookie is not HttpOnly and SameSite=Strict: {session}")

    print("new link: pick the apps, a bad isi beside its field, a name", flush=True)
    driver.get(base + "/console/links/new")
    wait.until(EC.presence_of_element_located((By.ID, "link-form")))
    shot(driver, "new-link-form")
    driver.set_window_size(1280, driver.execute_script("return document.documentElement.scrollHeight") + 100)
    shot(driver, "new-link-form-desktop-full")
    driver.set_window_size(1280, 1000)
    if driver.find_element(By.ID, "group-campaign").get_attribute("open") is not None:
        fail("the campaign parameters are not folded")
    driver.find_element(By.ID, "f-link").send_keys("https://pictlink.com/photos/browser-test")
    ios_picker = driver.find_element(By.ID, "ios-app")
    if not ios_picker.is_displayed():
        fail("the iOS app picker is not shown")
    Select(ios_picker).select_by_visible_text(f"{IOS_APP['name']} ({IOS_APP['bundleId']})")
    Select(driver.find_element(By.ID, "android-app")).select_by_visible_text(
        f"{ANDROID_APP['name']} ({ANDROID_APP['packageName']})")
    filled = {name: driver.find_element(By.ID, "f-" + name).get_attribute("value") for name in ["ibi", "isi", "apn"]}
    print(f"  picked: {filled}", flush=True)
    if filled != {"ibi": IOS_APP["bundleId"], "isi": IOS_APP["appStoreId"], "apn": ANDROID_APP["packageName"]}:
        fail(f"picking the apps did not fill their fields: {filled}")
    isi = driver.find_element(By.ID, "f-isi")
    isi.clear()
    isi.send_keys("abc")
    try:
        wait.until(lambda d: any("'isi'" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#checks-isi li.warn")))
    except Exception:
        fail("no isi warning beside the isi field: "
             + repr([li.text for li in driver.find_elements(By.CSS_SELECTOR, "#checks li, .field-checks li")]))
    if any("'isi'" in li.text for li in driver.find_elements(By.CSS_SELECTOR, "#checks li")):
        fail("the isi warning is in the summary too")
    item = driver.find_element(By.CSS_SELECTOR, "#checks-isi li.warn")
    print(f"  warning shown: {item.text}", flush=True)
    # Beside the field: in the viewport with it, and no further than the field's own block.
    box = driver.execute_script(
        "var a=arguments[0].getBoundingClientRect(),b=arguments[1].getBoundingClientRect();"
        "return {field:[a.top,a.bottom],warning:[b.top,b.bottom],height:window.innerHeight}", isi, item)
    print(f"  positions: {box}", flush=True)
    if not (0 <= box["warning"][0] and box["warning"][1] <= box["height"] and 0 <= box["field"][0] and box["field"][1] <= box["height"]):
        fail(f"the isi warning is not in the viewport with its field: {box}")
    if abs(box["warning"][0] - box["field"][0]) > 120:
        fail(f"the isi warning is not next to its field: {box}")
    shot(driver, "new-link-warning-desktop")
    driver.set_window_size(390, 844)
    driver.execute_script("arguments[0].scrollIntoView({block:'center'})", isi)
    box = driver.execute_script(
        "var a=arguments[0].getBoundingClientRect(),b=arguments[1].getBoundingClientRect();"
        "return {field:[a.top,a.bottom],warning:[b.top,b.bottom],height:window.innerHeight}", isi, item)
    if not (0 <= box["warning"][0] and box["warning"][1] <= box["height"]):
        fail(f"on a phone, the isi warning is not in the viewport with its field: {box}")
    shot(driver, "new-link-warning-phone")
    driver.execute_script("window.scrollTo(0,0)")
    shot(driver, "new-link-form-phone")
    driver.set_window_size(1280, 1000)
    driver.find_element(By.ID, "name").send_keys(LINK_NAME)
    driver.find_element(By.ID, "customSuffix").send_keys("browser-test")
    driver.find_element(By.ID, "save").click()
    link = wait.until(EC.presence_of_element_located((By.ID, "short-link")))
    short_link = link.text
    if short_link != "https://go.pictlink.com/browser-test":
        fail(f"unexpected short link {short_link!r}")
    if "NOT_NUMERIC_IOS_APP_STORE_ID" not in driver.page_source:
        fail("the link page does not show the isi warning")
    shown_name = driver.find_element(By.ID, "name").text
    if shown_name != LINK_NAME:
        fail(f"the link page shows the name {shown_name!r}, not {LINK_NAME!r}")
    shot(driver, "link")

    # Two clicks on the link, as an iPhone and a desktop browser, so the stats have something to draw.
    for agent in ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
                  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"]:
        request = urllib.request.Request(base + "/browser-test", headers={"Host": "go.pictlink.com", "User-Agent": agent})
        try:
            urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,), {
                "redirect_request": lambda *a, **k: None})).open(request, timeout=5)
        except urllib.error.HTTPError:
            pass

    print("the link in the list", flush=True)
    driver.get(base + "/console/links")
    table = wait.until(EC.presence_of_element_located((By.ID, "links")))
    if "browser-test" not in table.text:
        fail("the new link is not in the list")
    if LINK_NAME not in table.text:
        fail("the list does not show the new link's name")
    shot(driver, "links")
    driver.set_window_size(390, 844)
    shot(driver, "links-phone")
    driver.set_window_size(1280, 1000)

    print("stats: chart and table", flush=True)
    driver.get(base + "/console/links/browser-test/stats")
    chart = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#clicks-heading + .chart svg[role=img]")))
    title = chart.find_element(By.TAG_NAME, "title").get_attribute("textContent")
    table = driver.find_element(By.ID, "clicks-table")
    rows = table.find_elements(By.TAG_NAME, "tr")
    last = rows[-1].find_elements(By.TAG_NAME, "td")
    print(f"  chart '{title}', {len(rows) - 1} days; today: {[c.text for c in last]}", flush=True)
    if len(rows) < 2 or last[-1].text != "2":
        fail(f"the clicks table does not show today's two clicks: {[c.text for c in last]}")
    shot(driver, "stats")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot(driver, "stats-dark")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    print("QR code: download the PNG and decode it", flush=True)
    driver.get(base + "/console/links/browser-test")
    wait.until(EC.presence_of_element_located((By.ID, "qr-png"))).click()
    png = None
    for _ in range(100):
        done = [f for f in os.listdir(downloads) if f.endswith(".png")]
        if done:
            png = os.path.join(downloads, done[0])
            break
        time.sleep(0.1)
    if not png:
        fail("no PNG was downloaded")
    decoded = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True).stdout.strip()
    print(f"  {os.path.basename(png)} decodes to {decoded!r}", flush=True)
    if decoded != short_link:
        fail(f"the QR code decodes to {decoded!r}, not {short_link!r}")
    shot(driver, "link-qr")

    print("sign out", flush=True)
    driver.find_element(By.ID, "sign-out").click()
    wait.until(EC.presence_of_element_located((By.ID, "key")))
    driver.get(base + "/console/links")
    wait.until(EC.presence_of_element_located((By.ID, "key")))
    shot(driver, "signed-out")

    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if errors:
        fail(f"browser console errors: {errors}")
    print("console browser test: passed", flush=True)
except Exception:
    if driver:
        shot(driver, "failure")
        print("FAIL at " + driver.current_url + ":\n" + driver.find_element(By.TAG_NAME, "body").text[:2000], flush=True)
    raise
finally:
    if driver:
        driver.quit()
    server.terminate()
    server.wait(timeout=10)
