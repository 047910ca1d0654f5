"""A traceback's frames as a paste shows them, and which of them are the user's own code.

A frame is read from each of the formats a paste holds: Python's (``File "x.py", line 3, in
f`` then the code), IPython's (``File ~/x.py:3, in f`` or ``Cell In[2], line 3``, then the
numbered context with ``----> 3 code``), and older IPython's and Colab's (``<ipython-input-2-
ab12> in <module>``, ``[/tmp/ipython-input-123.py](https://localhost:8080/#) in <cell line: 0>()``,
with the line number on the arrow). Which frames make up which traceback is
:mod:`.tracebacks`'s to say.

A frame is the user's unless its file is a library's: an installed package (site-packages,
dist-packages), torch, Python's standard library (``/usr/lib/python3.7/runpy.py``), a frozen
module or generated code (``<frozen runpy>``, ``<string>``), or a launcher in an environment's
``bin/`` (``venv/bin/torchrun``: ``sys.exit(main())``). A notebook cell is the user's, and is
named as the notebook shows it: ``Cell In[3], line 4``. The user's line of a paste is
:func:`.tracebacks.user_frame`.

The browser's matcher (``browser/static/autograd-matcher.js``) reads frames the same way, with
these constants exported to it (``browser/export.py``). String operations only: ``re`` costs
``explain`` more start-up than this whole module.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

#: Parts of a file's path that make its frame a library's: installed packages, torch, Python's
#: own library, a Python or conda installation. Compared in lower case, with ``/`` for ``\``.
LIBRARY_PARTS = (
    "site-packages",
    "dist-packages",
    "/torch/",
    "/lib/python2",
    "/lib/python3",
    "/lib64/python3",
    "/.pyenv/versions/",
    "/python.framework/",
    "/anaconda2/",
    "/anaconda3/",
    "/miniconda2/",
    "/miniconda3/",
    "/miniforge3/",
    "/mambaforge/",
    "/opt/conda/",
)
#: Windows' standard library, compared as written (a project may have a ``lib`` folder).
WINDOWS_STDLIB = "\\Lib\\"
#: A launcher installed with a package (``venv/bin/torchrun``, ``Scripts\\accelerate``): a
#: file in one of these folders whose code starts so.
LAUNCHER_FOLDERS = ("bin", "Scripts")
LAUNCHER_CODE = "sys.exit("
#: What follows the category of a warning's location line (``x.py:3: UserWarning: ...``).
WARNING_MARKER = "Warning: "
#: Files in angle brackets are generated code (``<frozen runpy>``, ``<string>``,
#: ``<decorator-gen-3>``), except these, which the user typed.
TYPED_NAMES = ("<stdin>", "<ipython-input-")
#: Where PyTorch's own Python code lives. A message raised by a ``raise`` line elsewhere is not
#: PyTorch's, though it may copy PyTorch's words (tinygrad's "Only Tensors of floating point
#: dtype can require gradients").
TORCH_PARTS = ("/torch/", "/functorch/")
#: The shortest start of a ``raise`` line's string taken as the message it raised: a few words.
MIN_RAISED_LITERAL = 12
#: The longest line number read.
MAX_DIGITS = 9
#: The files of a Jupyter kernel's cells (``/tmp/ipykernel_4242/1234.py``) and Colab's
#: (``/tmp/ipython-input-1234.py``), where no cell number is shown.
CELL_FILE_PARTS = ("/ipykernel_", "\\ipykernel_", "/ipython-input-", "\\ipython-input-")


class Frame:
    """One frame of a traceback: ``file``, ``line`` (a number) and the ``code`` shown for it.

    ``cell``: for a notebook cell, its execution number (``Cell In[3]``: 3), or 0 when the
    paste does not show it (a Jupyter kernel's file, Colab's); None for a file. ``context``:
    the other lines of code the traceback shows around it (IPython shows a few)."""

    __slots__ = ("cell", "code", "context", "file", "line")

    def __init__(
        self,
        file: str,
        line: int,
        code: str,
        cell: int | None = None,
        context: tuple[str, ...] = (),
    ) -> None:
        self.file = file
        self.line = line
        self.code = code
        self.cell = cell
        self.context = context

    def __repr__(self) -> str:
        cell = "" if self.cell is None else f", cell={self.cell}"
        return f"Frame({self.file!r}, {self.line}, {self.code!r}{cell})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[str, int, str, int | None]:
        return (self.file, self.line, self.code, self.cell)

    def as_json(self) -> dict[str, object]:
        """``{"file", "line", "code", "cell"}``: ``cell`` is null for a file, else
        ``{"number": N}`` (null when the paste does not show it)."""
        cell = None if self.cell is None else {"number": self.cell or None}
        return {"file": self.file, "line": self.line, "code": self.code, "cell": cell}

    @property
    def in_library(self) -> bool:
        return is_library(self.file, self.code)


def is_library(file: str, code: str = "") -> bool:
    """Whether a frame in ``file`` showing ``code`` is a library's, not the user's own code."""
    if file.startswith("<"):
        return not file.startswith(TYPED_NAMES)
    path = file.replace("\\", "/")
    lowered = path.lower()
    if any(part in lowered for part in LIBRARY_PARTS) or WINDOWS_STDLIB in file:
        return True
    folder = path.rpartition("/")[0].rpartition("/")[2]
    return folder in LAUNCHER_FOLDERS and code.startswith(LAUNCHER_CODE)


def raised_literal(code: str) -> str:
    """The start of the string a ``raise`` line raises, up to its first placeholder (``{``),
    or "" when the line raises no such string (a variable, ``str(error)``, a bare ``raise``)."""
    if not code.startswith("raise "):
        return ""
    quotes = [at for at in (code.find('"'), code.find("'")) if at != -1]
    if not quotes:
        return ""
    start = min(quotes)
    end = code.find(code[start], start + 1)
    literal = code[start + 1 : end if end != -1 else len(code)].split("{", 1)[0].strip()
    return literal if len(literal) >= MIN_RAISED_LITERAL else ""


def raises_outside_torch(frame: Frame, message: str) -> bool:
    """Whether ``frame``'s line raises ``message`` (the start of its string is in it) from a
    file that is not PyTorch's: another library's copy of PyTorch's words."""
    path = "/" + frame.file.replace("\\", "/").lower()  # a relative torch/... path too
    if any(part in path for part in TORCH_PARTS):
        return False
    literal = raised_literal(frame.code.strip())
    return bool(literal) and literal in message


def cell_of(file: str, cells: Mapping[str, int] | None = None) -> int | None:
    """The cell number of a frame's ``file`` (0: a cell whose number is not shown), or None
    for a file; ``cells``: the running kernel's own names for its cells' files."""
    if cells and file in cells:
        return cells[file]
    if file.startswith("Cell In[") and file.endswith("]"):  # IPython's own name: Cell In[3]
        number = file[len("Cell In[") : -1]
        return int(number) if is_number(number) else 0
    if file.startswith("<ipython-input-"):  # <ipython-input-3-d55b3fc56974>
        number = file[len("<ipython-input-") :].partition("-")[0]
        return int(number) if is_number(number) else 0
    if any(part in file for part in CELL_FILE_PARTS):
        return 0
    return None


def header(stripped: str) -> tuple[str, int, str] | None:
    """``(file, line, style)`` of a frame's first line, or None. ``style``: "python" (the code
    follows on its own line), "warning" (where a warning was issued, ``x.py:3: UserWarning:
    ...``: the same), "ipython" (numbered context lines follow), "arrow" (the same, and the line
    number is the arrow's: ``line`` is 0)."""
    if stripped.startswith('File "'):  # Python: File "x.py", line 3, in f
        file, quote, rest = stripped[6:].partition('"')
        if quote and rest.startswith(", line "):
            number = rest[7:].partition(",")[0].strip()
            if is_number(number):
                return file, int(number), "python"
        return None
    if stripped.startswith("File "):  # IPython: File ~/x.py:3, in f
        location = stripped[5:].partition(", in ")[0].strip()
        file, colon, number = location.rpartition(":")
        if colon and file and is_number(number):
            return file, int(number), "ipython"
        return None
    if stripped.startswith("Cell In["):  # IPython: Cell In[2], line 3
        cell, _, rest = stripped.partition(", line ")
        number = rest.partition(",")[0].strip()
        if is_number(number) and cell.endswith("]") and is_number(cell[8:-1]):
            return cell, int(number), "ipython"
        return None
    return _warning_header(stripped) or _arrow_header(stripped)


def _warning_header(stripped: str) -> tuple[str, int, str] | None:
    """Where a warning was issued, as Python prints it: ``x.py:3: UserWarning: message``."""
    marker = stripped.find(WARNING_MARKER)
    if marker == -1:
        return None
    location, colon, category = stripped[:marker].rpartition(": ")
    if not colon or not is_word(category.replace(".", "")):
        return None
    file, colon, number = location.rpartition(":")
    if colon and file and is_number(number):
        return file, int(number), "warning"
    return None


def _arrow_header(stripped: str) -> tuple[str, int, str] | None:
    """Older IPython's and Colab's frame line: ``FILE in FUNCTION(ARGS)``."""
    file, found, function = stripped.partition(" in ")
    if not found or not (function.endswith(")") or function == "<module>"):
        return None
    if file.startswith("[") and "](" in file and file.endswith(")"):  # Colab: [path](link)
        file = file[1 : file.index("](")]
    if file.startswith("<ipython-input-") and file.endswith(">"):
        return file, 0, "arrow"
    if file.endswith((".py", ".pyc", ".pyx")) and ("/" in file or "\\" in file):
        return file, 0, "arrow"
    return None


def arrow_line(stripped: str) -> tuple[int, str] | None:
    """``(number, code)`` of IPython's arrow line (``----> 3 code``, ``--> 623 code``)."""
    if not stripped.startswith("-"):
        return None
    rest = stripped.lstrip("-")
    if not rest.startswith(">"):
        return None
    number, _, code = rest[1:].strip().partition(" ")
    return (int(number), code.strip()) if is_number(number) else None


def context_line(stripped: str) -> str | None:
    """The code of IPython's numbered context line (``   7 x = 1``; ``(...)`` for lines left
    out gives ""), or None for another line."""
    if stripped.startswith("(...)"):
        stripped = stripped[5:].strip()
        if not stripped:
            return ""
    number, _, code = stripped.partition(" ")
    return code.strip() if is_number(number) else None


def is_caret_line(stripped: str) -> bool:
    """Python's markers under the code (``^^^^``, ``~~~~^^^``)."""
    return bool(stripped) and set(stripped) <= set("^~ ")


def is_exception_line(stripped: str) -> bool:
    """``RuntimeError: ...``, ``torch.OutOfMemoryError: ...``: not code."""
    name, colon, _ = stripped.partition(":")
    return bool(colon) and is_word(name.replace(".", "")) and "A" <= name[:1] <= "Z"


def is_number(text: str) -> bool:
    """A line or cell number as a traceback prints it: 1 to 9 ASCII digits (``str.isdigit``
    takes ``²`` too, and ``int`` refuses thousands of digits)."""
    return 0 < len(text) <= MAX_DIGITS and all("0" <= char <= "9" for char in text)


def is_word(text: str) -> bool:
    """ASCII letters, digits and ``_`` only (empty: yes)."""
    return all(char.isascii() and (char.isalnum() or char == "_") for char in text)


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def user_frames(frames: list[Frame]) -> list[Frame]:
    return [frame for frame in frames if not frame.in_library]


def named_cells(frames: list[Frame], cells: Mapping[str, int] | None) -> list[Frame]:
    """``frames`` with their notebook cells named (:func:`cell_of`)."""
    for frame in frames:
        frame.cell = cell_of(frame.file, cells)
    return frames
