"""The issue's end-to-end test as a club would run it: several real
`coindrel sim --fast` table processes → a real Mosquitto → the real `coindrel
club serve` process → the scoreboard in a real headless Chromium, which
follows every table without reloading."""

import json
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from .support import Mosquitto, free_port, need
from .test_browser import LATENCY, card_text, scores

SIMS = ["s1", "s2", "s3"]


@pytest.fixture
def club(tmp_path):
    chromium, chromedriver = need("chromium", "chromium-browser"), need("chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    broker = Mosquitto(tmp_path / "broker", users=[*SIMS, "club"]).start()
    pw = broker.password_file(tmp_path)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "coindrel", "club", "serve", "--broker", broker.url(), "--http", f"127.0.0.1:{port}",
         "--db", str(tmp_path / "club.sqlite"), "--tables", ",".join(SIMS), "--username", "club",
         "--password-file", str(pw)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = []
    for line in server.stdout:
        said.append(line)
        if "subscribed" in line:
            break
    else:
        pytest.fail("coindrel club serve did not start:\n" + "".join(said))
    threading.Thread(target=lambda: [said.append(x) for x in server.stdout], daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    browser = webdriver.Chrome(options=options, service=Service(chromedriver))
    yield f"http://127.0.0.1:{port}", browser, broker, pw
    browser.quit()
    server.terminate()
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
    broker.stop()
    assert "Traceback" not in "".join(said), "".join(said)


def test_real_simulated_tables_on_the_scoreboard_live(club, tmp_path):
    base, browser, broker, pw = club
    browser.get(base + "/")
    procs = {name: subprocess.Popen(
        [sys.executable, "-m", "coindrel", "sim", "--fast", "--club", broker.url(), "--table", name,
         "--club-password-file", str(pw), "--clock", "off", "--matches", "2", "--seed", str(i + 3),
         "--names", f"Ann{i},Bo{i}", "--state-dir", str(tmp_path / name)],
        stdout=open(tmp_path / f"{name}.out", "w"), stderr=subprocess.STDOUT) for i, name in enumerate(SIMS)}
    seen = {name: set() for name in SIMS}
    ended, shown = {}, {}
    finals: dict[str, list[int]] = {}
    deadline = time.monotonic() + 240  # only a hang reaches it
    while len(shown) < len(SIMS) and time.monotonic() < deadline:
        for name in SIMS:  # the same page, never reloaded
            s = scores(browser, name)
            if s is not None:
                seen[name].add(tuple(s))
            if name not in ended and procs[name].poll() is not None:
                ended[name] = time.monotonic()
                assert procs[name].returncode == 0, (tmp_path / f"{name}.out").read_text()[-3000:]
                rows = json.load(urllib.request.urlopen(base + "/results.json"))
                finals[name] = [[r["score1"], r["score2"]] for r in rows if r["table"] == name][-1]
            if name in finals and name not in shown:
                i, (a, b) = SIMS.index(name), finals[name]  # the table is back at its menu: the card says how it ended
                if f"Last match: Ann{i} {a} \u2013 {b} Bo{i}" in card_text(browser, name):
                    shown[name] = time.monotonic()
    assert set(shown) == set(SIMS), (finals, {n: sorted(v)[-3:] for n, v in seen.items()})
    for name in SIMS:
        assert len(seen[name]) >= 5, (name, sorted(seen[name]))  # it kept updating, drop after drop
    late = max(shown[n] - ended[n] for n in SIMS)
    assert late < LATENCY, f"a table's last drop reached the scoreboard {late:.3f} s after its sim had sent it"
    rows = json.load(urllib.request.urlopen(base + "/results.json"))
    assert sorted(r["table"] for r in rows) == sorted(SIMS * 2)  # each match's result once
