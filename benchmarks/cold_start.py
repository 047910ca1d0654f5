"""Cold start of ``python -m autograd_errors explain`` against a bare ``python -c pass``.

Each run is a new interpreter, as when a user types the command. Runs alternate between the two
commands so that machine load affects both alike; the figure is the ratio of the medians.
Issue 24's budget is 2.0.

As after ``pip install``, the package's bytecode is compiled before timing (one warm-up run with
bytecode writing allowed, whatever PYTHONDONTWRITEBYTECODE says); that run also fills the
catalog cache, as any first use does. The cache is a temporary directory of the benchmark's own:
another checkout's ``explain`` replaces the shared cache's file with its own catalog's, which
would make every timed run a first one.

    python benchmarks/cold_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

MESSAGE = "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."


def timed(command: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    bare = [sys.executable, "-c", "pass"]
    explain = [sys.executable, "-m", "autograd_errors", "explain", MESSAGE]
    with tempfile.TemporaryDirectory() as cache:
        own_cache = {**os.environ, "AUTOGRAD_ERRORS_CACHE_DIR": cache}
        writing_bytecode = {k: v for k, v in own_cache.items() if k != "PYTHONDONTWRITEBYTECODE"}
        timed(explain, env=writing_bytecode)
        bare_times, explain_times = [], []
        for _ in range(runs):
            bare_times.append(timed(bare))
            explain_times.append(timed(explain, env=own_cache))
    bare_ms = statistics.median(bare_times) * 1000
    explain_ms = statistics.median(explain_times) * 1000
    print(f"python -c pass           median {bare_ms:6.1f} ms over {runs} runs")
    print(f"python -m autograd_errors explain  median {explain_ms:6.1f} ms over {runs} runs")
    print(f"ratio {explain_ms / bare_ms:.2f} (budget 2.0)")


if __name__ == "__main__":
    main()
