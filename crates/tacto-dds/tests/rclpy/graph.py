"""Prints what rclpy's graph knows of the node NODE and of the publishers of TOPIC.

Usage: graph.py NODE TOPIC. Waits (up to 60 s; the graph follows discovery) until
get_node_names_and_namespaces() lists NODE and TOPIC has a publisher of a known node, then
prints "node <namespace> <name>" for NODE and "publisher <namespace> <node name>" for each
publisher of TOPIC, and exits.
"""
import sys
import time

import rclpy


def main():
    wanted, topic = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node("rclpy_graph")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
        nodes = [(ns, name) for name, ns in node.get_node_names_and_namespaces() if name == wanted]
        publishers = node.get_publishers_info_by_topic(topic)
        if nodes and any(p.node_name == wanted for p in publishers):
            break
    for ns, name in nodes:
        print(f"node {ns} {name}", flush=True)
    for info in publishers:
        print(f"publisher {info.node_namespace} {info.node_name}", flush=True)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
