"""The installed torch, as verification needs it: importing it (a broken install fails in many
ways, each named), its version, whether CUDA is there. torch is imported here, lazily: nothing
that imports this module pays for torch before it asks.
"""

from __future__ import annotations


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def torch_version() -> str:
    import torch

    return torch.__version__


class TorchUnavailable(Exception):
    """torch is missing, or is installed but fails to import; the message says which."""


def import_torch() -> str:
    """Import torch for ``check`` and ``record``: its version, or :class:`TorchUnavailable`.

    A broken install fails in many ways (a missing CUDA library's ``OSError``, an
    ``ImportError`` inside torch, even ``SystemExit`` at import); each is named as it is."""
    import importlib.util

    try:
        import torch
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any failure is reported
        if isinstance(error, ModuleNotFoundError) and error.name == "torch":
            raise TorchUnavailable("torch is not installed; `pip install torch`") from None
        if importlib.util.find_spec("torch") is None:
            raise TorchUnavailable("torch is not installed; `pip install torch`") from None
        if isinstance(error, SystemExit):
            reason = f"SystemExit({error.code!r})"
        else:
            lines = str(error).strip().splitlines()
            reason = type(error).__name__ + (f": {lines[0]}" if lines else "")
        raise TorchUnavailable(f"torch is installed but fails to import: {reason}") from None
    return str(torch.__version__)
