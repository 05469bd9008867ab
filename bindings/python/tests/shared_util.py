"""The shared real models (ONNXFORGE_DATA, default ../shared next to the checkout), shared by the
binding's tests: a test whose model is missing skips, never passes silently."""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def shared_model(name: str) -> Path:
    data = Path(os.environ.get("ONNXFORGE_DATA") or ROOT.parent / "shared")
    p = data / "models" / name / "model.onnx"
    if not p.exists():
        pytest.skip(f"shared model {name} not found under {data} (set ONNXFORGE_DATA)")
    return p
