"""Prints `name hex` for messages serialized by rclpy (Fast DDS typesupport), one per line.

tests/rclpy.rs builds the same values with tacto-msgs' generated types and compares. Values
exercise non-ASCII strings, empty strings and sequences, full fixed arrays, a bounded sequence
at its bound, and odd-sized fields followed by wider ones (alignment padding).
"""

from rclpy.serialization import serialize_message

from action_msgs.msg import GoalInfo, GoalStatus, GoalStatusArray
from action_msgs.srv import CancelGoal
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import (Point, Pose, PoseStamped, PoseWithCovariance, Quaternion,
                               TwistWithCovariance)
from nav_msgs.msg import MapMetaData, OccupancyGrid, Odometry
from rcl_interfaces.msg import (FloatingPointRange, Log, Parameter, ParameterDescriptor,
                                ParameterEvent, ParameterValue)
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import (CameraInfo, Image, JointState, NavSatFix, NavSatStatus,
                             PointCloud2, PointField, RegionOfInterest)
from std_msgs.msg import (Char, Empty, Float32MultiArray, Header, MultiArrayDimension,
                          MultiArrayLayout, String)
from std_srvs.srv import SetBool, Trigger
from test_msgs.action import Fibonacci
from type_description_interfaces.msg import Field, FieldType, IndividualTypeDescription
from unique_identifier_msgs.msg import UUID

STAMP = Time(sec=-5, nanosec=999_999_999)
HEADER = Header(stamp=STAMP, frame_id="bäse_link")
POSE = Pose(position=Point(x=1.5, y=-2.25, z=1e300),
            orientation=Quaternion(x=0.0, y=0.0, z=0.6, w=0.8))
COV36 = [i * 1.25 - 20.0 for i in range(36)]
GOAL_ID = UUID(uuid=[i * 17 for i in range(16)])
GOAL_INFO = GoalInfo(goal_id=GOAL_ID, stamp=STAMP)

CASES = {
    "std_msgs/String": String(data="grüße, 世界 🤖"),
    "std_msgs/String empty": String(data=""),
    "std_msgs/Header": HEADER,
    "std_msgs/Empty": Empty(),
    "std_msgs/Char": Char(data=200),
    "std_msgs/Float32MultiArray": Float32MultiArray(
        layout=MultiArrayLayout(dim=[MultiArrayDimension(label="x", size=3, stride=3)],
                                data_offset=1),
        data=[1.0, -0.5, 3.25]),
    "builtin_interfaces/Duration": Duration(sec=-1, nanosec=1),
    "geometry_msgs/PoseStamped": PoseStamped(header=HEADER, pose=POSE),
    "geometry_msgs/PoseWithCovariance": PoseWithCovariance(pose=POSE, covariance=COV36),
    "sensor_msgs/Image": Image(header=HEADER, height=1, width=3, encoding="rgb8",
                               is_bigendian=1, step=9, data=bytes([0, 1, 2, 253, 254, 255, 7])),
    "sensor_msgs/PointCloud2": PointCloud2(
        header=HEADER, height=1, width=2,
        fields=[PointField(name="x", offset=0, datatype=PointField.FLOAT32, count=1),
                PointField(name="intensity", offset=4, datatype=PointField.UINT8, count=1)],
        is_bigendian=False, point_step=5, row_step=10, data=bytes(range(10)), is_dense=True),
    "sensor_msgs/JointState": JointState(header=HEADER, name=["shoulder", "", "ellbogen_ü"],
                                         position=[0.5, -0.5, 3.0], velocity=[], effort=[1e-9]),
    "sensor_msgs/NavSatFix": NavSatFix(
        header=HEADER, status=NavSatStatus(status=NavSatStatus.STATUS_SBAS_FIX,
                                           service=NavSatStatus.SERVICE_GALILEO),
        latitude=52.5, longitude=-13.25, altitude=34.0,
        position_covariance=[float(i) for i in range(9)],
        position_covariance_type=NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN),
    "sensor_msgs/CameraInfo": CameraInfo(
        header=HEADER, height=480, width=640, distortion_model="plumb_bob",
        d=[0.1, -0.2, 0.0, 0.0, 0.05], k=[float(i) for i in range(9)],
        r=[1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0], p=[float(-i) for i in range(12)],
        binning_x=2, binning_y=1,
        roi=RegionOfInterest(x_offset=1, y_offset=2, height=3, width=4, do_rectify=True)),
    "nav_msgs/Odometry": Odometry(
        header=HEADER, child_frame_id="base_footprint",
        pose=PoseWithCovariance(pose=POSE, covariance=COV36),
        twist=TwistWithCovariance(covariance=list(reversed(COV36)))),
    "nav_msgs/OccupancyGrid": OccupancyGrid(
        header=HEADER,
        info=MapMetaData(map_load_time=STAMP, resolution=0.05, width=3, height=1, origin=POSE),
        data=[-1, 0, 100]),
    "rosgraph_msgs/Clock": Clock(clock=STAMP),
    "rcl_interfaces/Log": Log(stamp=STAMP, level=Log.WARN, name="node", msg="⚠ low battery",
                              file="main.py", function="check", line=42),
    "rcl_interfaces/ParameterDescriptor": ParameterDescriptor(
        name="gain", type=3, description="", read_only=True, dynamic_typing=False,
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0, step=0.1)]),
    "rcl_interfaces/ParameterEvent": ParameterEvent(
        stamp=STAMP, node="/ns/talker",
        new_parameters=[Parameter(name="p", value=ParameterValue(
            type=5, bool_value=True, integer_value=-3, double_value=2.5, string_value="s",
            byte_array_value=[b"\x00", b"\xff"], bool_array_value=[True, False, True],
            integer_array_value=[1, -1], double_array_value=[0.5],
            string_array_value=["a", "ä"]))],
        changed_parameters=[], deleted_parameters=[Parameter(name="q")]),
    "std_srvs/SetBool_Request": SetBool.Request(data=True),
    "std_srvs/SetBool_Response": SetBool.Response(success=False, message="nö"),
    "std_srvs/Trigger_Request": Trigger.Request(),
    # An action's derived types: a bool or int8 before a nested type, sequences after a UUID.
    "test_msgs/Fibonacci_SendGoal_Request": Fibonacci.Impl.SendGoalService.Request(
        goal_id=GOAL_ID, goal=Fibonacci.Goal(order=-7)),
    "test_msgs/Fibonacci_SendGoal_Response": Fibonacci.Impl.SendGoalService.Response(
        accepted=True, stamp=STAMP),
    "test_msgs/Fibonacci_GetResult_Request": Fibonacci.Impl.GetResultService.Request(
        goal_id=GOAL_ID),
    "test_msgs/Fibonacci_GetResult_Response": Fibonacci.Impl.GetResultService.Response(
        status=GoalStatus.STATUS_ABORTED, result=Fibonacci.Result(sequence=[0, 1, 1, 2])),
    "test_msgs/Fibonacci_FeedbackMessage": Fibonacci.Impl.FeedbackMessage(
        goal_id=GOAL_ID, feedback=Fibonacci.Feedback(sequence=[-1])),
    "action_msgs/GoalStatusArray": GoalStatusArray(status_list=[
        GoalStatus(goal_info=GOAL_INFO, status=GoalStatus.STATUS_EXECUTING),
        GoalStatus(goal_info=GoalInfo(), status=GoalStatus.STATUS_UNKNOWN)]),
    "action_msgs/CancelGoal_Response": CancelGoal.Response(
        return_code=CancelGoal.Response.ERROR_NONE, goals_canceling=[GOAL_INFO]),
    "type_description_interfaces/IndividualTypeDescription": IndividualTypeDescription(
        type_name="x" * 255,
        fields=[Field(name="f", type=FieldType(type_id=1, capacity=2, string_capacity=3,
                                               nested_type_name="pkg/msg/T"),
                      default_value="")]),
}

for name, message in CASES.items():
    print(f"{name} {serialize_message(message).hex()}")
