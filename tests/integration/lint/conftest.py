"""The lint tests' shared helpers live in ``tests/unit/lint/lint_cases.py``: put that folder on
the import path (pytest puts only each test file's own folder there)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "lint"))
