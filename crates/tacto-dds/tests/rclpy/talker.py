"""An rclpy talker: publishes std_msgs/String "<prefix> <n>" on TOPIC every 100 ms, n = 0, 1, ...

Usage: talker.py TOPIC PREFIX. Runs until killed; the test that starts it kills it.
"""
import sys

import rclpy
from std_msgs.msg import String


def main():
    topic, prefix = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node("rclpy_talker")
    publisher = node.create_publisher(String, topic, 10)
    count = 0

    def tick():
        nonlocal count
        publisher.publish(String(data=f"{prefix} {count}"))
        count += 1

    node.create_timer(0.1, tick)
    rclpy.spin(node)


if __name__ == "__main__":
    main()
