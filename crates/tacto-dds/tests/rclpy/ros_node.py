"""rclpy's view of a tacto node as a ROS 2 node: its parameters, its graph entry, its
/parameter_events and /rosout.

    ros_node.py params NODE FILE
        rclpy's AsyncParameterClient on NODE (run with python-cyclone: services do not cross
        Fast DDS and Cyclone DDS): lists, gets `period`, sets it to 0.5 (accepted), to a string
        (refused), describes it, loads FILE; prints one line per answer, then "done"
    ros_node.py graph NODE TOPIC COUNT
        waits for NODE (/namespace/name) on the graph, prints "node NODE", then subscribes to
        TOPIC (std_msgs/String) and prints "rate <Hz>" over COUNT messages' stamps of arrival
    ros_node.py watch
        prints "ready", then "event <node> <changed names>" for each /parameter_events message
        and "rosout <name> <level> <msg>" for each /rosout line
"""
import sys
import time

import rclpy
from rclpy.parameter import Parameter
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import QoSDurabilityPolicy, QoSProfile, QoSReliabilityPolicy
from rcl_interfaces.msg import Log, ParameterEvent
from std_msgs.msg import String


def result(node, future):
    rclpy.spin_until_future_complete(node, future, timeout_sec=10.0)
    if future.result() is None:
        print(f"no answer: {future.exception()}", flush=True)
        sys.exit(1)
    return future.result()


def params(node, target, file):
    client = AsyncParameterClient(node, target)
    if not client.wait_for_services(timeout_sec=30.0):
        print("no services", flush=True)
        sys.exit(1)
    listed = result(node, client.list_parameters())
    print("list " + " ".join(sorted(listed.result.names)), flush=True)
    got = result(node, client.get_parameters(["period"]))
    print(f"get period {got.values[0].double_value}", flush=True)
    ok = result(node, client.set_parameters([Parameter("period", value=0.5)]))
    print(f"set {ok.results[0].successful} {ok.results[0].reason}", flush=True)
    bad = result(node, client.set_parameters([Parameter("period", value="fast")]))
    print(f"set {bad.results[0].successful} {bad.results[0].reason}", flush=True)
    described = result(node, client.describe_parameters(["period"]))
    d = described.descriptors[0]
    print(f"describe {d.name} {d.type} {d.floating_point_range[0].to_value} {d.description}", flush=True)
    loaded = result(node, client.load_parameter_file(file))
    print("load " + " ".join(str(r.successful) for r in loaded.results), flush=True)
    got = result(node, client.get_parameters(["period"]))
    print(f"get period {got.values[0].double_value}", flush=True)
    print("done", flush=True)


def graph(node, target, topic, count):
    while True:
        names = [f"{ns.rstrip('/')}/{name}" for name, ns in node.get_node_names_and_namespaces()]
        if target in names:
            break
        rclpy.spin_once(node, timeout_sec=0.1)
    print(f"node {target}", flush=True)
    stamps = []
    node.create_subscription(String, topic, lambda msg: stamps.append(time.monotonic()), 10)
    while len(stamps) < count:
        rclpy.spin_once(node, timeout_sec=0.1)
    print(f"rate {(len(stamps) - 1) / (stamps[-1] - stamps[0]):.2f}", flush=True)


def watch(node):
    def on_event(msg):
        names = ",".join(p.name for p in msg.changed_parameters)
        print(f"event {msg.node} {names}", flush=True)

    def on_log(msg):
        print(f"rosout {msg.name} {msg.level} {msg.msg}", flush=True)

    node.create_subscription(ParameterEvent, "/parameter_events", on_event, 1000)
    rosout = QoSProfile(depth=1000, reliability=QoSReliabilityPolicy.RELIABLE,
                        durability=QoSDurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(Log, "/rosout", on_log, rosout)
    print("ready", flush=True)
    rclpy.spin(node)


def main():
    rclpy.init()
    node = rclpy.create_node("rclpy_ros_node_peer")
    mode = sys.argv[1]
    if mode == "params":
        params(node, sys.argv[2], sys.argv[3])
    elif mode == "graph":
        graph(node, sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        watch(node)


main()
