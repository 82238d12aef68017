"""An rclpy talker for counted runs of std_msgs/String "<prefix> <n>" on TOPIC, every PERIOD s.

Usage: sender.py TOPIC PREFIX PERIOD COUNT [best_effort].
- COUNT 0: publishes n = 0, 1, ... without end.
- COUNT > 0: a handshake first, so that no numbered message is lost to discovery (volatile
  QoS drops what a writer sends before the reader knows it): publishes "warmup" until a
  message arrives on TOPIC_go (the test sends it once the warm-ups reach it), prints
  "started", publishes n = 0 .. COUNT-1, prints "done".
Keeps spinning afterwards (its writer stays, so reliable samples are not lost with it) until
killed by the test that started it.
"""
import sys

import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String


def main():
    topic, prefix, period, count = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    rclpy.init()
    node = rclpy.create_node("rclpy_sender")
    qos = QoSProfile(depth=10)
    if sys.argv[5:] == ["best_effort"]:
        qos.reliability = ReliabilityPolicy.BEST_EFFORT
    publisher = node.create_publisher(String, topic, qos)
    started = count == 0
    sent = 0

    def go(_message):
        nonlocal started
        if not started:
            started = True
            print("started", flush=True)

    node.create_subscription(String, topic + "_go", go, 10)

    def tick():
        nonlocal sent
        if not started:
            publisher.publish(String(data="warmup"))
            return
        if count and sent >= count:
            return
        publisher.publish(String(data=f"{prefix} {sent}"))
        sent += 1
        if sent == count:
            print("done", flush=True)

    node.create_timer(period, tick)
    rclpy.spin(node)


if __name__ == "__main__":
    main()
