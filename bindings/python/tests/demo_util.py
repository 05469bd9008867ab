"""The built-in demo model and an input for it, shared by the binding's tests."""
import numpy as np

import onnxforge


def demo_bytes() -> bytes:
    with onnxforge.demo() as m:
        return m.to_bytes()


def demo_input(m: onnxforge.Model) -> dict:
    """A seeded input for the demo's first input, symbolic dims set to 2."""
    x = m.inputs[0]
    shape = [2 if not isinstance(d, int) else d for d in x.shape]
    return {x.name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
