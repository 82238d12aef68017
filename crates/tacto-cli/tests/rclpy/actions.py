"""An rclpy node with an action server and an action client (test_msgs/action/Fibonacci).

Usage: actions.py SERVED CLIENT_OF: serves the action SERVED and has a client of CLIENT_OF.
Runs until killed; the test that starts it kills it.
"""
import sys

import rclpy
from rclpy.action import ActionClient, ActionServer
from test_msgs.action import Fibonacci


def main():
    served, client_of = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node("rclpy_actions")

    def execute(goal):
        goal.succeed()
        return Fibonacci.Result()

    ActionServer(node, Fibonacci, served, execute)
    ActionClient(node, Fibonacci, client_of)
    rclpy.spin(node)


if __name__ == "__main__":
    main()
