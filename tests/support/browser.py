"""Debian's headless Chromium, as the tests and benchmarks start it (never a browser Playwright
would download: the machines reach only package registries)."""

from __future__ import annotations

import shutil

from playwright.sync_api import Browser, Playwright

# What the machines' notes ask of a headless Chromium here: nothing it would reach for itself.
FLAGS = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
MISSING = "Debian's chromium is not installed: `apt-get install chromium` (README command 2 does)"


def launch(playwright: Playwright) -> Browser:
    """Chromium from PATH; RuntimeError (MISSING) when there is none."""
    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError(MISSING)
    return playwright.chromium.launch(executable_path=executable, args=FLAGS)
