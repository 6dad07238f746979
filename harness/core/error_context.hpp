#pragma once
// Where this process runs, for error messages: every MPI, NCCL, CUDA, cuBLAS and cuDNN error
// names rank, host and device the same way (STYLE.md "Errors"). The command line sets it once
// MPI is up and again once the rank's device is bound; the checked wrappers read it.

#include <string>

namespace scaletune::core {

/// The process's place in the launch.
struct ErrorContext {
  int rank = -1;       ///< world rank; -1: not known yet
  std::string host;    ///< host name (MPI_Get_processor_name)
  std::string device;  ///< e.g. "cuda:1 NVIDIA H200" or "host-core:3"; empty: not bound yet
};

/// Records this process's world rank, host and device (empty: not known yet). Replaces what an
/// earlier call recorded. Thread-safe.
void set_error_context(int rank, std::string host, std::string device);

/// What set_error_context() recorded last (rank -1 before any call). Thread-safe.
ErrorContext current_error_context();

/// "on rank 3 (host gpu12, device cuda:1 NVIDIA H200)"; "on rank 3 (host gpu12)" without a
/// device; "" while c.rank < 0 (nothing set).
std::string describe_error_context(const ErrorContext& c);

/// describe_error_context(current_error_context()).
std::string error_context();

/// The message of a failed library call: "<call> failed at <file>:<line> <error_context()>:
/// <detail>", the context left out (with its space) while none is set. The one format of
/// check_mpi, check_nccl, check_cuda, check_cublas and check_cudnn.
std::string failed_call_message(const char* call, const char* file, int line,
                                const std::string& detail);

}  // namespace scaletune::core
