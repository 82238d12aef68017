#!/usr/bin/env bash
# Installs what the DDS tests need and a fresh machine lacks; fast and silent when already done.
#
#   scripts/setup.sh            the steps below
#   scripts/setup.sh libclang   only libclang (needed to *build* cyclors: its bindgen step)
#   scripts/setup.sh venv       only the ROS 2 virtualenv (needed to *run* the DDS tests)
#   scripts/setup.sh cyclone    only rclpy on rmw_cyclonedds in that venv (the services peer)
#
# 1. libclang: cyclors builds Cyclone DDS with cmake, then runs bindgen, which dlopens libclang
#    and needs clang's builtin headers (stddef.h...). Debian splits them into libclang1-14 and
#    libclang-common-14-dev; we install just those two (root, apt-get), not libclang-dev, which
#    pulls all of LLVM's development files.
# 2. target/ros2-venv: Python 3.11 with the ROS 2 Jazzy wheels from PyPI (rclpy on Fast DDS,
#    the message packages the tests use) and the `cyclonedds` Python package. Versions are pinned below; the venv is rebuilt when
#    this list changes (a stamp file records it). Nothing needs sourcing: the wheels' own
#    `ros_wheels_bootstrapper` (a .pth file) re-executes the venv's python with
#    LD_LIBRARY_PATH pointing at the wheels' libraries; rclpy then loads rmw_fastrtps_cpp, its
#    default RMW, without AMENT_PREFIX_PATH.
# 3. target/ros2-venv/bin/python-cyclone: rclpy on the real rmw_cyclonedds_cpp, built into the
#    venv by ../shared/peers/build-rmw-cyclonedds.sh when ../shared exists (about a minute,
#    once). Services (and parameters, actions, lifecycle) do not cross Fast DDS and Cyclone DDS,
#    so this is the rclpy that the services tests talk to. A plain clone has no ../shared: the
#    step is skipped and the tests that need the peer say they were skipped, and why.
#
# Concurrent runs (parallel test binaries) serialize on a lock file; the second finds the work
# done. Honours TACTO_ROS2_VENV (venv folder) and PYTHON (interpreter, default python3.11).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
what="${1:-all}"

# ROS 2 Jazzy (LTS). `ros-rclpy[fastrtps]` pulls the Fast DDS RMW rclpy loads by default.
ROS2_WHEELS=(
    "ros-rclpy[fastrtps]==7.1.6"
    "ros-std-msgs==5.3.6"
    "ros-geometry-msgs==5.3.6"
    "ros-sensor-msgs==5.3.6"
    "ros-nav-msgs==5.3.6"
    "ros-std-srvs==5.3.6"
    # test_msgs/action/Fibonacci: an action for `tacto node info`'s test.
    "ros-test-msgs==2.0.3"
    # Not ROS: Cyclone DDS's own Python binding (its C library bundled, Cyclone 11 as
    # cyclors'), the independent peer of the DDS services tests.
    "cyclonedds==11.0.1"
)

log() { echo "setup: $*" >&2; }

have_libclang() {
    # bindgen (through clang-sys) finds libclang by LIBCLANG_PATH or in the usual LLVM folders.
    # libclang.so* or libclang-14.so*, not libclang-cpp (the C++ library, which Debian
    # installs with other packages and bindgen cannot use).
    local lib
    for lib in "${LIBCLANG_PATH:-/nonexistent}"/libclang{.,-[0-9]}*so* /usr/lib/llvm-*/lib/libclang{.,-[0-9]}*so*; do
        [[ -e "$lib" ]] && break
    done
    [[ -e "$lib" ]] || return 1
    [[ -n "${LIBCLANG_PATH:-}" && "$lib" == "$LIBCLANG_PATH"/* ]] && return 0
    # Without the builtin headers, bindgen fails later on "stddef.h not found".
    compgen -G "/usr/lib/llvm-*/lib/clang/*/include/stddef.h" >/dev/null
}

setup_libclang() {
    have_libclang && return 0
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null || {
            log "libclang is missing and we are not root: install libclang1-14 and libclang-common-14-dev (or set LIBCLANG_PATH)"
            return 1
        }
        sudo=(sudo -n)
    fi
    command -v apt-get >/dev/null || {
        log "libclang is missing and this is not a Debian/Ubuntu machine: install libclang (or set LIBCLANG_PATH)"
        return 1
    }
    log "installing libclang (needed by cyclors' bindgen)"
    local pkgs=(libclang1-14 libclang-common-14-dev)
    # Wait for another apt/dpkg run (another session, unattended upgrades) instead of failing.
    local wait=(-o DPkg::Lock::Timeout=300)
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine may have no package lists yet: update once, only if the install fails.
    if ! "${sudo[@]}" apt-get "${wait[@]}" install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1; then
        "${sudo[@]}" apt-get "${wait[@]}" update -q >/dev/null
        "${sudo[@]}" apt-get "${wait[@]}" install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null
    fi
    have_libclang || { log "libclang still not found after installing ${pkgs[*]}"; return 1; }
}

setup_venv() {
    local venv="${TACTO_ROS2_VENV:-$root/target/ros2-venv}"
    local stamp="$venv/.tacto-wheels"
    local want
    want="$(printf '%s\n' "${ROS2_WHEELS[@]}")"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        return 0
    fi
    local python="${PYTHON:-python3.11}"
    command -v "$python" >/dev/null || { log "$python not found: the ROS 2 wheels on PyPI are built for CPython 3.11"; return 1; }
    log "creating $venv (ROS 2 Jazzy wheels from PyPI; a few minutes, once)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${ROS2_WHEELS[@]}"
    # Prove it works before recording it: a broken venv must be rebuilt, not trusted.
    # Discovery OFF: the check must not announce itself on the network.
    env -u _ROS_WHEELS_BOOTSTRAP_COMPLETE ROS_AUTOMATIC_DISCOVERY_RANGE=OFF "$venv/bin/python" -c \
        'import cyclonedds.domain, rclpy, std_msgs.msg; rclpy.init(); rclpy.create_node("setup_check"); rclpy.shutdown()'
    echo "$want" >"$stamp"
}

setup_cyclone() {
    local venv="${TACTO_ROS2_VENV:-$root/target/ros2-venv}"
    [[ -x "$venv/bin/python-cyclone" ]] && return 0
    local build="$root/../shared/peers/build-rmw-cyclonedds.sh"
    if [[ ! -f "$build" ]]; then
        log "no $build: the tests that need rclpy on rmw_cyclonedds will be skipped"
        return 0
    fi
    # The venv may be shared by several checkouts (a link to one venv), each with its own
    # setup lock: this lock is the venv's own, so two checkouts never build into it at once.
    exec 8>"$venv/.python-cyclone.lock"
    flock 8
    [[ -x "$venv/bin/python-cyclone" ]] && return 0
    log "building rmw_cyclonedds into $venv (rclpy on Cyclone DDS; about a minute, once)"
    # The real folder, not a link to it: the wrapper records this path.
    bash "$build" "$(cd "$venv" && pwd -P)"
}

mkdir -p "$root/target"
exec 9>"$root/target/.setup.lock"
flock 9
case "$what" in
    all) setup_libclang; setup_venv; setup_cyclone ;;
    libclang) setup_libclang ;;
    venv) setup_venv ;;
    cyclone) setup_venv; setup_cyclone ;;
    *) log "unknown step '$what' (all, libclang, venv, cyclone)"; exit 2 ;;
esac
