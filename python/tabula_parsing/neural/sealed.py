"""Files of saved PyTorch state with their SHA-256: models and training
checkpoints are written as a ``SEALED`` outer layer whose payload is the
state's bytes, so that a damaged file is found out before anything in it
is used, and read back with ``torch.load``'s ``weights_only`` (tensors and
plain values only, never code)."""

from __future__ import annotations

import hashlib
import io
import os
from typing import Any, Union

import torch

from .. import _tabula as tp

SEALED = "tabula-neural-2"
PathLike = Union[str, "os.PathLike[str]"]


def seal(state: dict[str, Any]) -> bytes:
    """The file's bytes for ``state``: its ``torch.save`` bytes and their
    SHA-256 in a ``SEALED`` outer layer."""
    buf = io.BytesIO()
    torch.save(state, buf)
    payload = buf.getvalue()
    sealed = {
        "format": SEALED,
        "sha256": hashlib.sha256(payload).hexdigest(),
        "payload": torch.frombuffer(bytearray(payload), dtype=torch.uint8),
    }
    out = io.BytesIO()
    torch.save(sealed, out)
    return out.getvalue()


def unseal(path: PathLike, what: str) -> Any:
    """The state a file of :func:`seal` holds, its checksum checked (a file
    saved without the outer layer is returned as read); ``ValueError``
    "PATH: not a WHAT" for any other file or a damaged one."""
    state = torch_load(path, path, what)
    if isinstance(state, dict) and state.get("format") == SEALED:
        payload, digest = state.get("payload"), state.get("sha256")
        if not isinstance(payload, torch.Tensor) or payload.dtype != torch.uint8 or payload.dim() != 1:
            raise ValueError(f"{path}: not a {what}: no saved state in it")
        data = payload.numpy().tobytes()
        if not isinstance(digest, str) or hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"{path}: not a {what} (checksum mismatch: the file is damaged)")
        state = torch_load(io.BytesIO(data), path, what)
    return state


def torch_load(source: Any, path: PathLike, what: str) -> Any:
    """``torch.load`` of tensors and plain values only; any failure but a
    missing file is "PATH: not a WHAT"."""
    try:
        return torch.load(source, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # torch raises many kinds for a file that is not its own
        kind = None
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as f:
                kind = tp.file_kind(f.read(1 << 16))
        if kind is not None:
            raise ValueError(f"{path}: not a {what}: line {kind[0]} shows {kind[1]}") from None
        raise ValueError(f"{path}: not a {what} ({type(e).__name__})") from None
