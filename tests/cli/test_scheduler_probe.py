"""Issue 34: ``--scheduler`` at a server that accepts TCP but is not a Dask scheduler.

An HTTP server on the scheduler's port (the dashboard's usual 8787) kept ``ratkit train``
waiting for 52 minutes, silent; a server answering garbage gave ``MemoryError: Unable to
allocate 3.07 EiB`` and a ``Client.__del__`` traceback. Each must end within seconds, with
exit status 2 and one line naming the address, and the Python API must raise a
DistributedError naming it.
"""

from __future__ import annotations

import contextlib
import http.server
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("distributed", reason="dask.distributed (ratkit[dask]) is not installed")

from ratkit._parallel import compute_on, connect  # noqa: E402
from ratkit.exceptions import DistributedError  # noqa: E402

#: What the raw listeners send on accepting: nothing at all, bytes that are no Dask frame,
#: and an HTTP reply (its first 8 bytes read as a frame count asked for exbibytes).
REPLIES = {"silent": None, "garbage": b"\xff" * 64 + b"\r\n", "http-reply": b"HTTP/1.1 400 Bad Request\r\n\r\n"}


MAIN = "import sys; from ratkit.cli._main import main; sys.exit(main())"


class _QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # the 400 for the Dask handshake is expected
        pass


@contextlib.contextmanager
def _http_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _raw_listener(reply):
    """A TCP listener that accepts, sends ``reply`` (if any) and then reads and keeps the
    connection open without answering."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.settimeout(0.2)
    stop = threading.Event()
    held = []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if reply:
                with contextlib.suppress(OSError):
                    conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


@contextlib.contextmanager
def _server(kind):
    with _http_server() if kind == "http" else _raw_listener(REPLIES[kind]) as address:
        yield address


@pytest.fixture(scope="module")
def start_up_seconds() -> float:
    """Seconds a fresh interpreter takes to import the command line and distributed here, now:
    what a loaded machine adds to every run of the command (25 s at a load of 6 on 2 cores)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import ratkit.cli._main, distributed"], check=True, timeout=120)
    return time.perf_counter() - start


@pytest.mark.parametrize("kind", ["http", *REPLIES])
def test_the_command_line_fails_within_seconds_naming_the_address(kind, tmp_path, start_up_seconds):
    data = tmp_path / "reads.tsv"
    data.write_text("A\tACGTACGTAC\nB\tTTTTGGGGCC\nA\tACGTTCGTAC\nB\tTTGTGGGGCC\n")
    model = tmp_path / "m.zip"
    with _server(kind) as address:
        argv = ["train", "--data", str(data), "--scheduler", address, "-o", str(model)]
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", MAIN, *argv], capture_output=True, text=True, timeout=60)
        seconds = time.perf_counter() - start
    assert done.returncode == 2, done.stderr
    # seconds beyond start-up: the probe's timeout (5 s) and the error's own work, not a hang
    assert seconds - start_up_seconds < 12, (seconds, start_up_seconds)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("ratkit train: error: ") and repr(address) in lines[0]
    assert "Traceback" not in done.stderr and "EiB" not in done.stderr
    assert done.stdout == "" and not model.exists()


@pytest.mark.parametrize("kind", ["http", *REPLIES])
def test_the_python_api_raises_a_distributed_error_naming_the_address(kind):
    with _server(kind) as address:
        start = time.perf_counter()
        with pytest.raises(DistributedError, match=f"'{address}'.*not a Dask scheduler"):
            connect(address, timeout=1.0)
        assert time.perf_counter() - start < 3
        with pytest.raises(DistributedError, match=f"'{address}'"):
            with compute_on(scheduler=address):
                pass


def test_a_worker_address_is_named_as_a_worker_not_a_scheduler():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        worker = next(iter(c.scheduler.workers))
        with pytest.raises(DistributedError, match=f"'{worker}' answers the Dask protocol but is a Worker"):
            connect(worker, timeout=2.0)
        client = connect(c.scheduler_address, timeout=5.0)  # the scheduler itself still connects
        try:
            assert client.status == "running"
        finally:
            client.close()
