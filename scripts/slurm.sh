#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for `ppo run --backend slurm` and its tests
# (cli/tests/cluster/slurm.rs). See docs/cluster.md.
#
#   bash scripts/slurm.sh start    install (only what is missing), configure, start, wait for
#                                  the node to be idle; fast when it already runs
#   bash scripts/slurm.sh stop     stop the daemons this script started
#   bash scripts/slurm.sh status   exit 0 when the cluster answers, 1 otherwise
#
# Needs root (apt-get, /etc/slurm, /etc/munge). The daemons run as root from the state
# directory $PPO_SLURM_DIR (default /var/lib/ppo-slurm): pid files, spool, state and the logs
# (log/slurmctld.log, log/slurmd.log, log/munged.log). The node is this host (its short name,
# reached at 127.0.0.1) with the CPUs and memory `slurmd -C` finds; one partition, `ppo`, the
# default. No cgroup plugin is used (proctrack/linuxproc, task/none): it works in containers
# and VMs without a writable cgroup tree.
#
# /etc/slurm/slurm.conf is written by this script (it starts with the line "# ppo-slurm");
# a slurm.conf written by someone else is never overwritten: then `start` only checks that
# that cluster answers.
set -euo pipefail

DIR=${PPO_SLURM_DIR:-/var/lib/ppo-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# ppo-slurm"
PARTITION=ppo

log() { echo "slurm.sh: $*" >&2; }

# This host's short name (what slurmd calls its node).
short_host() {
    local h
    h=$(uname -n)
    echo "${h%%.*}"
}

die() {
    log "$*"
    for f in "$DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n 20 "$f" >&2
    done
    log "logs: $DIR/log/"
    exit 1
}

need_root() {
    [ "$(id -u)" -eq 0 ] && return 0
    if command -v sudo >/dev/null 2>&1; then
        exec sudo PPO_SLURM_DIR="$DIR" bash "$0" "$@"
    fi
    log "run as root (it installs packages and writes /etc/slurm)"
    exit 1
}

alive() { # alive PIDFILE: the process of the pid file runs (a zombie does not)
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$pid/status"
}

# The node's state as sinfo shows it (idle, mixed, allocated, down*, …), or nothing.
node_state() {
    timeout 10 sinfo -h -N -o %T 2>/dev/null | head -n 1 | tr -d '*~#!%$@^-' || true
}

answers() {
    case "$(node_state)" in
        idle | mixed | allocated | completing) return 0 ;;
        *) return 1 ;;
    esac
}

install_packages() {
    local missing=()
    for p in slurm-wlm slurm-client munge; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

start_munge() {
    if timeout 5 munge -n 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1; then
        return 0
    fi
    mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge "$DIR/log"
    if [ ! -s /etc/munge/munge.key ]; then
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key --force
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        fi
    fi
    if id munge >/dev/null 2>&1; then
        chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
        chmod 0700 /etc/munge /var/lib/munge /var/log/munge
        chmod 0755 /run/munge
        chmod 0400 /etc/munge/munge.key
        runuser -u munge -- /usr/sbin/munged --force --pid-file=/run/munge/munged.pid \
            --log-file=/var/log/munge/munged.log
    else
        /usr/sbin/munged --force --pid-file=/run/munge/munged.pid --log-file="$DIR/log/munged.log"
    fi
    for _ in $(seq 50); do
        if timeout 5 munge -n 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1; then
            echo started >"$DIR/munged.ours"
            return 0
        fi
        sleep 0.1
    done
    die "munged does not answer (see /var/log/munge/munged.log)"
}

# The configuration for this host; printed, so that a change (another host name, more
# memory) is noticed.
render_conf() {
    local host node
    host=$(short_host)
    # "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105"
    node=$(slurmd -C | head -n 1)
    [[ $node == NodeName=* ]] || die "slurmd -C printed no node line: $node"
    cat <<EOF
$MARK: written by scripts/slurm.sh, rewritten by every \`slurm.sh start\`
ClusterName=ppo
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: they are often not writable in containers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# srun starts MPI ranks through PMIx (Open MPI supports it).
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
# Finished jobs stay visible to \`scontrol show job\` for 10 minutes (there is no sacct
# without slurmdbd); a cancelled job's processes get 5 s between SIGTERM and SIGKILL.
MinJobAge=600
KillWait=5
SlurmdTimeout=60
InactiveLimit=0
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

write_conf() { # returns 0 when the file changed
    local new
    new=$(render_conf)
    if [ -f "$CONF" ] && [ "$(cat "$CONF")" = "$new" ]; then
        return 1
    fi
    mkdir -p /etc/slurm
    printf '%s\n' "$new" >"$CONF"
    return 0
}

stop_daemons() {
    local stopped=0
    for d in slurmd slurmctld; do
        local pf="$DIR/run/$d.pid"
        if alive "$pf"; then
            kill "$(cat "$pf")" 2>/dev/null || true
            for _ in $(seq 100); do
                alive "$pf" || break
                sleep 0.1
            done
            if alive "$pf"; then kill -9 "$(cat "$pf")" 2>/dev/null || true; fi
            stopped=1
        fi
        rm -f "$pf"
    done
    if [ -f "$DIR/munged.ours" ] && alive /run/munge/munged.pid; then
        kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
        rm -f "$DIR/munged.ours"
        stopped=1
    fi
    return $((1 - stopped))
}

start() {
    need_root start
    if [ -f "$CONF" ] && ! head -n 1 "$CONF" | grep -q "^$MARK"; then
        answers || die "$CONF was not written by slurm.sh and its cluster does not answer (sinfo); not touching it"
        log "using the existing cluster of $CONF"
        return 0
    fi
    if [ -f "$CONF" ] && alive "$DIR/run/slurmctld.pid" && alive "$DIR/run/slurmd.pid" && answers; then
        # Fast path: running; only restart when the configuration changed (another host).
        if ! write_conf; then
            return 0
        fi
        log "the configuration changed; restarting"
        stop_daemons || true
    fi
    install_packages
    mkdir -p "$DIR"/{ctld,spool,run,log}
    start_munge
    write_conf || true
    alive "$DIR/run/slurmctld.pid" || slurmctld || die "slurmctld did not start"
    alive "$DIR/run/slurmd.pid" || slurmd || die "slurmd did not start"
    for _ in $(seq 120); do
        if answers; then
            log "up: node $(short_host), partition $PARTITION ($(sinfo -h -o '%c CPUs, %m MB' | head -n 1)); logs in $DIR/log/"
            return 0
        fi
        case "$(node_state)" in
            down | drained | draining | fail)
                scontrol update nodename="$(short_host)" state=resume >/dev/null 2>&1 || true
                ;;
        esac
        sleep 0.5
    done
    die "the node is not idle after 60 s (sinfo: $(timeout 10 sinfo -h -N -o '%N %T %E' 2>&1 || true))"
}

case "${1:-}" in
    start) start ;;
    stop)
        need_root stop
        if stop_daemons; then log "stopped"; else log "nothing to stop"; fi
        ;;
    status)
        if answers; then
            sinfo
            exit 0
        fi
        log "not running (logs: $DIR/log/)"
        exit 1
        ;;
    *)
        echo "usage: $0 start|stop|status" >&2
        exit 2
        ;;
esac
