#!/usr/bin/env bash
# unshare -m hidden_system.sh BUNDLE CMD...: runs CMD in the private mount namespace unshare
# made (as root) where this machine's copies of what BUNDLE carries are unreachable, as on a bare GPU machine:
# Open MPI's, PMIx's, hwloc's, HDF5's and the BLAS' folders are covered by empty tmpfs mounts,
# and every file BUNDLE/MANIFEST.txt names as the source of a bundled file (HDF5, TOML++, Kokkos,
# dlib, Open MPI's libraries, orted...), and mpirun, ssh and rsh (a bare machine has none), by
# /dev/null. Nothing changes outside the namespace. Exit status: CMD's, or 1 when the namespace cannot be made.
set -euo pipefail
bundle=$1
shift
multiarch=$(gcc -print-multiarch)
for dir in /usr/lib/"$multiarch"/{openmpi,pmix2,hwloc,hdf5,openblas-pthread,blas,lapack} \
  /etc/openmpi /usr/share/openmpi; do
  if [ -d "$dir" ]; then mount -t tmpfs none "$dir"; fi
done
hide_file() { if [ -f "$1" ]; then mount --bind /dev/null "$1"; fi; }
while read -r source; do
  hide_file "$source"
done < <(sed -n 's/^ *[0-9][0-9]* [^ ]* <- //p' "$bundle/MANIFEST.txt")
for program in mpirun ssh rsh; do
  if command -v "$program" >/dev/null; then hide_file "$(readlink -f "$(command -v "$program")")"; fi
done
"$@"
