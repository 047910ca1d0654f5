"""The lint tests' shared helpers live in ``lint_cases.py``, beside this file: put this folder
on the import path (pytest puts only each test file's own folder there)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
