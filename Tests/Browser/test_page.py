"""The page of `housectl serve` in a real browser (headless chromium through Selenium).

Starts the example house (config/house.yaml with free ports, no routine run times, simulated
relays, the embedded broker) and checks, each with a bounded wait on what the page shows:
  0. a foreign Host header and a POST without the page's token are refused;
  1. the page lists the rooms;
  2. tapping the kitchen light switches the simulated relay (its retained state topic says ON)
     and the page shows it on;
  3. a relay switched from elsewhere (MQTT) shows on the page through the live events;
  4. the heater (confirm: true) asks before acting, and "Yes" switches it;
  5. a phrase that needs disambiguation shows its choices, and a click finishes it;
  6. the day picker steps to the next weekday, whose picture contains the morning routine's
     relevance window, and on to a Saturday, whose picture does not (any day the test runs on);
  7. History lists what was done;
  8. SIGTERM with a page open stops the controller cleanly (exit 0, well within its 5 s);
  9. the HomeKit bridge's setup code is on the page, and its QR code (decoded by zbarimg from
     what the browser drew) carries the setup URI HAP's algorithm gives for that code and setup ID.
With --screenshots DIR, each tab is written at phone and desktop width.
"""
import argparse
import datetime
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WAIT = 15  # seconds, the bound of every wait
checks = []


def check(name, ok, detail=""):
    checks.append((name, ok))
    print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""), flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """`housectl serve` on a temporary copy of the example house; its log lines are read as they
    come, so a wait is for a line, never a sleep."""

    def __init__(self, housectl, tmp, start_time=None):
        self.mqtt_port, self.web_port = free_port(), free_port()
        config = open(os.path.join(ROOT, "config", "house.yaml")).read()
        config = re.sub(r"\n  port: 1883\n", f"\n  port: {self.mqtt_port}\n", config, count=1)
        # No routine runs during the checks, whatever the hour: their run times (and catch-up) are
        # taken out of the copy; their relevance windows stay for the Today picture. (Started
        # between 06:30 and 09:00 on a weekday, the morning routine caught up at start-up and
        # switched the kitchen light on before the tap.)
        config, runs = re.subn(r"\n    (run_at|catch_up|jitter): [^\n]*", "", config)
        if runs == 0 or "run_at" in config:
            raise SystemExit("browser test: config/house.yaml's routines changed shape (no run_at to take out)")
        # The HomeKit bridge on loopback and a free port: the page shows its setup code.
        config += f"\nhomekit: {{enabled: true, bind: 127.0.0.1, port: {free_port()}}}\n"
        os.makedirs(os.path.join(tmp, "config"))
        self.config = os.path.join(tmp, "config", "house.yaml")
        open(self.config, "w").write(config)
        shutil.copy(os.path.join(ROOT, "config", "phrases.yaml"), os.path.join(tmp, "config"))
        self.lines = []
        self.cond = threading.Condition()
        # --start-time: the house's clock starts at that local time (a weekend, in make test).
        self.proc = subprocess.Popen(
            [housectl, "serve", "--config", self.config, "--devices-dir", os.path.join(ROOT, "devices"),
             "--gpio", "sim", "--node", "pi-main", "--state-dir", os.path.join(tmp, "state"),
             "--web-port", str(self.web_port), "--verbose"] + (["--start-time", start_time] if start_time else []),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, pattern, timeout=WAIT):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if re.search(pattern, line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.cond.wait(left)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def retained(self, topic):
        out = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-t", topic, "-C", "1", "-W", "5"],
                             capture_output=True, text=True)
        return out.stdout.strip()

    def publish(self, topic, payload):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-t", topic, "-m", payload], check=True)


def browser(width, height, tmp):
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={width},{height}", f"--user-data-dir={tempfile.mkdtemp(prefix='chrome-', dir=tmp)}"]:
        options.add_argument(arg)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def wait(driver, condition, timeout=WAIT):
    """`condition` until it is true; the page re-renders on every live event, so an element found
    a moment ago may be gone: such a probe is tried again."""
    try:
        return WebDriverWait(driver, timeout, ignored_exceptions=[StaleElementReferenceException, NoSuchElementException]).until(condition)
    except TimeoutException:
        return None


def click(driver, css):
    """Clicks the element `css` names, finding it again if a re-render replaced it."""
    def attempt(d):
        d.find_element(By.CSS_SELECTOR, css).click()
        return True
    return bool(wait(driver, attempt))


def device_state(driver, device):
    def probe(d):
        try:
            rows = d.find_elements(By.CSS_SELECTOR, f'div.device[data-device="{device}"]')
            return rows[0].get_attribute("data-state") if rows else None
        except StaleElementReferenceException:
            return None
    return probe


def shown_date(driver):
    """The day the Today picture shows (its svg's data-date), or None while none is drawn."""
    try:
        pictures = driver.find_elements(By.CSS_SELECTOR, "#day-picture svg")
        return pictures[0].get_attribute("data-date") if pictures else None
    except StaleElementReferenceException:
        return None


def step_days(driver, shown, days):
    """Clicks the picker's next day `days` times from the picture of `shown`, each time waiting for
    the next day's picture; returns the day shown at the end, or None when a step was not drawn."""
    for _ in range(days):
        following = (datetime.date.fromisoformat(shown) + datetime.timedelta(days=1)).isoformat()
        click(driver, "#day-next")
        if not wait(driver, lambda d: shown_date(d) == following):
            return None
        shown = following
    return shown


def http_status(port, method, path, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        conn.request(method, path, body="{}" if method == "POST" else None, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def run_checks(daemon, driver, url):
    port = daemon.web_port
    check("a foreign Host header is refused (DNS rebinding)", http_status(port, "GET", "/api/state", {"Host": "evil.example"}) == 403)
    check("a POST without the page's token is refused",
          http_status(port, "POST", "/api/devices/kitchen-light", {"Content-Type": "application/json"}) == 403)
    driver.get(url)
    rooms = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "article.room") or None)
    names = sorted(r.get_attribute("data-room") for r in rooms or [])
    check("the page lists the rooms", {"kitchen", "living-room", "bedroom", "garage"} <= set(names), f"rooms: {names}")

    click(driver, 'div.device[data-device="kitchen-light"] button.switch')
    shown = wait(driver, lambda d: device_state(d, "kitchen-light")(d) == "ON")
    relay = daemon.retained("house/kitchen/kitchen-light/state")
    check("tapping the kitchen light switches the relay and the page shows it", bool(shown) and relay == "ON",
          f"page ON: {bool(shown)}, retained state: {relay!r}")

    daemon.publish("house/hall/hall-light/set", "ON")
    check("a relay switched over MQTT shows on the page (live events)",
          bool(wait(driver, lambda d: device_state(d, "hall-light")(d) == "ON")))

    click(driver, 'div.device[data-device="bathroom-heater"] button.switch')
    asked = wait(driver, EC.visibility_of_element_located((By.ID, "ask")))
    still_off = device_state(driver, "bathroom-heater")(driver) == "OFF"
    yes = click(driver, '#ask-choices button[data-option="yes"]')
    on = wait(driver, lambda d: device_state(d, "bathroom-heater")(d) == "ON")
    check("the heater asks before acting, and Yes switches it", bool(asked) and still_off and bool(yes) and bool(on),
          f"asked {bool(asked)}, off while asked {still_off}, on after yes {bool(on)}")

    click(driver, 'nav a[data-tab="say"]')
    box = wait(driver, EC.element_to_be_clickable((By.ID, "say-text")))
    box.send_keys("turn on the lamp", Keys.ENTER)
    wait(driver, EC.visibility_of_element_located((By.ID, "ask")))
    choices = driver.find_elements(By.CSS_SELECTOR, "#ask-choices button.choice")
    labels = [c.text for c in choices]
    # "Which room: Living room or Bedroom?": the living room's lamp is this node's.
    living = click(driver, '#ask-choices button.choice[data-option="living-room"]')
    done = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#say-log p.status-done") or None)
    lamp_on = living and bool(wait(driver, lambda d: device_state(d, "living-floor-lamp")(d) == "ON"))
    check("a phrase that needs a choice shows the choices and a click finishes it", len(choices) >= 2 and bool(done) and lamp_on,
          f"choices {labels}, done {bool(done)}, floor lamp on {lamp_on}")

    # The morning routine is relevant on weekdays only: the picker steps from today to the next
    # weekday (today, when it is one), where its window must be drawn, and on to a Saturday, where
    # it must not. The page's own buttons, so that it holds whatever day the test runs on.
    click(driver, 'nav a[data-tab="today"]')
    today = wait(driver, shown_date)
    check("the Today picture is drawn for a day", bool(today), "no #day-picture svg with a data-date")
    if today:
        start = datetime.date.fromisoformat(today)
        weekday = step_days(driver, today, 0 if start.weekday() < 5 else 7 - start.weekday())
        window = weekday and wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#day-picture svg rect.window[data-routine="good-morning"]') or None)
        check("a weekday's picture contains the morning routine's window", bool(window), f"day {weekday}")
        shown = datetime.date.fromisoformat(weekday or today)
        saturday = step_days(driver, weekday or today, (5 - shown.weekday()) % 7)
        drawn = saturday and driver.find_elements(By.CSS_SELECTOR, "#day-picture svg rect.window")
        morning = saturday and driver.find_elements(By.CSS_SELECTOR, '#day-picture svg rect.window[data-routine="good-morning"]')
        check("a Saturday's picture has no morning window (weekdays only)", bool(saturday) and bool(drawn) and not morning,
              f"day {saturday}, windows drawn {len(drawn or [])}, morning windows {len(morning or [])}")
        click(driver, "#day-today")
        back = wait(driver, lambda d: shown_date(d) == today)
        check("the picker's Today goes back to today", bool(back), f"shows {shown_date(driver)}, not {today}")

    # A command refused from elsewhere is on the page too: MQTT may switch the heater off (its
    # safe state) but not on (it needs a yes, which MQTT may not give).
    daemon.publish("house/bathroom/bathroom-heater/set", "OFF")
    daemon.publish("house/bathroom/bathroom-heater/set", "ON")
    click(driver, 'nav a[data-tab="history"]')
    rows = wait(driver, lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, "#history-table tbody tr") if "kitchen-light" in r.text] or None)
    check("History lists what the page did", bool(rows))

    def refused(d):
        d.execute_script("loadHistory()")
        return [r.text for r in d.find_elements(By.CSS_SELECTOR, "#history-table tbody tr.outcome-refused")
                if "heater" in r.text and "mqtt" in r.text] or None
    rows = wait(driver, refused)
    check("History shows a command refused over MQTT, with its reason", bool(rows), f"rows: {rows}")


def setup_uri(code, setup_id):
    """HAP's setup URI (as HAP-NodeJS and HAP-python compute it): the category (2, a bridge) from
    bit 31, the flag for IP (bit 28) and the code's digits, in base 36 on nine places, then the setup ID."""
    payload = 2 << 31 | 1 << 28 | int(code.replace("-", ""))
    digits = ""
    while payload:
        payload, d = divmod(payload, 36)
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[d] + digits
    return "X-HM://" + digits.rjust(9, "0") + setup_id


def homekit_checks(driver, url, tmp):
    state = os.path.join(tmp, "state", "homekit")
    code = json.load(open(os.path.join(state, "setup.json")))["setupCode"]
    setup_id = json.load(open(os.path.join(state, "discovery.json")))["setupID"]
    driver.get(url)
    shown = wait(driver, lambda d: d.find_element(By.ID, "homekit-code").text or None)
    check("the page shows the HomeKit setup code while nobody is paired", shown == code, f"shown {shown!r}, kept {code!r}")
    qr = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#homekit-qr svg") or None)
    decoded = None
    if qr:
        picture = os.path.join(tmp, "homekit-qr.png")
        with open(picture, "wb") as f:
            f.write(qr[0].screenshot_as_png)
        out = subprocess.run(["zbarimg", "--raw", "-q", picture], capture_output=True, text=True)
        decoded = out.stdout.strip()
    expected = setup_uri(code, setup_id)
    check("its QR code, as the browser draws it, reads as the setup URI", decoded == expected, f"read {decoded!r}, expected {expected!r}")


def screenshots(daemon, tmp, url, directory):
    os.makedirs(directory, exist_ok=True)
    for label, (w, h) in {"phone": (390, 844), "desktop": (1280, 900)}.items():
        driver = browser(w, h, tmp)
        try:
            for tab in ["house", "say", "today", "history"]:
                driver.get(url + "#" + tab)
                if tab == "house":
                    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "article.room") or None)
                if tab == "say":
                    box = wait(driver, EC.element_to_be_clickable((By.ID, "say-text")))
                    box.send_keys("turn on the lamp", Keys.ENTER)
                    wait(driver, EC.visibility_of_element_located((By.ID, "ask")))
                if tab == "today":
                    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#day-picture svg") or None)
                if tab == "history":
                    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#energy-chart svg") or None)
                if label == "phone":
                    height = driver.execute_script("return document.body.scrollHeight")
                    driver.set_window_size(w, min(max(h, height + 20), 2400))
                path = os.path.join(directory, f"web-{tab}-{label}.png")
                driver.save_screenshot(path)
                driver.set_window_size(w, h)
                print("wrote " + os.path.relpath(path, ROOT))
        finally:
            driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--housectl", required=True)
    parser.add_argument("--screenshots")
    parser.add_argument("--start-time", metavar="'YYYY-MM-DD HH:MM'",
                        help="the controller's clock starts at this local time of the house (serve --start-time), e.g. on a weekend")
    args = parser.parse_args()
    if not shutil.which("chromium") or not shutil.which("chromedriver") or not shutil.which("zbarimg"):
        print("browser test: chromium, chromedriver or zbarimg missing")
        return 1
    tmp = tempfile.mkdtemp(prefix="housectl-browser-")
    daemon = Daemon(os.path.abspath(args.housectl), tmp, args.start_time)
    driver = None
    try:
        if not daemon.wait_for(r"web: the page is on") or not daemon.wait_for(r"ready: connected") \
                or not daemon.wait_for(r"homekit: bridge .* listening"):
            print("browser test: the controller did not start:\n" + "\n".join(daemon.lines[-30:]))
            return 1
        url = f"http://127.0.0.1:{daemon.web_port}/"
        driver = browser(1280, 900, tmp)
        run_checks(daemon, driver, url)
        homekit_checks(driver, url, tmp)
        if args.screenshots:
            screenshots(daemon, tmp, url, os.path.abspath(args.screenshots))
        # SIGTERM with the page open (its live events stream held): a prompt, clean stop.
        driver.get(url)
        wait(driver, lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class").split())
        started = time.monotonic()
        daemon.stop()
        took = time.monotonic() - started
        check("SIGTERM with a page open stops the controller cleanly", daemon.proc.returncode == 0 and took < 4.5,
              f"exit {daemon.proc.returncode} after {took:.1f} s")
    finally:
        if driver:
            driver.quit()
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    failed = [name for name, ok in checks if not ok]
    print(f"browser test: {len(checks) - len(failed)} of {len(checks)} checks passed")
    if failed:
        # What the controller said about the devices the checks touch, then how it ended.
        touched = [l for l in daemon.lines if re.search(r"kitchen-light|hall-light|bathroom-heater|floor-lamp|\[HouseWeb\]|error|warning", l)]
        print("\n".join(touched[-80:]))
        print("--- the controller's last lines ---")
        print("\n".join(daemon.lines[-40:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
