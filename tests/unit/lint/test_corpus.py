"""The rules on real code no one here wrote: training scripts of well-kept projects, vendored
in tests/data/lint-corpus/ with their licences (its README says from where). Each finding was
read and judged: the ones below are real problems, and nothing else may be reported."""

import os

from lint_cases import REPO

from autograd_errors.lint.checker import check_source
from autograd_errors.lint.files import python_files

CORPUS = REPO / "tests" / "data" / "lint-corpus"

#: (file, line, code): why it is a real problem.
REAL = {
    (
        "pytorch-examples/distributed/tensor_parallelism/tensor_parallel_example.py",
        121,
        "AE501",
    ): "backward() and optimizer.step() every iteration, zero_grad() nowhere in the file: each "
    "step uses the sum of the gradients so far (pytorch/examples#1424, open)",
    (
        "pytorch-examples/distributed/tensor_parallelism/sequence_parallel_example.py",
        107,
        "AE501",
    ): "the same loop, the same missing zero_grad() (pytorch/examples#1424)",
}


def test_the_corpus_gives_exactly_the_real_findings():
    found = set()
    errors = []
    for path in python_files(str(CORPUS), lambda path, error: errors.append(path)):
        with open(path, "rb") as handle:
            for finding in check_source(handle.read(), path):
                found.add((os.path.relpath(path, CORPUS), finding.line, finding.code))
    assert errors == []
    assert found == set(REAL)


def test_the_corpus_is_what_its_readme_lists():
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    projects = sorted(path.name for path in CORPUS.iterdir() if path.is_dir())
    assert len(projects) >= 10
    for project in projects:
        assert f"`{project}/`" in readme, project
        licences = [p for p in (CORPUS / project).iterdir() if p.name.upper().startswith("LICEN")]
        assert licences, f"{project} has no licence file"
    scripts = list(CORPUS.rglob("*.py"))
    assert len(scripts) >= 40
