"""`paper-assistant ui --auth`: a login is required, and the password never
shows in the page, the app's config, or the process output."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from assistant.settings import Settings

PASSWORD = "pw-Secret-9731"


def test_auth_is_required_and_the_password_stays_secret(seed_settings: Settings) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "PAPER_ASSISTANT_UI_AUTH": f"lab:{PASSWORD}", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
           "PAPER_ASSISTANT_MODEL": "m", "OPENAI_API_KEY": "sk-ui-secret-777"}
    process = subprocess.Popen(
        [sys.executable, "-m", "assistant.cli", "ui", "--port", str(port), "--storage", str(seed_settings.index.storage)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        page = None
        while time.monotonic() < deadline and page is None:
            try:
                page = urllib.request.urlopen(base + "/", timeout=2).read().decode()
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        assert page is not None, "the UI did not start"
        assert PASSWORD not in page and "sk-ui-secret-777" not in page
        try:
            config = urllib.request.urlopen(base + "/config", timeout=5).read().decode()
        except urllib.error.HTTPError as exc:
            config = f"HTTP {exc.code}"
        assert PASSWORD not in config and "sk-ui-secret-777" not in config
        assert "Browse" not in config  # the app itself is behind the login
        login = urllib.request.Request(base + "/login", data=b"username=lab&password=wrong",
                                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        try:
            urllib.request.urlopen(login, timeout=5)
            raise AssertionError("a wrong password was accepted")
        except urllib.error.HTTPError as exc:
            assert exc.code in (400, 401)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert PASSWORD not in output and "sk-ui-secret-777" not in output
