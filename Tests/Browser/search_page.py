#!/usr/bin/env python3
"""The search page in a real headless Chromium (Debian's chromium and chromium-driver, through Selenium).

Run by SearchPageTests.testThePageInARealBrowser against a `spotlight serve` it started:

    search_page.py URL --screenshot FILE [--shown FILE]

Checks: the page without its token is refused (403); typing "bre" shows Brent Reid under Colleagues with the typed
letters marked; the arrow keys move the selection; Enter continues the chosen result in its app (with --shown: the
file the stand-in terminal writes the app's output to). Prints "browser test passed" when everything held.
"""
import argparse
import os
import sys
import time
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def fail(message):
    print("browser test FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--shown")
    args = parser.parse_args()

    chromium = next((p for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] if os.path.exists(p)), None)
    driver_path = next((p for p in ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"] if os.path.exists(p)), None)
    if not chromium or not driver_path:
        fail("Debian's chromium and chromium-driver are not installed (scripts/bootstrap.sh installs them)")

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,640",
                 "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    wait = WebDriverWait(driver, 15)
    try:
        parts = urlsplit(args.url)
        origin = "%s://%s" % (parts.scheme, parts.netloc)

        # Without the token: refused, and nothing of the index in the answer.
        driver.get(origin + "/")
        body = driver.find_element(By.TAG_NAME, "body").text
        if "needs the address" not in body or "Brent" in body:
            fail("the page without its token was not refused: %r" % body[:200])

        driver.get(args.url)
        # The page's own requests without the header are refused too.
        status = driver.execute_async_script(
            "const done = arguments[0]; fetch('/api/search?q=bre').then(r => done(r.status));")
        if status != 403:
            fail("a request without the token answered %s, not 403" % status)

        box = wait.until(EC.presence_of_element_located((By.ID, "query")))
        box.send_keys("bre")
        # Each keystroke searches; wait for the answer to the whole word before looking.
        wait.until(lambda d: d.find_element(By.ID, "results").get_attribute("data-query") == "bre")
        def brent_under_colleagues(d):
            for section in d.find_elements(By.CSS_SELECTOR, "section.app"):
                heading = section.find_element(By.TAG_NAME, "h2").text
                titles = [t.text for t in section.find_elements(By.CSS_SELECTOR, "li.result .title")]
                if heading.lower() == "colleagues" and "Brent Reid" in titles:
                    return section
            return False
        section = wait.until(brent_under_colleagues)
        first = section.find_element(By.CSS_SELECTOR, "li.result")
        marks = [m.text for m in first.find_elements(By.TAG_NAME, "mark")]
        if marks != ["Bre"]:
            fail("the typed letters are not marked in the title: %r" % marks)
        if first.get_attribute("aria-selected") != "true":
            fail("the first result is not selected")
        buttons = [b.text for b in first.find_elements(By.TAG_NAME, "button")]
        if buttons != ["Open", "Call", "Directions"]:
            fail("Brent Reid's buttons: %r" % buttons)
        driver.save_screenshot(args.screenshot)

        results = driver.find_elements(By.CSS_SELECTOR, "li.result")
        if len(results) > 1:
            box.send_keys(Keys.ARROW_DOWN)
            if results[1].get_attribute("aria-selected") != "true":
                fail("ArrowDown did not select the second result")
            box.send_keys(Keys.ARROW_UP)
        if results[0].get_attribute("aria-selected") != "true":
            fail("ArrowUp did not come back to Brent Reid")

        box.send_keys(Keys.ENTER)
        wait.until(lambda d: "Opened Brent Reid" in d.find_element(By.ID, "status").text
                   or "Could not" in d.find_element(By.ID, "status").text)
        status_line = driver.find_element(By.ID, "status").text
        if "Opened Brent Reid" not in status_line:
            fail("Enter did not continue Brent Reid: %r" % status_line)
        if args.shown:
            deadline = time.time() + 15
            while time.time() < deadline and not os.path.exists(args.shown):
                time.sleep(0.1)
            if not os.path.exists(args.shown):
                fail("the app was not started")
        health = wait.until(lambda d: "Index health:" in d.find_element(By.CSS_SELECTOR, "#health summary").text
                            and d.find_element(By.CSS_SELECTOR, "#health summary").text)
        if "ok" not in health:
            fail("index health: %r" % health)
        print("browser test passed")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
