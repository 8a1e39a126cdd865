"""Waiting for the jobs a test queued (a batch rendered, a pile read): the pages say when they are done."""

from __future__ import annotations

import time

TIMEOUT = 120.0
"""Seconds a test's job may take on a slow machine before the test fails."""


def made(web, response) -> str:
    """The batch page a batch form's answer (303) leads to, once its job has made the batch."""
    assert response.status_code == 303, response.text[:500]
    location = response.headers["location"]
    ready(web, location)
    return location


def ready(web, location: str) -> str:
    """`location` once it no longer shows a job's progress bar (its job done); its text."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        page = web.get(location)
        if 'id="job"' not in page.text and 'id="job-error"' not in page.text:
            return page.text
        assert 'id="job-error"' not in page.text, page.text[-1500:]
        assert time.monotonic() < deadline, f"the job of {location} did not finish"
        time.sleep(0.05)
