"""Nested and large messages between rclpy and tacto, every field compared.

Usage: big.py talk|listen KIND TOPIC [COUNT]. KIND is pose (geometry_msgs/PoseStamped), cloud
(a 1 MiB sensor_msgs/PointCloud2) or image (a 2 MiB sensor_msgs/Image). Message n is built by
`expected(KIND, n)`, the same recipe as `tests/big_messages.rs`, with n in header.stamp.sec.

- talk: publishes message 0, 1, ... every 200 ms until killed.
- listen: prints "ready" once subscribed; for each message received, compares it field by
  field with expected(KIND, header.stamp.sec) and prints "ok <n>" or "mismatch <n> <field
  path>: <got> != <expected>"; exits after COUNT messages that matched.
"""
import array
import sys

import numpy
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.qos import QoSProfile
from sensor_msgs.msg import Image, PointCloud2, PointField

TYPES = {"pose": PoseStamped, "cloud": PointCloud2, "image": Image}


def pattern(size, n):
    """Byte i is (7 i + i / 1024 + n) mod 256: no short period, so a shifted or truncated
    payload shows."""
    i = numpy.arange(size, dtype=numpy.uint64)
    return array.array("B", ((i * 7 + (i >> 10) + n) & 0xFF).astype(numpy.uint8).tobytes())


def expected(kind, n):
    message = TYPES[kind]()
    message.header.stamp.sec = n
    message.header.frame_id = f"{kind} {n}"
    if kind == "pose":
        message.header.stamp.nanosec = 1000 * n + 7
        message.pose.position.x = n + 0.5
        message.pose.position.y = -1.25
        message.pose.position.z = 3e10
        message.pose.orientation.x = 0.125
        message.pose.orientation.y = -0.25
        message.pose.orientation.z = 0.5
        message.pose.orientation.w = 0.8125
    elif kind == "cloud":
        message.header.stamp.nanosec = 1
        message.height = 1
        message.width = 65536
        message.fields = [
            PointField(name=name, offset=4 * k, datatype=PointField.FLOAT32, count=1)
            for k, name in enumerate(["x", "y", "z", "intensity"])
        ]
        message.is_bigendian = False
        message.point_step = 16
        message.row_step = 16 * 65536
        message.data = pattern(16 * 65536, n)
        message.is_dense = n % 2 == 0
    else:
        message.header.stamp.nanosec = 2
        message.height = 1024
        message.width = 1024
        message.encoding = "mono16"
        message.is_bigendian = 0
        message.step = 2048
        message.data = pattern(2048 * 1024, n)
    return message


def difference(got, want, path):
    """The path of the first field where got and want differ, with both values, or None."""
    if hasattr(want, "get_fields_and_field_types"):
        for field in want.get_fields_and_field_types():
            found = difference(getattr(got, field), getattr(want, field), f"{path}.{field}")
            if found:
                return found
        return None
    if isinstance(want, list):
        if len(got) != len(want):
            return f"{path} length: {len(got)} != {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            found = difference(g, w, f"{path}[{k}]")
            if found:
                return found
        return None
    if isinstance(want, array.array):
        if len(got) != len(want):
            return f"{path} length: {len(got)} != {len(want)}"
        if got != want:
            k = next(k for k, (g, w) in enumerate(zip(got, want)) if g != w)
            return f"{path}[{k}]: {got[k]} != {want[k]}"
        return None
    if got != want or type(got) is not type(want):
        return f"{path}: {got!r} != {want!r}"
    return None


def main():
    mode, kind, topic = sys.argv[1], sys.argv[2], sys.argv[3]
    rclpy.init()
    node = rclpy.create_node(f"rclpy_big_{mode}")
    qos = QoSProfile(depth=10)
    if mode == "talk":
        publisher = node.create_publisher(TYPES[kind], topic, qos)
        sent = 0

        def tick():
            nonlocal sent
            publisher.publish(expected(kind, sent))
            sent += 1

        node.create_timer(0.2, tick)
        rclpy.spin(node)
        return
    wanted = int(sys.argv[4])
    matched = 0

    def on_message(message):
        nonlocal matched
        n = message.header.stamp.sec
        found = difference(message, expected(kind, n), kind)
        if found:
            print(f"mismatch {n} {found}", flush=True)
        else:
            matched += 1
            print(f"ok {n}", flush=True)

    node.create_subscription(TYPES[kind], topic, on_message, qos)
    print("ready", flush=True)
    while rclpy.ok() and matched < wanted:
        rclpy.spin_once(node, timeout_sec=0.1)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
