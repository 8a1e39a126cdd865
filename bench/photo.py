"""A class of 30 photographing their sheets in the same minute (issue 58): each page's answer time, p50 and p95, on this machine.

`python bench/photo.py` serves the web app on SQLite (the server's own process reads the photos),
makes a class of 30, fills each sheet in by its writer and photographs it (at an angle, a little
desk around it, JPEG 70), then sends the 30 photos at once, each from its own thread, as 30
phones would, and times each answer. A measurement, not a test.
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import cv2  # noqa: E402

from generator.app.store import Store  # noqa: E402
from generator.scan.synthetic import filled_sheets  # noqa: E402


def main(count: int = 30) -> dict:
    from procs import Served
    from test_jobs import post_form

    served = Served(Store(Path(tempfile.mkdtemp()) / "data"))
    try:
        home = urllib.request.urlopen(served.url + "/", timeout=30).read().decode()
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        port = int(served.url.rsplit(":", 1)[1])
        made = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": str(count), "seed": "7"}), timeout=600
        ).url
        name = made.rsplit("/", 1)[1]
        deadline = time.monotonic() + 600
        while True:
            try:
                batch = served.store.batch(name)
                break
            except Exception:
                assert time.monotonic() < deadline, "the class was not made"
                time.sleep(0.5)
        links = served.store.links(batch)
        codes = {s["code"]: int(s["index"]) for s in batch.sheets}
        photos = []
        for filled in filled_sheets(batch.folder, seed=11, scan={"dpi": 200, "quality": 70, "photo": True, "angle": 5}):
            jpeg = cv2.imencode(".jpg", filled.pages[0], [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
            photos.append((links[codes[filled.code]].token, jpeg))
        times: list[float] = []
        failures: list[str] = []

        def phone(token: str, content: bytes) -> None:
            boundary = "photo-bench"
            body = (
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="page"\r\n\r\n1\r\n'
                    f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
                    "Content-Type: image/jpeg\r\n\r\n"
                ).encode()
                + content
                + f"\r\n--{boundary}--\r\n".encode()
            )
            request = urllib.request.Request(
                f"{served.url}/api/s/{token}/photo",
                data=body,
                method="POST",
                headers={"content-type": f"multipart/form-data; boundary={boundary}", "x-csrf-token": csrf},
            )
            start = time.perf_counter()
            try:
                urllib.request.urlopen(request, timeout=120).read()
                times.append(time.perf_counter() - start)
            except Exception as error:  # noqa: BLE001  (a measurement: say what failed)
                failures.append(str(error)[:80])

        threads = [threading.Thread(target=phone, args=photo) for photo in photos]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        times.sort()
        result = {
            "photos": len(photos),
            "answered": len(times),
            "failed": len(failures),
            "p50 s": round(statistics.median(times), 2),
            "p95 s": round(times[max(0, int(0.95 * len(times)) - 1)], 2),
            "all in s": round(wall, 1),
        }
        print(result)
        return result
    finally:
        served.stop()


if __name__ == "__main__":
    main()
