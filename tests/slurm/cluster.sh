#!/usr/bin/env bash
# A single-node SLURM cluster with accounting on this machine, for `make test-slurm` (as root).
#   tests/slurm/cluster.sh start   install slurm-wlm, slurmdbd, MariaDB and munge; start them all
#   tests/slurm/cluster.sh stop    stop the daemons it started
# The SLURM executor plugin reads job states with sacct, so accounting must be on: with
# accounting_storage/none it submits and then waits forever. Process tracking and task
# plugins that need cgroups are replaced by ones that run in a container (linuxproc, none).
set -euo pipefail
STATE=/var/lib/biasflow-slurm
PARTITION=cpu

start() {
    if ! command -v slurmctld >/dev/null || ! command -v mysqld_safe >/dev/null || ! command -v munged >/dev/null; then
        apt-get update -qq
        # The packages' own service restarts are refused in a container; the daemons are started below.
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm slurmdbd mariadb-server munge >/dev/null || true
    fi
    command -v slurmctld >/dev/null && command -v slurmdbd >/dev/null || { echo "slurm-wlm did not install" >&2; exit 1; }
    mkdir -p "$STATE"/{log,spool,ctld} /run/munge /run/mysqld /etc/munge /etc/slurm
    host=$(hostname)

    # munge: one key for every daemon and client.
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown munge:munge /etc/munge/munge.key /run/munge && chmod 0400 /etc/munge/munge.key
    pgrep -x munged >/dev/null || su -s /bin/sh munge -c "munged --force" || munged --force

    # MariaDB for slurmdbd's accounting.
    chown mysql:mysql /run/mysqld
    if ! pgrep -f mysqld_safe >/dev/null; then
        (mysqld_safe >"$STATE/log/mysqld.log" 2>&1 &)
        for _ in $(seq 1 60); do mysqladmin ping --silent 2>/dev/null && break; sleep 1; done
    fi
    mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db; CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"

    cat >/etc/slurm/slurmdbd.conf <<CONF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
LogFile=$STATE/log/slurmdbd.log
PidFile=$STATE/slurmdbd.pid
CONF
    chmod 0600 /etc/slurm/slurmdbd.conf

    memory=$(awk '/MemAvailable/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
    cat >/etc/slurm/slurm.conf <<CONF
ClusterName=biasflow
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
MpiDefault=none
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=$host CPUs=$(nproc) RealMemory=$memory State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

    pgrep -x slurmdbd >/dev/null || slurmdbd
    for _ in $(seq 1 30); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 1; done
    sacctmgr -i add cluster biasflow >/dev/null 2>&1 || true
    pgrep -x slurmctld >/dev/null || slurmctld
    sleep 2
    pgrep -x slurmd >/dev/null || slurmd
    for _ in $(seq 1 30); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
    sinfo
    job=$(sbatch --parsable --wrap "true" -o /dev/null)
    for _ in $(seq 1 60); do
        sacct -n -X -j "$job" -o State 2>/dev/null | grep -q COMPLETED && { echo "slurm: test job $job COMPLETED"; return 0; }
        sleep 1
    done
    echo "slurm: the test job did not complete; see $STATE/log" >&2
    exit 1
}

stop() {
    for daemon in slurmd slurmctld slurmdbd; do pkill -x "$daemon" || true; done
    mysqladmin shutdown 2>/dev/null || true
    pkill -x munged || true
}

"${1:?usage: $0 start|stop}"
