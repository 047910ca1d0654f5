"""What ``import autograd_errors`` and ``install()`` cost a program, against a bare
``python -c pass`` (issue 15's budget: under 5 ms each).

Each run is a new interpreter; each round runs the three programs in a shuffled order, so that
machine load affects them alike; the figures are medians, and the costs are differences of
medians. The package's bytecode is compiled before timing (one warm-up run with bytecode
writing allowed).

    python benchmarks/hook_cost.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

PROGRAMS = {
    "python -c pass": "pass",
    "import autograd_errors": "import autograd_errors",
    "import + install(warnings=True)": (
        "import autograd_errors; autograd_errors.install(warnings=True)"
    ),
}


def timed(code: str, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    runs = parser.parse_args().runs
    writing_bytecode = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    timed(PROGRAMS["import + install(warnings=True)"], env=writing_bytecode)
    times: dict[str, list[float]] = {name: [] for name in PROGRAMS}
    order = list(PROGRAMS)
    for _ in range(runs):
        random.shuffle(order)  # no program always first in its round
        for name in order:
            times[name].append(timed(PROGRAMS[name]))
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    bare = medians["python -c pass"]
    for name, median in medians.items():
        extra = "" if name == "python -c pass" else f"   (+{median - bare:4.1f} ms)"
        print(f"{name:34} median {median:6.1f} ms over {runs} runs{extra}")


if __name__ == "__main__":
    main()
