"""An rclpy talker that leaves: once a subscription matches its publisher on TOPIC, publishes
std_msgs/String for SECONDS seconds, then destroys its node and exits cleanly.

Usage: brief_talker.py TOPIC SECONDS. Prints "matched" when it starts the countdown, "gone"
just before it exits.
"""
import sys
import time

import rclpy
from std_msgs.msg import String


def main():
    topic, seconds = sys.argv[1], float(sys.argv[2])
    rclpy.init()
    node = rclpy.create_node("rclpy_brief_talker")
    publisher = node.create_publisher(String, topic, 10)
    while publisher.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.05)
    print("matched", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        publisher.publish(String(data="still here"))
        rclpy.spin_once(node, timeout_sec=0.1)
    node.destroy_publisher(publisher)
    node.destroy_node()
    rclpy.shutdown()
    print("gone", flush=True)


if __name__ == "__main__":
    main()
