#pragma once
// Which BLAS the host GEMMs call: a host measurement without its BLAS is not reproducible
// (TOOLCHAIN.md "BLAS on these machines").

#include <string>

namespace scaletune::kernels {

/// The shared library that provides sgemm_ (e.g. "libopenblasp-r0.3.21.so"), followed by the
/// OpenBLAS core in use ("core=Prescott") when the library is OpenBLAS.
std::string blas_description();

}  // namespace scaletune::kernels

namespace scaletune::kernels {

/// Asks the BLAS to use `threads` threads when it offers a way (OpenBLAS's
/// openblas_set_num_threads); one rank per core uses 1. Returns whether the BLAS took it.
bool set_blas_threads(int threads);

}  // namespace scaletune::kernels
