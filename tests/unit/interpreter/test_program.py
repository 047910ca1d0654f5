"""Running a program in this interpreter as ``python`` would, and giving the interpreter back."""

from __future__ import annotations

import pytest
from test_patches import interpreter_state

from autograd_errors.interpreter import program

PROGRAM = """\
import sys
print(sys.argv, __name__, __file__ == sys.argv[0])
if sys.argv[1:] == ["--fail"]:
    raise ValueError("the program failed")
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def test_the_program_sees_its_own_argv_and_main_and_the_interpreter_is_given_back(script, capsys):
    before = interpreter_state()
    assert program.run(str(script), ["--lr", "3"]) is None
    assert interpreter_state() == before
    assert capsys.readouterr().out == f"{[str(script), '--lr', '3']} __main__ True\n"


def test_what_the_program_raises_is_returned_from_its_own_first_frame(script):
    before = interpreter_state()
    raised = program.run(str(script), ["--fail"])
    assert interpreter_state() == before
    assert isinstance(raised, ValueError)
    assert raised.__traceback__ is not None
    assert raised.__traceback__.tb_frame.f_code.co_filename == str(script)


def test_a_missing_program_is_one_line():
    with pytest.raises(program.ProgramNotFound, match=r"^cannot open 'no-such\.py': no such file$"):
        program.run("no-such.py", [])
    with pytest.raises(program.ProgramNotFound, match=r"^no module named 'no_such_module_here'$"):
        program.check("no_such_module_here", module=True)
