"""An rclpy node with declared parameters, for `tacto param` (run with python-cyclone: services
do not cross Fast DDS and Cyclone DDS).

    param_node.py

Node /rclpy_params, its parameters:
    gain     double 0.5, "how much to amplify", 0.0 to 10.0 in steps of 0.5
    count    integer 3, 0 to 100, "at most 50" (an on-set callback refuses more, with the reason
             "count must be at most 50")
    mode     string "fast", read-only
    names    string array ["a", "b"]
    enabled  bool true
    extra    integer 1, dynamically typed (so that it can be deleted)
Prints "ready", then spins until killed.
"""
import rclpy
from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                SetParametersResult)


def main():
    rclpy.init()
    node = rclpy.create_node("rclpy_params")
    node.declare_parameter("gain", 0.5, ParameterDescriptor(
        description="how much to amplify",
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=10.0, step=0.5)]))
    node.declare_parameter("count", 3, ParameterDescriptor(
        integer_range=[IntegerRange(from_value=0, to_value=100, step=1)],
        additional_constraints="at most 50"))
    node.declare_parameter("mode", "fast", ParameterDescriptor(read_only=True))
    node.declare_parameter("names", ["a", "b"])
    node.declare_parameter("enabled", True)
    node.declare_parameter("extra", 1, ParameterDescriptor(dynamic_typing=True))

    def validate(parameters):
        for parameter in parameters:
            if parameter.name == "count" and parameter.value > 50:
                return SetParametersResult(successful=False,
                                           reason="count must be at most 50")
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(validate)
    print("ready", flush=True)
    rclpy.spin(node)


main()
