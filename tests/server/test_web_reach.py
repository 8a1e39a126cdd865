"""A server no phone can reach says so before the class is printed, and how to finish a batch
already printed (issue 33: sheets made with plain `serve` carried a QR code no phone can open)."""

from __future__ import annotations

import re

import pytest
from waiting import made
from starlette.testclient import TestClient

from generator.app.links import opens_only_here
from generator.app.store import Store
from generator.web.app import create_app


@pytest.mark.parametrize(
    "url, only_here",
    [
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000/", True),
        ("http://[::1]:8000", True),
        ("http://127.0.4.5", True),
        ("http://app.localhost", True),
        ("http://192.168.1.20:8000", False),
        ("https://attnsheet.school.example", False),
        ("http://10.0.0.3", False),
    ],
)
def test_which_addresses_open_only_here(url, only_here):
    assert opens_only_here(url) is only_here


def _client(tmp_path, base: str, public_url: str = "") -> TestClient:
    client = TestClient(
        create_app(Store(tmp_path / "data"), public_url=public_url, allowed_hosts=("192.168.1.20",)),
        base_url=base,
        follow_redirects=False,
    )
    client.csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    return client


def test_the_form_and_the_batch_page_say_when_phones_cannot_open_the_qr_codes(tmp_path):
    web = _client(tmp_path, "http://127.0.0.1:8000")
    home = web.get("/").text
    assert 'id="only-here"' in home and "http://127.0.0.1:8000" in home and "--host 0.0.0.0" in home
    page = web.get(made(web, web.post("/batches", data={"csrf": web.csrf, "count": "1", "seed": "3"}))).text
    assert 'id="only-here"' in page and "need not be reprinted" in page and "the PIN" in page


@pytest.mark.parametrize(
    "base, public_url",
    [("http://192.168.1.20:8000", ""), ("http://127.0.0.1:8000", "https://attnsheet.school.example")],
)
def test_a_server_phones_reach_says_nothing_of_it(tmp_path, base, public_url):
    web = _client(tmp_path, base, public_url)
    assert 'id="only-here"' not in web.get("/").text
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "count": "1", "seed": "3"}))
    assert 'id="only-here"' not in web.get(location).text


def test_the_warning_is_in_spanish_on_a_spanish_page(tmp_path):
    web = _client(tmp_path, "http://127.0.0.1:8000")
    home = web.get("/?ui=es").text
    warning = re.search(r'<p class="warn" id="only-here">(.*?)</p>', home, re.S).group(1)
    assert "teléfono" in warning and "<code>attnsheet serve --host 0.0.0.0</code>" in warning
