"""An rclpy node that feeds a gyro odometer and prints what it fuses.

    gyro_peer.py IMU_TOPIC TWIST_TOPIC OUTPUT_TOPIC CYCLES PERIOD_S

Waits until its IMU and vehicle twist publishers and its output subscription are matched,
prints "ready", then for k = 1 .. CYCLES: publishes an IMU sample (frame base_link, angular
velocity (0.01k, 0.02k, 0.03k), its variances (0.001k, 0.002k, 0.003k)), a fifth of PERIOD_S
later a vehicle twist (vx 0.5k, its variance 0.01k), both stamped now, and prints
"sent k IMU_SEC IMU_NANOSEC TWIST_SEC TWIST_NANOSEC"; PERIOD_S after the IMU sample, the next
cycle. Each fused twist with covariance
received is printed as "out WX WY WZ VX COV_XX COV_YY COV_ROLL COV_PITCH COV_YAW SEC NANOSEC
FRAME" (repr of each float). Runs until killed.
"""
import sys
import time

import rclpy
from geometry_msgs.msg import TwistWithCovarianceStamped
from sensor_msgs.msg import Imu


def main():
    imu_topic, twist_topic, output_topic = sys.argv[1:4]
    cycles, period = int(sys.argv[4]), float(sys.argv[5])
    rclpy.init()
    node = rclpy.create_node("gyro_peer")
    imu_pub = node.create_publisher(Imu, imu_topic, 10)
    twist_pub = node.create_publisher(TwistWithCovarianceStamped, twist_topic, 10)

    def on_output(msg):
        t = msg.twist
        c = t.covariance
        values = [t.twist.angular.x, t.twist.angular.y, t.twist.angular.z, t.twist.linear.x,
                  float(c[0]), float(c[7]), float(c[21]), float(c[28]), float(c[35])]
        print("out " + " ".join(repr(v) for v in values)
              + f" {msg.header.stamp.sec} {msg.header.stamp.nanosec} {msg.header.frame_id}",
              flush=True)

    node.create_subscription(TwistWithCovarianceStamped, output_topic, on_output, 10)
    waited = 0
    while (imu_pub.get_subscription_count() == 0 or twist_pub.get_subscription_count() == 0
           or node.count_publishers(output_topic) == 0):
        rclpy.spin_once(node, timeout_sec=0.1)
        waited += 1
        if waited % 50 == 0:
            # What is still missing, for the test's failure message.
            print(f"waiting: {imu_pub.get_subscription_count()} IMU and "
                  f"{twist_pub.get_subscription_count()} twist readers, "
                  f"{node.count_publishers(output_topic)} output writers", file=sys.stderr,
                  flush=True)
    print("ready", flush=True)

    def spin_until(deadline):
        while time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=max(0.0, deadline - time.monotonic()))

    start = time.monotonic()
    for k in range(1, cycles + 1):
        spin_until(start + (k - 1) * period)
        imu = Imu()
        imu.header.stamp = node.get_clock().now().to_msg()
        imu.header.frame_id = "base_link"
        imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z = (
            0.01 * k, 0.02 * k, 0.03 * k)
        imu.angular_velocity_covariance[0] = 0.001 * k
        imu.angular_velocity_covariance[4] = 0.002 * k
        imu.angular_velocity_covariance[8] = 0.003 * k
        imu_pub.publish(imu)
        spin_until(start + (k - 1) * period + period / 5)
        twist = TwistWithCovarianceStamped()
        twist.header.stamp = node.get_clock().now().to_msg()
        twist.header.frame_id = "base_link"
        twist.twist.twist.linear.x = 0.5 * k
        twist.twist.covariance[0] = 0.01 * k
        twist_pub.publish(twist)
        print(f"sent {k} {imu.header.stamp.sec} {imu.header.stamp.nanosec} "
              f"{twist.header.stamp.sec} {twist.header.stamp.nanosec}", flush=True)
    rclpy.spin(node)


main()
