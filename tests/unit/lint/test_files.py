"""Which files a path holds (``autograd_errors.lint.files``)."""

import os

from autograd_errors.lint.files import SKIPPED, python_files


def listed(path):
    errors = []
    files = [
        os.path.relpath(f, path) for f in python_files(str(path), lambda p, e: errors.append(p))
    ]
    return files, errors


def test_a_folder_is_searched_recursively_in_order_skipping_what_ruff_skips(tmp_path):
    for name in ("b.py", "a.py", "sub/c.py", "sub/deep/d.pyi", "notes.txt", "sub/e.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    for skipped in (".git", ".venv", "venv", "__pycache__", "node_modules", "_build", ".tox"):
        assert skipped in SKIPPED
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "hidden.py").write_text("x = 1\n")
    files, errors = listed(tmp_path)
    assert files == ["a.py", "b.py", "sub/c.py", "sub/deep/d.pyi"]
    assert errors == []


def test_a_file_given_is_checked_whatever_its_name(tmp_path):
    script = tmp_path / ".venv" / "train"
    script.parent.mkdir()
    script.write_text("x = 1\n")
    assert list(python_files(str(script), lambda p, e: None)) == [str(script)]


def test_a_missing_path_is_an_error_and_a_link_loop_is_not_followed(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    os.symlink(tmp_path, tmp_path / "loop")
    files, errors = listed(tmp_path)
    assert (files, errors) == (["a.py"], [])
    missing = []
    assert list(python_files(str(tmp_path / "nope"), lambda p, e: missing.append((p, e)))) == []
    ((path, error),) = missing
    assert path.endswith("nope")
    assert isinstance(error, FileNotFoundError)
