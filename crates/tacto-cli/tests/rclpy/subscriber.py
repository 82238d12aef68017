"""An rclpy subscriber of any message type: prints chosen fields of the first message.

Usage: subscriber.py TOPIC TYPE FIELD... (TYPE as pkg/msg/Name, FIELD as a dotted path such as
pose.position.x). Prints "ready" once its subscription exists, then, for the first message, one
line "FIELD=VALUE" per field (VALUE as Python's repr), and exits.
"""
import importlib
import sys

import rclpy
from rclpy.qos import QoSProfile


def main():
    topic, type_name, fields = sys.argv[1], sys.argv[2], sys.argv[3:]
    package, _, name = type_name.split("/")
    message_type = getattr(importlib.import_module(f"{package}.msg"), name)
    rclpy.init()
    node = rclpy.create_node("rclpy_subscriber")
    received = []
    node.create_subscription(message_type, topic, received.append, QoSProfile(depth=10))
    print("ready", flush=True)
    while rclpy.ok() and not received:
        rclpy.spin_once(node, timeout_sec=0.1)
    for field in fields:
        value = received[0]
        for part in field.split("."):
            value = getattr(value, part)
        print(f"{field}={value!r}", flush=True)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
