#!/usr/bin/env python3
"""Prints the CUDA driver's, runtime's, cuBLAS', cuDNN's and NCCL's versions and the files they
were loaded from, as the dynamic loader finds them under the current LD_LIBRARY_PATH (the one
env.sh sets), by calling each library's version function through ctypes.

    python3 cuda_versions.py

One line per library: name, version (or why none), path. Exit status 0 when every library loads,
1 otherwise.
"""

import ctypes
import sys


class _LinkMap(ctypes.Structure):
    """glibc's struct link_map (link.h), its public fields."""

    _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p),
                ("l_ld", ctypes.c_void_p), ("l_next", ctypes.c_void_p),
                ("l_prev", ctypes.c_void_p)]


def loaded_path(lib):
    """The file the loader mapped for `lib` (a ctypes.CDLL): dlinfo(RTLD_DI_LINKMAP)."""
    rtld_di_linkmap = 2
    link_map = ctypes.POINTER(_LinkMap)()
    if ctypes.CDLL(None).dlinfo(ctypes.c_void_p(lib._handle), rtld_di_linkmap,
                                ctypes.byref(link_map)) != 0:
        return "?"
    return link_map.contents.l_name.decode()


def int_out(fn, *args):
    """Calls fn(*args, &value) and returns value, or raises on a non-zero status."""
    value = ctypes.c_int(0)
    status = fn(*args, ctypes.byref(value))
    if status != 0:
        raise RuntimeError(f"status {status}")
    return value.value


def major_minor(v, major_scale, minor_scale):
    return f"{v // major_scale}.{(v % major_scale) // minor_scale}"


def driver(lib):
    return major_minor(int_out(lib.cuDriverGetVersion), 1000, 10)


def runtime(lib):
    return major_minor(int_out(lib.cudaRuntimeGetVersion), 1000, 10)


def cublas(lib):
    parts = [int_out(lib.cublasGetProperty, k) for k in (0, 1, 2)]  # MAJOR, MINOR, PATCH_LEVEL
    return ".".join(map(str, parts))


def cudnn(lib):
    lib.cudnnGetVersion.restype = ctypes.c_size_t
    v = lib.cudnnGetVersion()  # 9.x: major * 10000 + minor * 100 + patch
    return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"


def nccl(lib):
    v = int_out(lib.ncclGetVersion)  # >= 2.9: major * 10000 + minor * 100 + patch
    return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"


LIBRARIES = [
    ("driver", "libcuda.so.1", driver),
    ("runtime", "libcudart.so.13", runtime),
    ("cuBLAS", "libcublas.so.13", cublas),
    ("cuDNN", "libcudnn.so.9", cudnn),
    ("NCCL", "libnccl.so.2", nccl),
]


def main():
    ok = True
    for what, soname, version in LIBRARIES:
        try:
            lib = ctypes.CDLL(soname)
        except OSError as e:
            print(f"{what:8} {'not found':12} {soname}: {e}")
            ok = False
            continue
        try:
            text = version(lib)
        except (RuntimeError, AttributeError) as e:
            text = f"unknown ({e})"
        print(f"{what:8} {text:12} {loaded_path(lib)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
