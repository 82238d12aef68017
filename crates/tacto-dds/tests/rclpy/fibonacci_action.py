"""test_msgs/action/Fibonacci peers in rclpy: run on rmw_cyclonedds (python-cyclone) for the
action itself (its services do not cross Fast DDS and Cyclone DDS), on Fast DDS for its topics.

    fibonacci_action.py server NAME
        rclpy's ActionServer: a goal of an order above 40 is rejected (prints "rejected");
        cancels are accepted; an order of 40 or less adds one number every 10 ms, publishing
        each sequence as feedback, and succeeds; order 0 holds the goal (no feedback) until it
        is canceled. Prints "ready", then "goal <order>" per goal accepted and "canceled" per
        goal ended canceled.
    fibonacci_action.py client NAME
        rclpy's ActionClient, in turn: a goal of order 5 with feedback ("feedback <length>"
        each, then "result <status> <numbers, comma-separated>"); a goal of order 99
        ("rejected"); a goal of order 0 canceled after its acceptance ("cancel <return_code>
        <goals canceling>", then "result <status> ..."); a goal of order 3 whose result is
        asked for a second after its acceptance ("late <status> <numbers>"). Then "done".
    fibonacci_action.py topics NAME
        plain subscriptions to NAME/_action/status and NAME/_action/feedback (Fast DDS is
        fine): prints "status <status>,..." per status list and "feedback <length>" per
        feedback.

Each runs until killed (client: exits after "done").
"""
import sys
import threading
import time

import rclpy
from action_msgs.msg import GoalStatusArray
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from test_msgs.action import Fibonacci


def serve(node, name):
    def on_goal(request):
        if request.order > 40:
            print("rejected", flush=True)
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def on_cancel(_):
        return CancelResponse.ACCEPT

    def execute(handle):
        order = handle.request.order
        print(f"goal {order}", flush=True)
        sequence = [0, 1]
        while True:
            if handle.is_cancel_requested:
                handle.canceled()
                print("canceled", flush=True)
                return Fibonacci.Result(sequence=sequence)
            if order == 0:
                time.sleep(0.01)
                continue
            if len(sequence) > order:
                break
            sequence.append(sequence[-1] + sequence[-2])
            handle.publish_feedback(Fibonacci.Feedback(sequence=sequence))
            time.sleep(0.01)
        handle.succeed()
        return Fibonacci.Result(sequence=sequence)

    ActionServer(
        node, Fibonacci, name, execute_callback=execute, goal_callback=on_goal,
        cancel_callback=on_cancel, callback_group=ReentrantCallbackGroup())
    print("ready", flush=True)
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    executor.spin()


def wait(future):
    while not future.done():
        time.sleep(0.005)
    return future.result()


def client(node, name):
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    action = ActionClient(node, Fibonacci, name)
    while not action.wait_for_server(timeout_sec=1.0):
        pass
    print("ready", flush=True)

    def feedback(message):
        print(f"feedback {len(message.feedback.sequence)}", flush=True)

    def numbers(result):
        return ",".join(str(n) for n in result.sequence)

    handle = wait(action.send_goal_async(Fibonacci.Goal(order=5), feedback_callback=feedback))
    result = wait(handle.get_result_async())
    print(f"result {result.status} {numbers(result.result)}", flush=True)

    handle = wait(action.send_goal_async(Fibonacci.Goal(order=99)))
    if not handle.accepted:
        print("rejected", flush=True)

    handle = wait(action.send_goal_async(Fibonacci.Goal(order=0)))
    cancel = wait(handle.cancel_goal_async())
    print(f"cancel {cancel.return_code} {len(cancel.goals_canceling)}", flush=True)
    result = wait(handle.get_result_async())
    print(f"result {result.status} {numbers(result.result)}", flush=True)

    handle = wait(action.send_goal_async(Fibonacci.Goal(order=3)))
    time.sleep(1.0)
    result = wait(handle.get_result_async())
    print(f"late {result.status} {numbers(result.result)}", flush=True)
    print("done", flush=True)


def topics(node, name):
    def on_status(message):
        statuses = ",".join(str(s.status) for s in message.status_list)
        print(f"status {statuses}", flush=True)

    def on_feedback(message):
        print(f"feedback {len(message.feedback.sequence)}", flush=True)

    status_qos = rclpy.qos.QoSProfile(
        depth=1, reliability=rclpy.qos.ReliabilityPolicy.RELIABLE,
        durability=rclpy.qos.DurabilityPolicy.TRANSIENT_LOCAL)
    node.create_subscription(GoalStatusArray, f"{name}/_action/status", on_status, status_qos)
    node.create_subscription(
        Fibonacci.Impl.FeedbackMessage, f"{name}/_action/feedback", on_feedback, 10)
    print("ready", flush=True)
    rclpy.spin(node)


def main():
    mode, name = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node(f"fibonacci_{mode}")
    try:
        {"server": serve, "client": client, "topics": topics}[mode](node, name)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
