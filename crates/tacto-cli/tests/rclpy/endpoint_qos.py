"""Prints rclpy's view of the type hash and QoS of a publisher: rclpy's own `topic info -v` lines.

Usage: endpoint_qos.py TOPIC NODE. Waits (up to 60 s; the graph follows discovery) for a
publisher of TOPIC from node NODE, prints the lines of rclpy's TopicEndpointInfo text from
"Topic type hash:" on, and exits.
"""
import sys
import time

import rclpy


def main():
    topic, wanted = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node("rclpy_qos_reader")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
        found = [p for p in node.get_publishers_info_by_topic(topic) if p.node_name == wanted]
        if found:
            text = str(found[0])
            print(text[text.index("Topic type hash:"):], flush=True)
            break
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
