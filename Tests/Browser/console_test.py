#!/usr/bin/env python3
"""The console in real headless Chromium (Selenium): sign in, create a link with a bad `isi` and see the warning
appear as it is typed, find it in the list, open its stats (chart and table), download its QR code as PNG and
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
from selenium.webdriver.support.ui import WebDriverWait

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
    IOS_BUNDLE = next(app["bundleId"] for project in json.load(f)["projects"] if project["id"] == "pictlink"
                      for app in project["ios"])

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

    print("create a link with a bad isi", flush=True)
    driver.get(base + "/console/links/new")
    wait.until(EC.presence_of_element_located((By.ID, "link-form")))
    driver.find_element(By.ID, "f-link").send_keys("https://pictlink.com/photos/browser-test")
    driver.find_element(By.ID, "f-ibi").send_keys(IOS_BUNDLE)
    driver.find_element(By.ID, "f-isi").send_keys("abc")
    try:
        wait.until(lambda d: any("'isi'" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#checks li.warn")))
    except Exception:
        fail("the live check showed no isi warning: "
             + repr([li.text for li in driver.find_elements(By.CSS_SELECTOR, "#checks li")]))
    warning = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#checks li.warn") if "'isi'" in li.text][0]
    print(f"  warning shown: {warning}", flush=True)
    shot(driver, "new-link-warning")
    driver.find_element(By.ID, "customSuffix").send_keys("browser-test")
    driver.find_element(By.ID, "save").click()
    link = wait.until(EC.presence_of_element_located((By.ID, "short-link")))
    short_link = link.text
    if short_link != "https://go.pictlink.com/browser-test":
        fail(f"unexpected short link {short_link!r}")
    if "notNumeric".lower() not in driver.page_source.lower() and "isi" not in driver.page_source:
        fail("the link page does not show the isi warning")
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
