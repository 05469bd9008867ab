"""The tensor files (.pb, one TensorProto each) of an ONNX test_data_set folder, read with the onnx
package, and the element types ONNX Runtime's ort_run.js takes raw input files in. Shared by
bench/ort_bench.py and tests/opset_models.py, which both hand a model's test inputs to ort_run.js.
"""
import os

# ONNX element type -> the numpy dtype name of a raw input file for ort_run.js.
ORT_DTYPES = {1: "float32", 11: "float64", 7: "int64", 6: "int32", 3: "int8", 2: "uint8", 9: "bool", 10: "float16"}


def read_tensor(path):
    """The TensorProto in the file at path, and its value as a numpy array."""
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t, numpy_helper.to_array(t)


def input_files(data_set):
    """input_0.pb, input_1.pb, ... of a test_data_set folder, in order, up to the first one missing."""
    k = 0
    while os.path.exists(os.path.join(data_set, "input_%d.pb" % k)):
        yield os.path.join(data_set, "input_%d.pb" % k)
        k += 1
