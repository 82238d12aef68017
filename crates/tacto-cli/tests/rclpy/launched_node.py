"""An rclpy node started by `tacto launch`: says what its ROS arguments made of it, then what it
hears on `chatter`.

    launched_node.py --ros-args ...

Prints, from inside rclpy, once:
    name=NAME
    namespace=NAMESPACE
    param NAME=VALUE TYPE       (each parameter the arguments gave, sorted; TYPE is Python's)
    resolved chatter=TOPIC      (what the remaps made of the relative name `chatter`)
then "heard DATA" for each std_msgs/String on `chatter`, until SIGINT or SIGTERM.
"""
import signal
import sys

import rclpy
from rclpy.node import Node
from std_msgs.msg import String


def main():
    rclpy.init(args=sys.argv)
    node = Node("launched_default", automatically_declare_parameters_from_overrides=True)
    print(f"name={node.get_name()}", flush=True)
    print(f"namespace={node.get_namespace()}", flush=True)
    for name in sorted(node._parameters):
        if name == "use_sim_time":
            continue
        value = node.get_parameter(name).value
        print(f"param {name}={value!r} {type(value).__name__}", flush=True)
    print(f"resolved chatter={node.resolve_topic_name('chatter')}", flush=True)
    node.create_subscription(String, "chatter", lambda m: print(f"heard {m.data}", flush=True), 10)
    signal.signal(signal.SIGTERM, lambda *_: rclpy.try_shutdown())
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass


main()
