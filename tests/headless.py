"""A headless Chromium driven over the DevTools protocol, standard library only.

The browser runs with ``--remote-debugging-pipe``: commands go in on its fd 3, replies and
events come out on its fd 4, each a JSON message ended by a NUL byte. No port is opened and
nothing is fetched (the flags switch off background networking, component updates, sync).
Used by tests/test_browser.py and tools/docs_screenshot.py.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--hide-scrollbars", "--mute-audio")


def find_chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Browser:
    """One headless Chromium with one page; ``close()`` (or ``with``) ends it."""

    def __init__(self, exe: str, width: int = 1000, height: int = 800, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tidl-io-chromium-")
        cmd_r, self._cmd_w = os.pipe()  # we write commands, the browser reads them on fd 3
        self._out_r, out_w = os.pipe()  # the browser writes on fd 4, we read

        def child_fds() -> None:  # move the pipe ends to 3 and 4 without clobbering either
            r, w = os.dup(cmd_r), os.dup(out_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(3, 4, cmd_r, out_w), preexec_fn=child_fds,  # noqa: PLW1509 (tests: no threads)
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    def __enter__(self) -> Browser:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- protocol ------------------------------------------------------------------------
    def _send(self, method: str, params: dict[str, Any] | None, session: bool) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _next(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out_r], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._out_r, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe: " + self._stderr_tail())
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return dict(json.loads(raw))

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._next(deadline)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))
            self.events.append(msg)

    def wait_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for i, msg in enumerate(self.events):
            if msg.get("method") == method:
                return self.events.pop(i)
        while True:
            msg = self._next(deadline)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def _stderr_tail(self) -> str:
        return ""  # stderr is drained only after close(), see close()

    # ---- page ----------------------------------------------------------------------------
    def load(self, path: Path) -> None:
        """Open a local file and wait for its load event; forgets earlier events."""
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_problems(self) -> list[str]:
        """Console errors and warnings, failed loads, uncaught exceptions since the last load."""
        self.call("Runtime.evaluate", {"expression": "0"}, session=True)  # flush pending events
        found = []
        for msg in self.events:
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(f"{params['entry']['source']}: {params['entry']['text']}")
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning", "assert"):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
        return found

    def screenshot(self, clip: dict[str, float] | None = None, full_page: bool = False, fast: bool = True) -> bytes:
        """A PNG of the viewport, of ``clip`` (page coordinates, scrolled into view first),
        or of the whole page; ``fast``: Chromium's quick encoder (larger file), ``fast=False``
        for a small one."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page,
                                  "optimizeForSpeed": fast}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            clip = {"x": 0, "y": 0, "width": size[0], "height": size[1]}
        elif clip is not None:
            self.evaluate(f"window.scrollTo(0, {max(0.0, clip['y'] - 10)})")
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.call("Page.captureScreenshot", params, session=True)["data"])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.call("Browser.close")
            except (OSError, RuntimeError, TimeoutError, EOFError):
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


# ---- PNG decoding (to count colours), standard library only -------------------------------

def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of raw RGB/RGBA bytes) of an 8-bit non-interlaced PNG: chunks
    read with struct, the image data inflated with zlib, each row's filter undone."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8: pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or colour not in (2, 6):
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError(f"PNG data holds {len(raw)} bytes, expected {height * (stride + 1)}")
    rows, prev = [], np.zeros(stride, np.uint8)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).copy()
        if f == 1:  # Sub: running sum along the row, per channel
            line = np.cumsum(line.reshape(width, channels), axis=0, dtype=np.uint8).reshape(-1)
        elif f == 2:  # Up
            line += prev
        elif f in (3, 4):  # Average, Paeth: sequential along the row
            out = line.astype(np.int32)
            up = prev.astype(np.int32)
            for i in range(stride):
                a = int(out[i - channels]) if i >= channels else 0
                b = int(up[i])
                if f == 3:
                    pred = (a + b) // 2
                else:
                    c = int(up[i - channels]) if i >= channels else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                out[i] = (out[i] + pred) & 0xFF
            line = out.astype(np.uint8)
        elif f != 0:
            raise ValueError(f"row {y}: unknown PNG filter {f}")
        rows.append(line.tobytes())
        prev = line
    return width, height, rows


def distinct_colours(data: bytes) -> int:
    """How many distinct RGB colours a PNG has."""
    width, height, rows = png_pixels(data)
    if not rows:
        return 0
    pixels = np.frombuffer(b"".join(rows), np.uint8).reshape(height * width, -1)[:, :3].astype(np.uint32)
    return int(np.unique((pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]).size)
