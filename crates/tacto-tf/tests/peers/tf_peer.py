"""A peer for tacto's tf on the wire: the PyPI `cyclonedds` package reads and writes
tf2_msgs/msg/TFMessage on rt/tf and rt/tf_static as ROS 2 lays them out (the venv has no
tf2_msgs wheel, so rclpy has no class for it: the type is declared here, field by field, under
its DDS name), loopback only.

    tf_peer.py publish DOMAIN
        /tf_static (transient local, reliable, keep last 1): map -> odom.
        /tf (reliable, volatile, keep last 100) at 20 Hz, sample k stamped 100 + k/20 s:
        odom -> base_link (moving) and base_link -> laser (fixed), in one message; then a
        message with a NaN transform (odom -> nan_frame), and a malformed TFMessage (a length
        without its elements). For each k, prints
        "expect SEC NANOSEC x y z qx qy qz qw": map -> laser at that stamp, composed with numpy.
    tf_peer.py echo DOMAIN
        Prints every transform heard, one line each:
        "TOPIC PARENT CHILD SEC NANOSEC x y z qx qy qz qw" (floats as repr), TOPIC tf or
        tf_static. Prints "ready" once its readers exist.

Runs until killed (or 120 s).
"""

import math
import os
import sys
import time
from dataclasses import dataclass

# Loopback only, no multicast: what the Rust side's DiscoveryRange::Localhost configures.
os.environ["CYCLONEDDS_URI"] = (
    "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces>"
    "<AllowMulticast>false</AllowMulticast></General>"
    "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
    "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>"
    "<Peers><Peer address=\"localhost\"/></Peers></Discovery></Domain></CycloneDDS>"
)

import numpy as np  # noqa: E402
from cyclonedds.core import Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlStruct  # noqa: E402
from cyclonedds.idl.types import float64, int32, sequence, uint32  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402
from cyclonedds.util import duration  # noqa: E402


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64
    y: float64
    z: float64
    w: float64


@dataclass
class Transform(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3
    rotation: Quaternion


@dataclass
class TransformStamped(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header
    child_frame_id: str
    transform: Transform


TF_MESSAGE = "tf2_msgs::msg::dds_::TFMessage_"


@dataclass
class TFMessage(IdlStruct, typename=TF_MESSAGE):
    transforms: sequence[TransformStamped]


@dataclass
class Broken(IdlStruct, typename=TF_MESSAGE):
    """A sequence's length, 3, and none of its elements."""

    length: uint32


DYNAMIC = Qos(Policy.Reliability.Reliable(duration(seconds=1)), Policy.History.KeepLast(100))
STATIC = Qos(
    Policy.Reliability.Reliable(duration(seconds=1)),
    Policy.Durability.TransientLocal,
    Policy.History.KeepLast(1),
)


def quat(axis, angle):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    s = math.sin(angle / 2)
    return np.array([axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2)])


def matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def homogeneous(t, q):
    h = np.eye(4)
    h[:3, :3] = matrix(q)
    h[:3, 3] = t
    return h


def quaternion_of(m):
    # Shepperd's method, then w >= 0.
    trace = np.trace(m)
    if trace > 0:
        s = math.sqrt(trace + 1.0) * 2
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = math.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k]) * 2
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) / s]
        q[i] = s / 4
        q[j] = (m[j, i] + m[i, j]) / s
        q[k] = (m[k, i] + m[i, k]) / s
    q = np.array(q)
    return q if q[3] >= 0 else -q


def stamped(parent, child, sec, nanosec, t, q):
    return TransformStamped(
        Header(Time(sec, nanosec), parent),
        child,
        Transform(Vector3(*map(float, t)), Quaternion(*map(float, q))),
    )


MAP_ODOM = (np.array([1.0, 2.0, 0.0]), quat([0, 0, 1], 0.3))
BASE_LASER = (np.array([0.2, 0.0, 0.15]), quat([1, 1, 0], 0.1))


def odom_base(k):
    return np.array([0.1 * k, 0.05 * k, 0.0]), quat([0, 0.2, 1], 0.01 * k)


def publish(domain):
    participant = DomainParticipant(domain)
    tf = DataWriter(participant, Topic(participant, "rt/tf", TFMessage), qos=DYNAMIC)
    tf_static = DataWriter(participant, Topic(participant, "rt/tf_static", TFMessage), qos=STATIC)
    broken_participant = DomainParticipant(domain)
    broken = DataWriter(
        broken_participant, Topic(broken_participant, "rt/tf", Broken), qos=DYNAMIC
    )
    tf_static.write(TFMessage([stamped("map", "odom", 0, 0, *MAP_ODOM)]))
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < 120:
        sec, nanosec = 100 + k // 20, (k % 20) * 50_000_000
        tf.write(TFMessage([
            stamped("odom", "base_link", sec, nanosec, *odom_base(k)),
            stamped("base_link", "laser", sec, nanosec, *BASE_LASER),
        ]))
        nan = stamped("odom", "nan_frame", sec, nanosec, [math.nan, 0, 0], [0, 0, 0, 1])
        tf.write(TFMessage([nan]))
        broken.write(Broken(3))
        chain = homogeneous(*MAP_ODOM) @ homogeneous(*odom_base(k)) @ homogeneous(*BASE_LASER)
        q = quaternion_of(chain[:3, :3])
        values = " ".join(repr(float(v)) for v in [*chain[:3, 3], *q])
        print(f"expect {sec} {nanosec} {values}", flush=True)
        k += 1
        time.sleep(0.05)


def echo(domain):
    participant = DomainParticipant(domain)
    readers = [
        ("tf", DataReader(participant, Topic(participant, "rt/tf", TFMessage), qos=DYNAMIC)),
        ("tf_static", DataReader(
            participant, Topic(participant, "rt/tf_static", TFMessage), qos=STATIC)),
    ]
    print("ready", flush=True)
    start = time.monotonic()
    while time.monotonic() - start < 120:
        for name, reader in readers:
            for msg in reader.take(N=100):
                for t in msg.transforms:
                    v, q = t.transform.translation, t.transform.rotation
                    floats = " ".join(repr(f) for f in [v.x, v.y, v.z, q.x, q.y, q.z, q.w])
                    print(
                        f"{name} {t.header.frame_id} {t.child_frame_id} "
                        f"{t.header.stamp.sec} {t.header.stamp.nanosec} {floats}",
                        flush=True,
                    )
        time.sleep(0.01)


if __name__ == "__main__":
    role, domain = sys.argv[1], int(sys.argv[2])
    {"publish": publish, "echo": echo}[role](domain)
