# shellcheck shell=bash
# The environment a scaletune device bundle runs in, sourced (bash) by run-checks.sh, or by hand
# before running the bundle's programs yourself:  source BUNDLE/env.sh
#
# Reads:  CUDA_HOME        the CUDA toolkit (default /usr/local/cuda)
#         SCALETUNE_PYTHON a python3 whose nvidia.* wheels hold cuDNN and NCCL
#                          (default /opt/torch/.venv/bin/python3, PyTorch's virtual environment)
# Sets:   SCALETUNE_BUNDLE        this folder
#         SCALETUNE_CUDA_LIB_DIRS the CUDA library folders found, one per line
#         LD_LIBRARY_PATH         the bundle's lib/, then the CUDA folders, then what was there
#         OPAL_PREFIX, OPAL_SYSCONFDIR, PMIX_PKGDATADIR, PMIX_MCA_mca_base_component_path
#                                 Open MPI's and PMIx's files in the bundle (a singleton run
#                                 still starts Open MPI's orted, which needs them)
#         OMPI_MCA_plm=isolated   orted started without ssh or rsh
#         OMPI_ALLOW_RUN_AS_ROOT[_CONFIRM]  when run as root

SCALETUNE_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCALETUNE_BUNDLE
: "${CUDA_HOME:=/usr/local/cuda}"
: "${SCALETUNE_PYTHON:=/opt/torch/.venv/bin/python3}"

# The lib folders of the python's nvidia.* wheels (cuDNN, NCCL, cuBLAS, the CUDA runtime, ...),
# one per line: asked of python, else globbed under its virtual environment.
_scaletune_wheel_lib_dirs() {
  [ -x "$SCALETUNE_PYTHON" ] || return 0
  "$SCALETUNE_PYTHON" - 2>/dev/null <<'PY' && return 0
import glob, importlib, os
found = []
for name in ("nvidia.cudnn", "nvidia.nccl", "nvidia.cublas", "nvidia.cuda_runtime",
             "nvidia.cuda_nvrtc", "nvidia.nvjitlink", "nvidia.cu13", "nvidia"):
    try:
        module = importlib.import_module(name)
    except ImportError:
        continue
    for path in module.__path__:
        for lib in [os.path.join(path, "lib")] + sorted(glob.glob(os.path.join(path, "*", "lib"))):
            if os.path.isdir(lib) and lib not in found:
                found.append(lib)
print("\n".join(found))
PY
  local venv
  venv=$(dirname "$(dirname "$SCALETUNE_PYTHON")")
  local lib
  for lib in "$venv"/lib/python3*/site-packages/nvidia/*/lib; do
    [ -d "$lib" ] && echo "$lib"
  done
}

_scaletune_cuda_lib_dirs() {
  local dir
  for dir in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"; do
    [ -d "$dir" ] && echo "$dir"
  done
  _scaletune_wheel_lib_dirs
}

SCALETUNE_CUDA_LIB_DIRS=$(_scaletune_cuda_lib_dirs | awk 'NF && !seen[$0]++')
export SCALETUNE_CUDA_LIB_DIRS
LD_LIBRARY_PATH=$SCALETUNE_BUNDLE/lib${SCALETUNE_CUDA_LIB_DIRS:+:${SCALETUNE_CUDA_LIB_DIRS//$'\n'/:}}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

# Open MPI finds its plugins, help files and orted under OPAL_PREFIX; its configuration folder
# was configured as an absolute path, so it is named on its own. PMIx's folders were all
# configured absolute: its help files and plugins are named one by one.
export OPAL_PREFIX=$SCALETUNE_BUNDLE/openmpi
export OPAL_SYSCONFDIR=$SCALETUNE_BUNDLE/openmpi/etc
export PMIX_PKGDATADIR=$SCALETUNE_BUNDLE/pmix/share/pmix
export PMIX_MCA_mca_base_component_path=$SCALETUNE_BUNDLE/pmix/lib/pmix
# orted starts on this machine alone: the rsh launcher (Open MPI's default) refuses to start it
# when there is no ssh or rsh, as on a bare machine.
export OMPI_MCA_plm=isolated
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
unset -f _scaletune_wheel_lib_dirs _scaletune_cuda_lib_dirs
