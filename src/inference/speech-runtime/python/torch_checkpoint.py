"""
PyTorch checkpoints read without torch (a zip of a pickle and raw tensors), unpickled with a whitelist
(the in-process twin: src/inference/onnx/torch-checkpoint.ts).
"""
import io
import pickle
import zipfile

import numpy as np

_DTYPES = {"FloatStorage": np.float32, "LongStorage": np.int64, "HalfStorage": np.float16, "DoubleStorage": np.float64, "IntStorage": np.int32}


class _StorageType:
    def __init__(self, name):
        self.dtype = _DTYPES[name]


def _rebuild_tensor(storage, offset, size, stride, *_rest):
    if not size:
        return storage[offset:offset + 1].reshape(()).copy()
    item = storage.itemsize
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size), strides=tuple(s * item for s in stride)).copy()


class _Opaque:
    def __init__(self, *args, **kwargs):
        self.args = args

    def __setstate__(self, state):
        self.state = state


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, zf, prefix):
        super().__init__(f)
        self.zf, self.prefix = zf, prefix

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return _StorageType(name)
        if module == "collections" and name == "OrderedDict":
            import collections
            return collections.OrderedDict
        # Anything else (a training checkpoint's version and task descriptions) is kept as an inert
        # placeholder: no class named by the file is ever imported or called.
        return _Opaque

    def persistent_load(self, pid):
        _kind, storage_type, key, _location, _numel = pid
        raw = self.zf.read(f"{self.prefix}/data/{key}")
        return np.frombuffer(raw, dtype=storage_type.dtype)


def load_state_dict(path):
    with zipfile.ZipFile(path) as zf:
        pkl = next(n for n in zf.namelist() if n.endswith("/data.pkl"))
        prefix = pkl[: -len("/data.pkl")]
        return _Unpickler(io.BytesIO(zf.read(pkl)), zf, prefix).load()
