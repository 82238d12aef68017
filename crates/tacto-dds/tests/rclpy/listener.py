"""An rclpy listener: prints the data of each std_msgs/String received on TOPIC, one per line.

Usage: listener.py TOPIC PREFIX COUNT [transient_local]. Exits after COUNT messages starting with PREFIX (other
runs of the suite may share the domain; their messages are printed but not counted), or when
killed. Prints "ready"
first, once its subscription exists, and before exiting one line per publisher of TOPIC as the
ROS graph sees it: "publisher <type> <node name> <reliability>".
"""
import sys
import time

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import String


def main():
    topic, prefix, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rclpy.init()
    node = rclpy.create_node("rclpy_listener")
    received = 0

    def on_message(message):
        nonlocal received
        print(message.data, flush=True)
        if message.data.startswith(prefix):
            received += 1

    qos = QoSProfile(depth=10)
    if sys.argv[4:] == ["transient_local"]:
        qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
    node.create_subscription(String, topic, on_message, qos)
    print("ready", flush=True)
    while rclpy.ok() and received < wanted:
        rclpy.spin_once(node, timeout_sec=0.1)
    # The graph cache can lag behind the data path by a moment: give it time.
    deadline = time.monotonic() + 30
    publishers = node.get_publishers_info_by_topic(topic)
    while not publishers and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
        publishers = node.get_publishers_info_by_topic(topic)
    for info in publishers:
        print(f"publisher {info.topic_type} {info.node_name} {info.qos_profile.reliability.name}", flush=True)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
