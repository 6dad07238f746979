# shellcheck shell=bash
# Which shared libraries a device bundle carries and which it expects on the GPU machine.
# Sourced (bash) by scripts/make-device-bundle.sh and by the bundle's test; each function takes
# a library name as ldd prints it (its soname, e.g. libcudnn.so.9) and succeeds or fails.

# The C and C++ runtime: glibc's libraries (never copied: they use glibc-private symbols of the
# machine's own libc), the dynamic loader, libstdc++ and libgcc_s.
is_runtime_library() {
  [[ $1 =~ ^(linux-vdso|ld-linux[^/]*|lib(c|m|dl|pthread|rt|resolv|util|anl|nsl|mvec))\.so ]] ||
    [[ $1 =~ ^lib(stdc\+\+|gcc_s)\.so ]]
}

# CUDA's own libraries: the driver's (libcuda, libnvidia-*) and the toolkit's and its wheels'
# (runtime, cuBLAS, cuDNN, NCCL, NVRTC, nvJitLink, ...), found there by env.sh.
is_cuda_library() {
  [[ $1 =~ ^lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|nvrtc[a-z.-]*|nvJitLink|cufftw?|curand|cusolver[A-Za-z]*|cusparse[A-Za-z]*|cupti|nvToolsExt|nvperf_[a-z]+|nvidia-[a-z-]+)\.so ]]
}

# Fabric libraries of Open MPI plugins a singleton run does not need (UCX, libfabric, verbs, PSM,
# netlink) and OpenSHMEM: plugins that link them are left out of the bundle.
is_fabric_library() {
  [[ $1 =~ ^lib(ucp|uct|ucs|ucm|fabric|ibverbs|rdmacm|efa|mlx[45]|psm_infinipath|psm2|infinipath|nl-3|nl-route-3|oshmem)\.so ]]
}
