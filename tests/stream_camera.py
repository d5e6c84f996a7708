"""A network camera on this machine for the tests: JPEG frames served over HTTP as an MJPEG
stream (``multipart/x-mixed-replace``), as IP cameras and phones' webcam apps serve them, and
read by OpenCV's own FFmpeg client.  It can go away for a while (its network dropping) and
come back on the same address, going on with the frames it had not yet sent."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2

BOUNDARY = b"frame"


class StreamCamera:
    """Serves ``frames`` (JPEG bytes) at ``fps`` on ``http://127.0.0.1:PORT/video``, to one
    client at a time, each frame once: a client that connects again gets the frames after the
    last one sent, or with ``live`` those after the ones the camera filmed meanwhile.
    ``outage`` (frame index, seconds): after sending that frame, the camera closes the
    connection and refuses connections for that long, then serves again.  After the last frame
    it goes away for good."""

    def __init__(self, frames: list[bytes], fps: float, outage: tuple[int, float] | None = None,
                 live: bool = False) -> None:
        self.frames = frames
        self.fps = fps
        self.outage = outage
        self.live = live
        self.sent = 0
        self.connections = 0
        self.done = threading.Event()
        with socket.socket() as probe:  # a free port, to come back on
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()
        self._serve()

    @classmethod
    def from_video(cls, video: Path, count: int, fps: float, outage: tuple[int, float] | None = None,
                   live: bool = False) -> "StreamCamera":
        """The first ``count`` frames of ``video``, as JPEG at quality 90."""
        cap = cv2.VideoCapture(str(video))
        frames = []
        while len(frames) < count:
            ok, image = cap.read()
            if not ok:
                break
            frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
        cap.release()
        return cls(frames, fps, outage, live)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/video"

    def _serve(self) -> None:
        camera = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                camera.connections += 1
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY.decode()}")
                self.end_headers()
                try:
                    while camera.sent < len(camera.frames):
                        jpeg = camera.frames[camera.sent]
                        self.wfile.write(b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                         + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                        self.wfile.flush()
                        camera.sent += 1
                        if camera.outage is not None and camera.sent == camera.outage[0] + 1:
                            threading.Thread(target=camera._away, args=(camera.outage[1],), daemon=True).start()
                            return
                        time.sleep(1.0 / camera.fps)
                except (BrokenPipeError, ConnectionResetError):
                    return
                threading.Thread(target=camera.close, daemon=True).start()

            def log_message(self, format: str, *args: object) -> None:
                pass

        with self._lock:
            if self.done.is_set():
                return
            self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
            threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _away(self, seconds: float) -> None:
        self._stop()
        if not self.done.wait(seconds):  # back, unless closed for good meanwhile
            if self.live:
                self.sent += round(seconds * self.fps)
            self._serve()

    def _stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def close(self) -> None:
        """Go away for good."""
        self.done.set()
        self._stop()
