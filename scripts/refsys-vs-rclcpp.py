#!/usr/bin/env python3
"""The Autoware reference system on tacto and on rclcpp, side by side, in one session.

Runs rclcpp's reference-system executables (ros-realtime/reference-system, built by
`install-rclcpp.sh`, see the peers' README) and `tacto bench reference-system`, alternating
them round after round so that both meet the same machine load, and prints one table: per
executor, the medians over the rounds of the hot-path latency's mean, the behaviour planner
period's standard deviation and the CPU used, with every round's figures beside them.

    scripts/refsys-vs-rclcpp.py                     # crunch 4096 (upstream's), 3 rounds of 30 s
    scripts/refsys-vs-rclcpp.py --crunch 0 --rounds 5
    scripts/refsys-vs-rclcpp.py --tacto-bin before=/tmp/tacto-before,after=target/release/tacto

Both sides are measured the same way, over the same window (warm-up excluded):
- hot-path latency: upstream's definition (`print_sample_path` in reference_system's
  `sample_management.hpp`), the ObjectCollisionEstimator's start minus the newest lidar
  driver's start, over the samples that reach VehicleDBWSystem. For rclcpp it is the current
  value each VehicleDBWSystem sample prints; tacto computes the same from the same histories.
- behaviour planner period: the current value each rclcpp sample prints (population standard
  deviation over the window, as tacto's `bp sd`).
- CPU: user + system time of the process over the window (`/proc/PID/stat` for rclcpp, the
  run's own figure for tacto), as % of one core.

rclcpp's executables run until stopped: this script stops them with SIGINT after warm-up +
duration. They talk DDS: each run gets `--domain` (default 77) and stays on loopback.

`--floor` adds a row for the machine itself: this script waiting on an absolute timerfd every
100 ms, the planner's period, for as long as a run, with nothing else to do. Its period's
standard deviation is the wake-up jitter that no executor on this machine can go below.

`--fifo PRIORITY` runs every run, the floor's included, at that SCHED_FIFO priority (root, or
CAP_SYS_NICE): nothing of normal priority then delays a wake-up, so what remains is the
runtime's own spread and the kernel's, even on a machine busy with other work.
"""

import argparse
import ctypes
import itertools
import json
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

RCLCPP_EXECUTABLES = {
    "singlethreaded": "autoware_reference_system/autoware_default_singlethreaded",
    "prioritized": "autoware_reference_system/autoware_default_prioritized",
    "multithreaded": "autoware_reference_system/autoware_default_multithreaded",
    "events": "peer_refsys_events/autoware_events_singlethreaded",
}

HOT_PATH = re.compile(r"^\s*hot path latency:\s+([0-9.e+-]+)ms")
PLANNER = re.compile(r"^\s*behavior planner period:\s+([0-9.e+-]+)ms")
SINK = re.compile(r"^sample path: \((\w+)\)")


def load_average():
    return float(Path("/proc/loadavg").read_text().split()[0])


def cpu_seconds(pid):
    """User + system CPU of process `pid` (all its threads), s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def peer_environment(env_sh, build):
    """The environment `source env.sh BUILD` gives."""
    out = subprocess.run(
        ["bash", "-c", f'source "{env_sh}" {build} >/dev/null && env -0'],
        check=True,
        capture_output=True,
    ).stdout
    env = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    return env


def run_rclcpp(name, env, args):
    """One run of rclcpp executable `name`: its figures over the window after warm-up."""
    program = Path(env["RCLCPP_PEER"]) / f"refsys_{args.build}" / "lib" / RCLCPP_EXECUTABLES[name]
    env = dict(env)
    env["ROS_DOMAIN_ID"] = str(args.domain)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    lines = []
    measuring = threading.Event()
    with subprocess.Popen(
        fifo(args) + [str(program)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tempfile.gettempdir(),
    ) as child:

        def read():
            sink = None
            for line in child.stdout:
                found = SINK.match(line)
                if found:
                    sink = found.group(1)
                    continue
                if not measuring.is_set() or sink != "VehicleDBWSystem":
                    continue
                for key, pattern in (("hp", HOT_PATH), ("bp", PLANNER)):
                    found = pattern.match(line)
                    if found:
                        lines.append((key, float(found.group(1))))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        load = load_average()
        time.sleep(args.warmup)
        start = cpu_seconds(child.pid)
        measuring.set()
        time.sleep(args.duration)
        end = cpu_seconds(child.pid)
        measuring.clear()
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
        reader.join(timeout=5)
    hp = [v for k, v in lines if k == "hp"]
    bp = [v for k, v in lines if k == "bp"]
    return {
        "hp_mean": statistics.fmean(hp) if hp else float("nan"),
        "hp_n": len(hp),
        "bp_sd": statistics.pstdev(bp) if len(bp) > 1 else float("nan"),
        "cpu_pct": 100 * (end - start) / args.duration,
        "load": load,
    }


class RunFailed(Exception):
    """A run that printed no figures; the message is what it said last."""


def run_floor(args):
    """A 100 ms absolute timerfd waited on with epoll, as the executors wait: the period's
    standard deviation, from CLOCK_MONOTONIC read right after each wake-up."""
    libc = ctypes.CDLL(None, use_errno=True)

    class Timespec(ctypes.Structure):
        _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]

    class Itimerspec(ctypes.Structure):
        _fields_ = [("it_interval", Timespec), ("it_value", Timespec)]

    if args.fifo is not None:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.fifo))
    try:
        return measure_floor(args, libc, Timespec, Itimerspec)
    finally:
        if args.fifo is not None:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))


def measure_floor(args, libc, Timespec, Itimerspec):
    """`run_floor`'s measurement, at whatever priority this thread has."""
    clock_monotonic, tfd_timer_abstime, period = 1, 1, 100_000_000
    fd = libc.timerfd_create(clock_monotonic, 0)
    if fd < 0:
        sys.exit(f"timerfd_create failed: errno {ctypes.get_errno()}")
    poller = select.epoll()
    poller.register(fd, select.EPOLLIN)
    load = load_average()
    end = time.monotonic_ns() + (args.warmup + args.duration) * 1_000_000_000
    measure_from = time.monotonic_ns() + args.warmup * 1_000_000_000
    deadline = time.monotonic_ns() + period
    woken = []
    while deadline < end:
        spec = Itimerspec(Timespec(0, 0), Timespec(deadline // 10**9, deadline % 10**9))
        libc.timerfd_settime(fd, tfd_timer_abstime, ctypes.byref(spec), None)
        poller.poll()
        now = time.monotonic_ns()
        os.read(fd, 8)
        if deadline >= measure_from:
            woken.append(now)
        deadline += period
    poller.close()
    os.close(fd)
    periods = [(b - a) / 1e6 for a, b in zip(woken, woken[1:])]
    return {
        "hp_mean": float("nan"),
        "hp_n": 0,
        "bp_sd": statistics.pstdev(periods) if len(periods) > 1 else float("nan"),
        "cpu_pct": float("nan"),
        "load": load,
    }


def run_tacto(executor, binary, args):
    """One `tacto bench` run of `binary` on `executor`: its figures from the run's JSON."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        load = load_average()
        done = subprocess.run(
            fifo(args) + [
                binary, "bench", "reference-system",
                "--executor", executor,
                "--duration", str(args.duration),
                "--warmup", str(args.warmup),
                "--crunch", str(args.crunch_limit),
                "--json", out.name,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode != 0:
            raise RunFailed(done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"])
        run = json.loads(Path(out.name).read_text())["runs"][0]
    hp = run.get("hot_path_latency_ms") or {}
    bp = run.get("bp_period_ms") or {}
    return {
        "hp_mean": hp.get("mean", float("nan")),
        "hp_n": hp.get("n", 0),
        "bp_sd": bp.get("sd", float("nan")),
        "cpu_pct": run["cpu_pct_core"],
        "load": load,
    }


def fifo(args):
    """The command prefix that runs a program at `--fifo`'s priority, if given."""
    return [] if args.fifo is None else ["chrt", "-f", str(args.fifo)]


def row(figures):
    """One run's figures: hot-path mean / planner sd / % core (load average at its start)."""
    return (f"{figures['hp_mean']:.2f}/{figures['bp_sd']:.3f}/{figures['cpu_pct']:.1f} "
            f"({figures['load']:.1f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=30, help="measured seconds per run")
    parser.add_argument("--warmup", type=int, default=3, help="seconds before measuring")
    parser.add_argument("--rounds", type=int, default=3, help="runs per executor, alternating")
    parser.add_argument("--crunch", choices=["upstream", "0"], default="upstream",
                        help="upstream's crunch (4096) or none; picks the rclcpp build too")
    parser.add_argument("--tacto", default="callback,events,wait-set,prioritized",
                        help="tacto executors, comma-separated")
    parser.add_argument("--rclcpp", default="singlethreaded,prioritized,events",
                        help="rclcpp executables: " + ", ".join(RCLCPP_EXECUTABLES))
    parser.add_argument("--peer", default=os.environ.get("RCLCPP_PEER",
                                                         str(REPO.parent / "peers" / "rclcpp-jazzy")),
                        help="the rclcpp install (holds env.sh)")
    parser.add_argument("--tacto-bin", default="tacto=" + str(REPO / "target" / "release" / "tacto"),
                        help="tacto builds to run, LABEL=PATH, comma-separated (each row is "
                        "named by its label)")
    parser.add_argument("--floor", action="store_true",
                        help="also measure the machine's timer wake-up jitter (see above)")
    parser.add_argument("--fifo", type=int, metavar="PRIORITY",
                        help="run everything at this SCHED_FIFO priority (1-99; see above)")
    parser.add_argument("--domain", type=int, default=77, help="ROS_DOMAIN_ID of rclcpp's runs")
    args = parser.parse_args()
    if args.fifo is not None and not 1 <= args.fifo <= 99:
        sys.exit(f"--fifo {args.fifo}: a SCHED_FIFO priority is 1 to 99")
    args.build = "upstream" if args.crunch == "upstream" else "crunch0"
    args.crunch_limit = 4096 if args.crunch == "upstream" else 0

    env_sh = Path(args.peer) / "env.sh"
    if not env_sh.is_file():
        sys.exit(f"no rclcpp install at {args.peer} (env.sh missing): run "
                 "install-rclcpp.sh DIR (see the peers' README), or give --peer DIR")
    binaries = {}
    for item in args.tacto_bin.split(","):
        label, sep, path = item.partition("=")
        if not sep:
            label, path = "tacto", item
        if not Path(path).is_file():
            sys.exit(f"no tacto binary at {path}: cargo build --release, or give --tacto-bin")
        binaries[label] = path
    env = peer_environment(env_sh, args.build)
    rclcpp = [name for name in args.rclcpp.split(",") if name]
    for name in rclcpp:
        if name not in RCLCPP_EXECUTABLES:
            sys.exit(f"unknown rclcpp executable {name!r}: one of {', '.join(RCLCPP_EXECUTABLES)}")
    tacto = [name for name in args.tacto.split(",") if name]

    rows = {}
    # rclcpp and tacto take turns, so that a busy minute hits both; each tacto executor's
    # builds run back to back.
    ours = [(label, n) for n in tacto for label in binaries]
    pairs = itertools.zip_longest([("rclcpp", n) for n in rclcpp], ours)
    order = [run for pair in pairs for run in pair if run]
    if args.floor:
        order.insert(0, ("machine", "timerfd floor"))
    for round_ in range(args.rounds):
        for side, name in order:
            key = f"{side} {name}"
            try:
                if side == "machine":
                    figures = run_floor(args)
                elif side == "rclcpp":
                    figures = run_rclcpp(name, env, args)
                else:
                    figures = run_tacto(name, binaries[side], args)
            except RunFailed as failure:
                # One failed run (the machine, a crash) must not cost the others' figures.
                print(f"round {round_ + 1}: {key}: failed: {failure}", file=sys.stderr, flush=True)
                continue
            rows.setdefault(key, []).append(figures)
            print(f"round {round_ + 1}/{args.rounds}: {key}: {row(figures)}", file=sys.stderr,
                  flush=True)

    at = "" if args.fifo is None else f", everything at SCHED_FIFO {args.fifo}"
    print(f"reference system, crunch {args.crunch_limit}, {args.rounds} rounds of "
          f"{args.duration} s (+{args.warmup} s warm-up), alternating{at}; medians, then each "
          "round")
    print(f"{'run':28s} {'hp mean ms':>10s} {'bp sd ms':>9s} {'% core':>7s} | "
          "per round: hp mean / bp sd / % core (load average at start)")
    for key, runs in rows.items():
        med = lambda k: statistics.median(r[k] for r in runs)
        each = "  ".join(row(r) for r in runs)
        print(f"{key:28s} {med('hp_mean'):10.2f} {med('bp_sd'):9.3f} {med('cpu_pct'):7.2f} | {each}")


if __name__ == "__main__":
    main()
