"""Test data shared by the test modules: real torch messages and real pastes."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


def load_data(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


MESSAGES_2_13 = load_data("torch-2.13.0-messages.json")["entries"]
