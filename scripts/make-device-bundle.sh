#!/usr/bin/env bash
# Builds scaletune for a bare GPU machine (no Open MPI, HDF5, TOML++, Kokkos, BLAS there; CUDA,
# cuDNN and NCCL are) and writes a self-contained bundle of at most 60 MiB into OUT:
#
#   scripts/make-device-bundle.sh [--build-dir DIR] [--no-build] [--jobs N] OUT
#
# --build-dir DIR  the build tree (default build-device/ in the checkout): configured Release,
#                  -DSCALETUNE_WERROR=ON, CUDA architectures 90;80, the generic BLAS interface
#                  (-DBLA_VENDOR=Generic), ccache when present; only scaletune and the
#                  device_bundle_tests target are built
# --no-build       take the binaries of DIR as they are (e.g. the main build/: its CUDA
#                  architectures are whatever it was configured with, 80 and 90 by default)
#
# OUT gets bin/scaletune, tests/ (device_tests, every device test in one, and the NCCL tests),
# lib/ (every shared library they need but the C/C++ runtime and CUDA's own), openmpi/ and pmix/
# (orted, plugins, help files and configuration for a singleton run), jobs/ (jobs/device-check/),
# and env.sh, run-checks.sh, compare-pytorch.py, MANIFEST.txt. Host BLAS and LAPACK are the netlib
# reference libraries (0.4 + 7 MiB; OpenBLAS alone is 35 MiB): a binary that names OpenBLAS is
# pointed at libblas.so.3 with patchelf. Exit status 0, or 1 with the reason (over 60 MiB: the
# largest files).
set -euo pipefail

readonly limit_mib=60
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=device-check/libraries.sh
source "$source_dir/scripts/device-check/libraries.sh"

die() { echo "make-device-bundle: $*" >&2; exit 1; }
usage() { sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2; exit 2; }

build_dir=$source_dir/build-device
build=1
jobs=$(nproc)
out=
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || usage; build_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "make-device-bundle: unknown option $1" >&2; usage ;;
    *) [ -z "$out" ] || usage; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  die "$out exists and is not empty; name a new folder"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ $build -eq 1 ]; then mkdir -p "$build_dir"; fi
[ -d "$build_dir" ] || die "no build tree $build_dir"
build_dir=$(cd "$build_dir" && pwd)

multiarch=$(gcc -print-multiarch)
reference_blas=/usr/lib/$multiarch/blas/libblas.so.3
reference_lapack=/usr/lib/$multiarch/lapack/liblapack.so.3

# --- build ----------------------------------------------------------------------------------

configure_and_build() {
  local launchers=()
  if command -v ccache >/dev/null; then
    launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSCALETUNE_WERROR=ON \
    "-DCMAKE_CUDA_ARCHITECTURES=90;80" -DBLA_VENDOR=Generic -DSCALETUNE_CHECK_HEADERS=OFF \
    "${launchers[@]}"
  nice -n 5 cmake --build "$build_dir" -j "$jobs" --target scaletune device_bundle_tests
}

# --- copying --------------------------------------------------------------------------------

is_elf() { readelf -h "$1" >/dev/null 2>&1; }

declare -A source_of  # bundle file -> where it was copied from
notes=()             # lines for MANIFEST.txt

# copy_stripped SRC DEST: DEST gets SRC's content (links followed) without symbols.
copy_stripped() {
  mkdir -p "$(dirname "$2")"
  cp -L "$1" "$2"
  chmod u+w "$2"
  if is_elf "$2"; then strip --strip-unneeded "$2"; fi
  source_of[$2]=$(readlink -f "$1")
}

# The device tests: the executables tests/device/bundle-tests.txt lists (CMake writes it from
# the test files there: device_tests, every test in one, and the NCCL tests).
copy_binaries() {
  local list=$build_dir/tests/device/bundle-tests.txt test
  [ -f "$list" ] || die "no $list: configure $build_dir with CUDA (nvcc, cuDNN in /usr/local/cuda)"
  copy_stripped "$build_dir/scaletune" "$out/bin/scaletune"
  while read -r test; do
    [ -x "$test" ] || die "$test is not built: cmake --build $build_dir --target device_bundle_tests"
    copy_stripped "$test" "$out/tests/$(basename "$test")"
  done <"$list"
}

# ompi_path NAME: one of Open MPI's installation folders (prefix, bindir, pkglibdir, ...).
ompi_path() { ompi_info --path "$1" --parsable | awk -F: -v k="$1" '$2 == k {print $3; exit}'; }

# needs_fabric FILE: FILE links a library the bundle does not carry (is_fabric_library).
needs_fabric() {
  local name
  for name in $(ldd "$1" | awk '/=>/ {print $1}'); do
    is_fabric_library "$name" && return 0
  done
  return 1
}

# Open MPI as OPAL_PREFIX=openmpi/ sees it: orted, the plugins a singleton can load (those that
# link fabric libraries are left out and listed in MANIFEST.txt), help files, configuration.
copy_open_mpi() {
  local prefix pkglibdir pkgdatadir plugin left_out=()
  prefix=$(ompi_path prefix)
  pkglibdir=$(ompi_path pkglibdir)
  pkgdatadir=$(ompi_path pkgdatadir)
  if [ -z "$prefix" ] || [ ! -d "$pkglibdir" ]; then
    die "ompi_info names no Open MPI plugin folder: install openmpi-bin"
  fi
  copy_stripped "$(ompi_path bindir)/orted" "$out/openmpi/bin/orted"
  for plugin in "$pkglibdir"/mca_*.so; do
    if needs_fabric "$plugin"; then
      left_out+=("$(basename "$plugin")")
    else
      copy_stripped "$plugin" "$out/openmpi/${pkglibdir#"$prefix"/}/$(basename "$plugin")"
    fi
  done
  mkdir -p "$(dirname "$out/openmpi/${pkgdatadir#"$prefix"/}")" "$out/openmpi/etc"
  cp -rL "$pkgdatadir" "$out/openmpi/${pkgdatadir#"$prefix"/}"
  cp "$(ompi_path sysconfdir)/openmpi-mca-params.conf" "$out/openmpi/etc/"
  notes+=("Open MPI plugins left out (they link fabric libraries): ${left_out[*]}")
}

# PMIx (Open MPI's runtime talks to orted through it): its plugins and help files, found beside
# libpmix, into pmix/lib/pmix/ and pmix/share/pmix/, where env.sh points PMIx.
copy_pmix() {
  local libpmix prefix
  libpmix=$(ldd "$(ompi_path pkglibdir)/mca_pmix_ext3x.so" | awk '$1 ~ /^libpmix\.so/ {print $3}')
  [ -n "$libpmix" ] || return 0  # Open MPI's internal PMIx: nothing outside it
  prefix=$(dirname "$(dirname "$(readlink -f "$libpmix")")")
  local plugin
  for plugin in "$prefix"/lib/pmix/*.so; do
    [ -e "$plugin" ] && copy_stripped "$plugin" "$out/pmix/lib/pmix/$(basename "$plugin")"
  done
  mkdir -p "$out/pmix/share"
  [ -d "$prefix/share/pmix" ] && cp -rL "$prefix/share/pmix" "$out/pmix/share/"
  return 0
}

# The netlib reference BLAS and LAPACK serve libblas.so.3 and liblapack.so.3; binaries that name
# OpenBLAS itself (a tree configured without -DBLA_VENDOR=Generic) are pointed at libblas.so.3.
use_reference_blas() {
  if [ ! -f "$reference_blas" ] || [ ! -f "$reference_lapack" ]; then
    die "the reference BLAS and LAPACK ($reference_blas, $reference_lapack) are missing: apt-get install libblas3 liblapack3"
  fi
  copy_stripped "$reference_blas" "$out/lib/libblas.so.3"
  copy_stripped "$reference_lapack" "$out/lib/liblapack.so.3"
  local file
  for file in "$out"/bin/* "$out"/tests/*; do
    readelf -d "$file" | grep -q '\[libopenblas\.so\.0\]' || continue
    command -v patchelf >/dev/null ||
      die "$file needs OpenBLAS (35 MiB): apt-get install patchelf, or build with -DBLA_VENDOR=Generic"
    patchelf --replace-needed libopenblas.so.0 libblas.so.3 "$file"
    notes+=("${file#"$out"/}: libopenblas.so.0 replaced by libblas.so.3 (patchelf)")
  done
}

# Copies into lib/ every library an ELF file of the bundle needs that is neither the C/C++
# runtime nor CUDA's, until nothing is missing; a library found nowhere is an error.
copy_libraries() {
  local changed=1 file name path
  while [ $changed -eq 1 ]; do
    changed=0
    while IFS= read -r -d '' file; do
      is_elf "$file" || continue
      while read -r name path; do
        if is_runtime_library "$name" || is_cuda_library "$name"; then continue; fi
        [ "$path" = "not" ] && die "$file needs $name, found nowhere"
        case $path in "$out"/*) continue ;; esac
        copy_stripped "$path" "$out/lib/$name"
        changed=1
      done < <(LD_LIBRARY_PATH=$out/lib ldd "$file" | awk '/=>/ {print $1, $3}')
    done < <(find "$out" -type f -print0)
  done
}

copy_scripts_and_jobs() {
  local dir=$source_dir/scripts/device-check
  cp "$dir/run-checks.sh" "$dir/env.sh" "$dir/cuda_versions.py" "$source_dir/scripts/compare-pytorch.py" "$out/"
  chmod +x "$out/run-checks.sh" "$out/compare-pytorch.py"
  mkdir -p "$out/jobs"
  cp "$source_dir"/jobs/device-check/* "$out/jobs/"
}

write_manifest() {
  local archs
  archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
  {
    echo "scaletune device bundle"
    echo "built:        $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
    echo "source:       $(git -C "$source_dir" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "build tree:   $build_dir (CUDA architectures: ${archs:-the project default, 80;90})"
    echo "host BLAS:    netlib reference (libblas.so.3, liblapack.so.3)"
    printf '%s\n' "${notes[@]}"
    echo
    echo "bytes     file (largest first) <- copied from"
    local size file
    while read -r size file; do
      printf '%9d %s%s\n' "$size" "$file" "${source_of[$out/$file]:+ <- ${source_of[$out/$file]}}"
    done < <(find "$out" -type f ! -name MANIFEST.txt -printf '%s %P\n' | sort -rn)
  } >"$out/MANIFEST.txt"
}

check_size() {
  local bytes
  bytes=$(du -sb "$out" | cut -f1)
  if [ "$bytes" -gt $((limit_mib * 1024 * 1024)) ]; then
    echo "make-device-bundle: $out is $((bytes / 1048576)) MiB, more than $limit_mib MiB; largest files:" >&2
    find "$out" -type f -printf '%s %P\n' | sort -rn | head -10 |
      awk '{printf "  %7.2f MiB  %s\n", $1 / 1048576, $2}' >&2
    exit 1
  fi
  echo "make-device-bundle: wrote $out ($(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MiB of $limit_mib)"
}

[ $build -eq 1 ] && configure_and_build
[ -f "$build_dir/scaletune" ] || die "no scaletune in $build_dir: build it first, or drop --no-build"
copy_binaries
copy_open_mpi
copy_pmix
use_reference_blas
copy_libraries
copy_scripts_and_jobs
write_manifest
check_size
