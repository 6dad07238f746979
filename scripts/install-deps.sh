#!/usr/bin/env bash
# Installs the Debian 12 packages scaletune needs, only those that are missing; with the
# argument "fuzz" also clang and libFuzzer (make fuzz).
# As root it runs apt-get; otherwise it prints the apt-get line to run and fails.
# CUDA, NCCL and cuDNN are not Debian packages: the build uses them from /usr/local/cuda when
# present and leaves the CUDA parts out otherwise.
set -euo pipefail

packages=(
  cmake make g++ git pkg-config
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libtomlplusplus-dev
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  libopenblas-dev libeigen3-dev libdlib-dev nlohmann-json3-dev
  gnuplot-nox
  libgtest-dev libbenchmark-dev
  python3-h5py
  patchelf libblas3 liblapack3   # the GPU node bundle (scripts/make-device-bundle.sh)
)
if [ "${1:-}" = fuzz ]; then
  packages+=(clang libfuzzer-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "scaletune: missing Debian packages: ${missing[*]}" >&2
  echo "run as root:  $line" >&2
  exit 1
fi
echo "scaletune: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
