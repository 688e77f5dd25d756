"""The issue's end-to-end test as a club would run it: several real
`coindrel sim --fast` table processes → a real Mosquitto → the real `coindrel
club serve` process → the scoreboard in a real headless Chromium, which
follows every table without reloading."""

import json
import subprocess
import sys
import time
import urllib.request

import pytest

from .browsing import LATENCY, headless_chromium, serve_club, stop_served, until
from .support import Mosquitto, free_port, need

SIMS = ["s1", "s2", "s3"]


@pytest.fixture
def club(tmp_path):
    chromium, chromedriver = need("chromium", "chromium-browser"), need("chromedriver")
    broker = Mosquitto(tmp_path / "broker", users=[*SIMS, "club"]).start()
    pw = broker.password_file(tmp_path)
    port = free_port()
    server, said = serve_club("--broker", broker.url(), "--http", f"127.0.0.1:{port}",
                              "--db", str(tmp_path / "club.sqlite"), "--tables", ",".join(SIMS), "--username", "club",
                              "--password-file", str(pw))
    browser = headless_chromium(chromium, chromedriver)
    yield f"http://127.0.0.1:{port}", browser, broker, pw
    browser.quit()
    try:
        stop_served(server, said)
    finally:
        broker.stop()


# Every state each card shows, with when the page first showed it: recorded in the
# page itself as the page's own server-sent-events handler swaps the cards, so a
# loaded machine (a slow test) misses none of them.
OBSERVE = """
window.seen = {};
function look() {
  document.querySelectorAll('.card').forEach(function (c) {
    var k = c.dataset.table, s = Array.from(c.querySelectorAll('.score')).map(function (e) { return e.textContent; });
    var text = s.length ? s.join(',') : c.innerText.replace(/\\s+/g, ' ');
    var seen = window.seen[k] = window.seen[k] || {};
    if (!(text in seen)) seen[text] = Date.now() / 1000;
  });
}
new MutationObserver(look).observe(document.querySelector('main'), {childList: true, subtree: true});
look();
"""


def test_real_simulated_tables_on_the_scoreboard_live(club, tmp_path):
    base, browser, broker, pw = club
    browser.get(base + "/")
    browser.execute_script(OBSERVE)
    procs = {name: subprocess.Popen(
        [sys.executable, "-m", "coindrel", "sim", "--fast", "--club", broker.url(), "--table", name,
         "--club-password-file", str(pw), "--clock", "off", "--matches", "2", "--seed", str(i + 3),
         "--names", f"Ann{i},Bo{i}", "--state-dir", str(tmp_path / name)],
        stdout=open(tmp_path / f"{name}.out", "w"), stderr=subprocess.STDOUT) for i, name in enumerate(SIMS)}
    ended, finals = {}, {}
    for name, proc in procs.items():
        assert proc.wait(240) == 0, (tmp_path / f"{name}.out").read_text()[-3000:]
        ended[name] = time.time()  # at or after its end: its last drop and result were at the broker by then
    rows = json.load(urllib.request.urlopen(base + "/results.json"))
    assert sorted(r["table"] for r in rows) == sorted(SIMS * 2)  # each match's result once
    for i, name in enumerate(SIMS):
        a, b = [[r["score1"], r["score2"]] for r in rows if r["table"] == name][-1]
        finals[name] = f"Last match: Ann{i} {a} \u2013 {b} Bo{i}"  # the table is back at its menu
    record = lambda: browser.execute_script("return window.seen") or {}  # noqa: E731  (the page, never reloaded)
    until(browser, lambda: all(any(finals[n] in text for text in record().get(n, {})) for n in SIMS), timeout=120,
          what="every table's last match on the scoreboard")
    seen = record()
    for name in SIMS:
        states = seen.get(name, {})
        shown = [t for text, t in states.items() if finals[name] in text]
        assert shown, (name, finals[name], list(states)[-3:])
        scored = [text for text in states if text and text[0].isdigit()]
        assert len(scored) >= 10, (name, scored)  # it kept updating, drop after drop
        late = min(shown) - ended[name]
        assert late < LATENCY, f"{name}'s last drop reached the scoreboard {late:.3f} s after its sim had sent it"
