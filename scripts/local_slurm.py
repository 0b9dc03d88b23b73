#!/usr/bin/env python3
"""A real one-node Slurm cluster on this machine, in a folder: for trying `assay job submit`, for
the tests (tests/python/test_cluster_slurm.py) and for the benchmarks.

Starts Debian's munged, slurmctld and slurmd (packages munge, slurmctld, slurmd, slurm-client)
in the foreground as children of this process, with a minimal slurm.conf written into DIR: one
node named after the host with this machine's CPUs, proctrack/linuxproc, task/none,
select/cons_tres with CR_CPU, no accounting, state/spool/log files and the munge socket and key
in DIR, and two unused TCP ports. Nothing outside DIR is touched; every daemon is stopped by the
pid this script recorded (DIR/pids), never by name. Run as root (the daemons run as root).

    scripts/local_slurm.py start DIR [--cpus N] [--nice N]   # prints `export SLURM_CONF=...`
    SLURM_CONF=DIR/slurm.conf sbatch ...; squeue; scancel ...
    scripts/local_slurm.py stop DIR

From Python: `with LocalSlurm(dir) as cluster: subprocess.run([...], env=cluster.env)`.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

DAEMONS = ("munged", "slurmctld", "slurmd")


def missing_programs():
    """The programs this needs that are not installed (empty when all are)."""
    need = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo"]
    found = [p for p in need if shutil.which(p) or os.path.exists(f"/usr/sbin/{p}")]
    return [p for p in need if p not in found]


def _program(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


def _free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _memory_mb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    return 1024


class LocalSlurm:
    """A one-node Slurm cluster living in `folder` (see the module docstring)."""

    def __init__(self, folder, cpus=None, nice=0):
        self.dir = os.path.abspath(folder)
        self.cpus = cpus or os.cpu_count()
        self.nice = nice
        self.node = socket.gethostname().split(".")[0]
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.socket = os.path.join(self.dir, "munge", "munge.socket")
        self.procs = {}

    @property
    def env(self):
        """os.environ with SLURM_CONF pointing at this cluster."""
        return dict(os.environ, SLURM_CONF=self.conf)

    def _path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _write_key(self):
        os.makedirs(self._path("munge"), mode=0o700, exist_ok=True)
        os.chmod(self._path("munge"), 0o700)
        key = self._path("munge", "munge.key")
        if not os.path.exists(key):
            with open(key, "wb") as f:
                f.write(os.urandom(1024))
        os.chmod(key, 0o400)

    def _write_conf(self):
        ctld_port, slurmd_port = _free_ports(2)
        for sub in ("state", "spool", "log"):
            os.makedirs(self._path(sub), exist_ok=True)
        lines = [
            f"ClusterName=assay{os.getpid()}",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={slurmd_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.socket}",
            f"StateSaveLocation={self._path('state')}",
            f"SlurmdSpoolDir={self._path('spool')}",
            f"SlurmctldPidFile={self._path('slurmctld.pid')}",
            f"SlurmdPidFile={self._path('slurmd.pid')}",
            f"SlurmctldLogFile={self._path('log', 'slurmctld.log')}",
            f"SlurmdLogFile={self._path('log', 'slurmd.log')}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/backfill",
            # Start queued array tasks as soon as others end (Slurm waits 3 s by default).
            "SchedulerParameters=batch_sched_delay=0",
            "MpiDefault=none",
            "ReturnToService=2",
            "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "MaxArraySize=100001",
            "MaxJobCount=200000",
            "MinJobAge=30",
            "KillWait=5",
            "SlurmdTimeout=300",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} "
            f"RealMemory={max(1, _memory_mb() - 1024)} State=UNKNOWN",
            f"PartitionName=debug Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _spawn(self, name, argv):
        log = open(self._path("log", f"{name}.stderr"), "ab")
        cmd = ["nice", "-n", str(self.nice), *argv] if self.nice else argv
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                env=self.env, start_new_session=True)
        self.procs[name] = proc
        self._save_pids()
        return proc

    def _save_pids(self):
        with open(self._path("pids"), "w") as f:
            json.dump({k: p.pid for k, p in self.procs.items()}, f)

    def _wait_for(self, what, check, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with status {proc.returncode}; see "
                                       f"{self._path('log')}")
            if check():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out waiting for {what}; see {self._path('log')}")

    def _node_state(self):
        r = subprocess.run(["sinfo", "--noheader", "--nodes", self.node, "--format=%T"],
                           capture_output=True, text=True, env=self.env)
        return r.stdout.strip() if r.returncode == 0 else ""

    def start_slurmd(self):
        """Starts (or restarts) slurmd; returns its Popen."""
        return self._spawn("slurmd", [_program("slurmd"), "-D", "-f", self.conf, "-N",
                                      self.node])

    def start(self, timeout=60):
        missing = missing_programs()
        if missing:
            raise RuntimeError("not installed: " + ", ".join(missing))
        os.makedirs(self.dir, exist_ok=True)
        self._write_key()
        self._write_conf()
        self._spawn("munged", [_program("munged"), "-F", "--force",
                               f"--socket={self.socket}",
                               f"--key-file={self._path('munge', 'munge.key')}",
                               f"--pid-file={self._path('munge', 'munged.pid')}",
                               f"--log-file={self._path('log', 'munged.log')}",
                               f"--seed-file={self._path('munge', 'munged.seed')}"])
        self._wait_for("munged", lambda: os.path.exists(self.socket), timeout)
        self._spawn("slurmctld", [_program("slurmctld"), "-D", "-c", "-f", self.conf])
        self._wait_for("slurmctld", lambda: subprocess.run(
            ["scontrol", "ping"], capture_output=True, text=True,
            env=self.env).stdout.find("UP") >= 0, timeout)
        self.start_slurmd()
        self._wait_for("the node to be idle",
                       lambda: self._node_state().rstrip("*") in ("idle", "mixed", "allocated"),
                       timeout)
        return self

    def stop_daemon(self, name, sig=signal.SIGTERM, timeout=20):
        """Stops one daemon by its pid (SIGKILL after `timeout` seconds)."""
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            self._save_pids()
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._save_pids()

    def stop(self):
        for name in ("slurmd", "slurmctld", "munged"):
            self.stop_daemon(name)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _stop_recorded(folder):
    """Stops the daemons whose pids `start` recorded in DIR/pids (another process started them)."""
    path = os.path.join(folder, "pids")
    if not os.path.exists(path):
        sys.exit(f"{path}: no pids recorded (was the cluster started with this script?)")
    pids = json.load(open(path))
    for name in ("slurmd", "slurmctld", "munged"):
        pid = pids.get(name)
        if not pid:
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            os.kill(pid, signal.SIGKILL)
    os.remove(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("dir")
    parser.add_argument("--cpus", type=int, default=None, help="CPUs of the node (default: all)")
    parser.add_argument("--nice", type=int, default=0, help="niceness of the daemons and jobs")
    args = parser.parse_args()
    if args.action == "stop":
        _stop_recorded(os.path.abspath(args.dir))
        return
    cluster = LocalSlurm(args.dir, cpus=args.cpus, nice=args.nice).start()
    print(f"export SLURM_CONF={cluster.conf}")
    # The daemons were started in their own sessions and keep running after this script exits;
    # `local_slurm.py stop DIR` stops them by the pids in DIR/pids.


if __name__ == "__main__":
    main()
