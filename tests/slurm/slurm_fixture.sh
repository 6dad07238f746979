# A one-node Slurm cluster on localhost for the tests: munged, slurmctld and slurmd with their
# own munge key, slurm.conf, ports, state and logs in one temporary folder, $SLURM_DIR.
#
#   source slurm_fixture.sh
#   slurm_start   # installs missing packages (root), starts the daemons, exports SLURM_CONF;
#                 # where Slurm cannot start: prints "SKIP: <why>" and exits 77
#   ...           # sbatch, srun, sinfo talk to this cluster
#   slurm_stop    # kills the daemons by PID, waits, removes the folder (also run on exit)
#
# Configuration: the "Slurm 22.05 on one node" lines of shared/TOOLCHAIN.md; no cgroups
# (proctrack/linuxproc, task/none), 8 CPUs declared so jobs of more than 2 tasks start.
# Daemons that an earlier run left behind (its test shell gone) are stopped first.

SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)
SLURM_SKIP_STATUS=77
SLURM_INSTALL_TIMEOUT_S=300
SLURM_START_TIMEOUT_S=60
SLURM_STOP_TIMEOUT_S=10
SLURM_PREFIX="${TMPDIR:-/tmp}/scaletune-slurm."
SLURM_DIR=""
# shellcheck disable=SC2034 # read by the tests
SLURM_INSTALL_S=0 SLURM_START_S=0

slurm_skip() {
  echo "SKIP: $*"
  exit "$SLURM_SKIP_STATUS"
}

# slurm_now: seconds since the epoch, with nanoseconds.
slurm_now() { date +%s.%N; }
# slurm_elapsed T0: seconds since T0 (from slurm_now), one decimal.
slurm_elapsed() { awk -v t0="$1" -v t1="$(slurm_now)" 'BEGIN { printf "%.1f", t1 - t0 }'; }

# _slurm_start_time PID: the process's start time in clock ticks (/proc/PID/stat field 22),
# which tells a live process from a later one that got the same PID.
_slurm_start_time() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'; }

# _slurm_owner_alive DIR: whether the test shell that made DIR still runs.
_slurm_owner_alive() {
  local pid start
  read -r pid start 2>/dev/null <"$1/owner" || return 1
  [ -n "$pid" ] && [ "$(_slurm_start_time "$pid")" = "$start" ]
}

# _slurm_procs TEXT: PIDs of the processes whose command line or environment holds TEXT (the
# daemons name their folder in -f/--socket, job steps inherit SLURM_CONF), except this shell.
# The pattern goes in through a file so that grep does not find itself.
_slurm_procs() {
  grep -lasFf <(printf '%s\n' "$1") /proc/[0-9]*/cmdline /proc/[0-9]*/environ |
    cut -d/ -f3 | sort -u | grep -vxF "$$" || true
}

# _slurm_kill PID...: SIGTERM, up to SLURM_STOP_TIMEOUT_S s for them to end, then SIGKILL.
_slurm_kill() {
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local _i pid alive
  for _i in $(seq 1 $((SLURM_STOP_TIMEOUT_S * 10))); do
    alive=()
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    [ ${#alive[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

# _slurm_stop_dir DIR: stops the daemons of DIR (pid files first, then anything still naming
# DIR: job steps, jobs) and removes DIR.
_slurm_stop_dir() {
  local dir=$1 file pids=()
  for file in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
    if [ -s "$file" ]; then pids+=("$(cat "$file")"); fi
  done
  _slurm_kill "${pids[@]}"
  # shellcheck disable=SC2046 # one PID a word
  _slurm_kill $(_slurm_procs "$dir/")
  rm -rf "$dir"
}

# _slurm_stale_dirs: the folders under SLURM_PREFIX, and those that running processes name.
_slurm_stale_dirs() {
  compgen -G "${SLURM_PREFIX}*" || true
  local pattern
  pattern="$(sed 's/[]\/$*.^[]/\\&/g' <<<"$SLURM_PREFIX")[A-Za-z0-9]\+"
  grep -aohsf <(printf '%s\n' "$pattern") /proc/[0-9]*/cmdline /proc/[0-9]*/environ || true
}

# _slurm_stop_stale: stops what earlier runs left (their test shell has ended); a cluster
# whose test still runs is left alone.
_slurm_stop_stale() {
  local dir
  for dir in $(_slurm_stale_dirs | sort -u); do
    _slurm_owner_alive "$dir" && continue
    echo "slurm: stopping what an earlier run left in $dir"
    _slurm_stop_dir "$dir"
  done
}

# _slurm_install: installs the missing Slurm packages with apt-get (root only); sets
# SLURM_INSTALL_S. Skips the test where they cannot be installed.
_slurm_install() {
  local p missing=()
  for p in "${SLURM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || slurm_skip "Slurm packages missing (${missing[*]}) and no apt-get"
  local t0 log
  t0=$(slurm_now)
  log=$(mktemp)
  if ! timeout "$SLURM_INSTALL_TIMEOUT_S" bash -c 'apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"' \
      apt-get "${missing[@]}" >"$log" 2>&1; then
    local why
    why=$(tail -n 1 "$log")
    rm -f "$log"
    slurm_skip "apt-get could not install ${missing[*]} within ${SLURM_INSTALL_TIMEOUT_S} s: $why"
  fi
  rm -f "$log"
  SLURM_INSTALL_S=$(slurm_elapsed "$t0")
  echo "slurm: installed ${missing[*]} in ${SLURM_INSTALL_S} s"
}

# _slurm_free_port FIRST: the first TCP port from FIRST on that nothing listens on.
_slurm_free_port() {
  local port=$1
  while [ -n "$(ss -Htln "sport = :$port")" ]; do port=$((port + 1)); done
  echo "$port"
}

# _slurm_write_conf CTLD_PORT SLURMD_PORT: writes $SLURM_DIR/slurm.conf.
_slurm_write_conf() {
  cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=scaletune
SlurmctldHost=localhost
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$SLURM_DIR/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/ctld
SlurmdSpoolDir=$SLURM_DIR/slurmd
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
SlurmdParameters=config_overrides
ReturnToService=2
InactiveLimit=0
KillWait=5
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 CPUs=8 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
}

# _slurm_fail_start WHAT FILE...: skips the test, naming the daemon and the last line of its
# error output and log.
_slurm_fail_start() {
  local what=$1
  shift
  slurm_skip "$what did not start: $(cat "$@" 2>/dev/null | tail -n 1)"
}

# _slurm_wait_for SECONDS CMD...: polls CMD every 0.2 s until it succeeds or SECONDS pass.
_slurm_wait_for() {
  local limit_s=$1 _i
  shift
  for _i in $(seq 1 $((limit_s * 5))); do
    "$@" && return 0
    sleep 0.2
  done
  return 1
}

_slurm_munge_ok() {
  munge -n --socket="$SLURM_DIR/munge/munge.socket" 2>/dev/null |
    unmunge --socket="$SLURM_DIR/munge/munge.socket" >/dev/null 2>&1
}

# _slurm_start_munge: a munged of its own (key, socket, pid and log in $SLURM_DIR/munge),
# run as the munge user as Debian does.
_slurm_start_munge() {
  local dir=$SLURM_DIR/munge
  install -d -o munge -g munge -m 0755 "$dir"
  runuser -u munge -- mungekey --create --keyfile="$dir/munge.key" ||
    slurm_skip "mungekey could not create a key in $dir"
  runuser -u munge -- munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
    2>"$dir/munged.err" || _slurm_fail_start munged "$dir/munged.log" "$dir/munged.err"
  _slurm_wait_for "$SLURM_START_TIMEOUT_S" _slurm_munge_ok || _slurm_fail_start munged "$dir/munged.log"
}

_slurm_node_idle() { [ "$(timeout 15 sinfo -h -n localhost -o %t 2>/dev/null)" = "idle" ]; }

# slurm_start: installs what is missing, then starts munged, slurmctld and slurmd in a new
# $SLURM_DIR and waits (up to SLURM_START_TIMEOUT_S) for the node to be idle. Exports
# SLURM_CONF and clears any SLURM_* variables inherited from an enclosing allocation. Sets
# SLURM_INSTALL_S and SLURM_START_S (the daemons' start), in seconds.
# Exits with SLURM_SKIP_STATUS and one line saying why where Slurm cannot start.
slurm_start() {
  [ "$(id -u)" -eq 0 ] || slurm_skip "not root: slurmd must run as root to launch jobs"
  _slurm_install
  local t0
  t0=$(slurm_now)
  _slurm_stop_stale
  # shellcheck disable=SC2046 # names of variables
  unset $(compgen -e SLURM_) 2>/dev/null || true
  SLURM_DIR=$(mktemp -d "${SLURM_PREFIX}XXXXXX")
  chmod 0755 "$SLURM_DIR"
  echo "$$ $(_slurm_start_time $$)" >"$SLURM_DIR/owner"
  _slurm_install_trap
  mkdir -p "$SLURM_DIR/ctld" "$SLURM_DIR/slurmd"
  local ctld_port slurmd_port
  ctld_port=$(_slurm_free_port 6817)
  slurmd_port=$(_slurm_free_port $((ctld_port + 1)))
  _slurm_write_conf "$ctld_port" "$slurmd_port"
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  _slurm_start_munge
  slurmctld -c -f "$SLURM_CONF" 2>"$SLURM_DIR/slurmctld.err" ||
    _slurm_fail_start slurmctld "$SLURM_DIR/slurmctld.log" "$SLURM_DIR/slurmctld.err"
  slurmd -N localhost -f "$SLURM_CONF" 2>"$SLURM_DIR/slurmd.err" ||
    _slurm_fail_start slurmd "$SLURM_DIR/slurmd.log" "$SLURM_DIR/slurmd.err"
  _slurm_wait_for "$SLURM_START_TIMEOUT_S" _slurm_node_idle ||
    slurm_skip "node localhost not idle within ${SLURM_START_TIMEOUT_S} s: sinfo says" \
      "'$(timeout 15 sinfo -h -n localhost -o '%t %E' 2>&1)'; slurmd log: $(tail -n 1 "$SLURM_DIR/slurmd.log")"
  # shellcheck disable=SC2034 # read by the tests
  SLURM_START_S=$(slurm_elapsed "$t0")
}

# slurm_stop: stops the daemons by the PIDs in their pid files, waits for them, then ends
# what still names $SLURM_DIR and removes it. Does nothing when no cluster runs; never fails.
slurm_stop() {
  [ -n "$SLURM_DIR" ] || return 0
  _slurm_stop_dir "$SLURM_DIR"
  SLURM_DIR=""
  unset SLURM_CONF
}

# _slurm_install_trap: runs slurm_stop on exit, before the EXIT trap already set (lib.sh's
# removal of the work folder); a signal exits, so the EXIT trap runs then too.
_slurm_install_trap() {
  local previous="" words=()
  eval "words=($(trap -p EXIT))"
  [ ${#words[@]} -eq 4 ] && previous=${words[2]}
  # shellcheck disable=SC2064 # the previous trap is fixed now
  trap "slurm_stop; $previous" EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
