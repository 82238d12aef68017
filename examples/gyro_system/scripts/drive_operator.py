#!/usr/bin/env python3
"""The gyro_system's rclpy node: the operator who tells the vehicle to drive, and watches where
dead reckoning says it went.

    drive_operator.py --ros-args -p speed:=2.0 -p yaw_rate:=0.2 -r pose:=... -r drive_command:=...

Subscribes to `pose` (geometry_msgs/PoseStamped). Once a pose has arrived (the system is up
from the sensors to the integrator) and the vehicle's command subscription has matched, it
publishes a `drive_command` (geometry_msgs/Twist: linear.x = `speed`, angular.z = `yaw_rate`,
its parameters) and prints

    sent drive command: speed S yaw_rate W

and sends it again every `RESEND_S` until a pose away from the origin shows the vehicle
drives: a match seen from the writer's side only (DDS discovery is not symmetric) may drop the
first one.

Then, for each pose that differs from the one before,

    pose SEC.NANOSEC x X y Y qz QZ qw QW

(the numbers as Python's repr, which reads back to the same double). Runs until SIGINT or
SIGTERM.
"""
import sys
import time

import rclpy
from geometry_msgs.msg import PoseStamped, Twist
from rclpy.node import Node

# Seconds between two sends of the command while the vehicle has not moved.
RESEND_S = 0.5

# A pose at the origin, heading along x: (x, y, qz, qw).
ORIGIN = (0.0, 0.0, 0.0, 1.0)


class DriveOperator(Node):
    def __init__(self):
        super().__init__("drive_operator")
        self.speed = self.declare_parameter("speed", 2.0).value
        self.yaw_rate = self.declare_parameter("yaw_rate", 0.2).value
        self.command = self.create_publisher(Twist, "drive_command", 10)
        # Every pose is printed: keep up to 5 s of them (50 Hz) while Python catches up.
        self.create_subscription(PoseStamped, "pose", self.on_pose, 250)
        self.sent_at = None
        self.moved = False
        self.last = None

    def on_pose(self, msg):
        p, q = msg.pose.position, msg.pose.orientation
        values = (p.x, p.y, q.z, q.w)
        self.moved = self.moved or values != ORIGIN
        due = self.sent_at is None or time.monotonic() - self.sent_at >= RESEND_S
        if not self.moved and due and self.command.get_subscription_count() > 0:
            command = Twist()
            command.linear.x = float(self.speed)
            command.angular.z = float(self.yaw_rate)
            self.command.publish(command)
            self.sent_at = time.monotonic()
            print(f"sent drive command: speed {self.speed!r} yaw_rate {self.yaw_rate!r}", flush=True)
        if values != self.last:
            self.last = values
            stamp = msg.header.stamp
            print(
                f"pose {stamp.sec}.{stamp.nanosec:09d} x {p.x!r} y {p.y!r} qz {q.z!r} qw {q.w!r}",
                flush=True,
            )


def main():
    # rclpy.init handles SIGINT and SIGTERM (how a launch stops it): spin then returns.
    rclpy.init(args=sys.argv)
    node = DriveOperator()
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        rclpy.try_shutdown()


main()
