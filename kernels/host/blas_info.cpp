#include "blas_info.hpp"

#include <dlfcn.h>

#include <filesystem>

extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*,
                       const int*);

namespace scaletune::kernels {

std::string blas_description() {
  Dl_info info{};
  std::string text = "unknown BLAS";
  if (dladdr(reinterpret_cast<void*>(&sgemm_), &info) != 0 && info.dli_fname != nullptr)
    text = std::filesystem::canonical(info.dli_fname).filename().string();
  using CoreName = const char* (*)();
  if (auto* fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename")))
    text += " core=" + std::string(fn());
  return text;
}

}  // namespace scaletune::kernels

namespace scaletune::kernels {

bool set_blas_threads(int threads) {
  using SetThreads = void (*)(int);
  auto* fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (fn == nullptr) return false;
  fn(threads);
  return true;
}

}  // namespace scaletune::kernels
