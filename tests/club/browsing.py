"""The browser tests' real parts: the `coindrel club serve` process (started
and subscribed, its output kept) and a headless Chromium through selenium."""

import subprocess
import sys
import threading

import pytest

LATENCY = 10.0  # s from a drop to the scoreboard that only a page that stopped following reaches: the
# figure itself (the "within a second", p50/p99) is benchmarks/bench_club.py's, not a test's: at load 10 a
# healthy page took 1.19 s


def serve_club(*args: str) -> tuple[subprocess.Popen, list[str]]:
    """`coindrel club serve ARGS`, once it says it is subscribed; the list
    keeps everything it says (read on a thread of its own from then on)."""
    server = subprocess.Popen([sys.executable, "-m", "coindrel", "club", "serve", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = []
    for line in server.stdout:  # the server says when it serves and when it is subscribed
        said.append(line)
        if "subscribed" in line:
            break
    else:
        pytest.fail("coindrel club serve did not start:\n" + "".join(said))
    threading.Thread(target=lambda: [said.append(x) for x in server.stdout], daemon=True).start()
    return server, said


def stop_served(server: subprocess.Popen, said: list[str]) -> None:
    server.terminate()
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
    assert "Traceback" not in "".join(said), "".join(said)


def headless_chromium(chromium: str, chromedriver: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(chromedriver))


def until(browser, cond, timeout=20.0, what="the page"):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, timeout, poll_frequency=0.01).until(lambda b: cond(), message=f"waiting for {what}")
