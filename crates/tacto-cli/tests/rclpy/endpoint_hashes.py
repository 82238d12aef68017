"""Prints the type hashes rclpy sees on DDS topics: rclpy's `topic info -v` view of each endpoint.

Usage: endpoint_hashes.py COUNT DDS_TOPIC... Waits (up to 60 s; the graph follows discovery)
until the DDS topics (`rt/...`, `rq/...Request`, `rr/...Reply`, names as on the wire) have
COUNT endpoints between them that are not this node's, prints `TOPIC KIND HASH` for each,
sorted, and exits.
"""
import sys
import time

import rclpy


def main():
    count, topics = int(sys.argv[1]), sys.argv[2:]
    rclpy.init()
    node = rclpy.create_node("rclpy_hash_reader")
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline and len(lines) < count:
        rclpy.spin_once(node, timeout_sec=0.1)
        lines = []
        for topic in topics:
            found = node.get_publishers_info_by_topic(topic, no_mangle=True) + \
                node.get_subscriptions_info_by_topic(topic, no_mangle=True)
            for info in found:
                if info.node_name != "rclpy_hash_reader":
                    lines.append(f"{topic} {info.endpoint_type.name} {info.topic_type_hash}")
    for line in sorted(lines):
        print(line, flush=True)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
