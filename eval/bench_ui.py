"""UI start-up: from `paper-assistant ui` to the page being served, with a built index.

Runs the real command in a child process (so imports count) against an index
of the seeds, several times, and prints the times to the first HTTP 200.

Usage: python eval/bench_ui.py [--runs 3] [--storage DIR]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import date
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def time_to_page(storage: Path) -> float:
    """Seconds from starting the command to the page answering 200."""
    port = free_port()
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--port", str(port),
                                "--storage", str(storage)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as response:
                    if response.status == 200:
                        return time.perf_counter() - start
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None:
                    raise SystemExit("the UI exited before serving its page") from None
                time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--storage", type=Path, help="an index to serve (default: a temp index of the seeds)")
    args = parser.parse_args()
    storage = args.storage or Path(tempfile.mkdtemp())
    if args.storage is None:
        subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--storage", str(storage)],
                       check=True, capture_output=True)
    times = [time_to_page(storage) for _ in range(args.runs)]
    print(f"{date.today()} · UI start-up, `paper-assistant ui` to first page (with imports), {args.runs} runs: "
          f"median {statistics.median(times):.1f} s, max {max(times):.1f} s")


if __name__ == "__main__":
    main()
