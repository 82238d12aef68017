"""rclpy's side of the lifecycle tests (run with python-cyclone: services do not cross Fast DDS
and Cyclone DDS).

    lifecycle.py node NAME [moody]
        an rclpy LifecycleNode NAME whose callbacks all succeed; prints "ready", then
        "callback <transition> <previous state label>" as each callback runs. With `moody`,
        on_configure answers failure, then error, then success; on_activate raises; on_error
        answers success the first time and failure after
    lifecycle.py client TARGET [invalid-id]
        a client of TARGET's lifecycle services, calling them as `ros2 lifecycle` does: walks
        TARGET through configure (by label), activate (by id), deactivate, cleanup, a refused
        activate (by label; also by id with `invalid-id`), an unknown label, configure, shutdown (by label, from inactive), and asks
        get_state, get_available_states, get_available_transitions and get_transition_graph
        on the way. Prints one line per answer, "answer <call> <json>", every field of the
        response; then waits for the transition events and prints "event <json>" for each
        (start, goal, transition, timestamp), in the order heard; then "done"
    lifecycle.py moody-client TARGET
        as `client`, for a moody node: configure three times, then activate, each followed by
        get_state; then the events and "done"
"""
import json
import sys
import time

import rclpy
from lifecycle_msgs.msg import Transition, TransitionEvent
from lifecycle_msgs.srv import ChangeState, GetAvailableStates, GetAvailableTransitions, GetState
from rclpy.executors import ExternalShutdownException
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from rclpy.qos import QoSProfile


def state(s):
    return {"id": s.id, "label": s.label}


def transition(t):
    return {"id": t.id, "label": t.label}


def description(d):
    return {
        "transition": transition(d.transition),
        "start_state": state(d.start_state),
        "goal_state": state(d.goal_state),
    }


class Node(LifecycleNode):
    def __init__(self, name, moody):
        super().__init__(name)
        self._moody = moody
        self._configures = [TransitionCallbackReturn.FAILURE, TransitionCallbackReturn.ERROR]
        self._errors = [TransitionCallbackReturn.SUCCESS]

    def _say(self, name, previous):
        print(f"callback {name} {previous.label}", flush=True)
        return TransitionCallbackReturn.SUCCESS

    def on_configure(self, previous):
        answer = self._say("configure", previous)
        if self._moody and self._configures:
            return self._configures.pop(0)
        return answer

    def on_activate(self, previous):
        self._say("activate", previous)
        if self._moody:
            raise RuntimeError("custom exception raised in activate callback")
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, previous):
        self._say("error", previous)
        if self._errors:
            return self._errors.pop(0)
        return TransitionCallbackReturn.FAILURE

    def on_deactivate(self, previous):
        return self._say("deactivate", previous)

    def on_cleanup(self, previous):
        return self._say("cleanup", previous)

    def on_shutdown(self, previous):
        return self._say("shutdown", previous)


def serve(name, moody):
    rclpy.init()
    node = Node(name, moody)
    print("ready", flush=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass


def call(node, client, request):
    future = client.call_async(request)
    rclpy.spin_until_future_complete(node, future, timeout_sec=10.0)
    if future.result() is None:
        print(f"no answer from {client.srv_name}: {future.exception()}", flush=True)
        sys.exit(1)
    return future.result()


def connect(target):
    """A client node, its transition events, and its clients of TARGET's five services."""
    rclpy.init()
    node = rclpy.create_node("lifecycle_client")
    events = []
    # rclcpp_lifecycle's and rclpy's transition_event QoS: the default profile, depth 10.
    node.create_subscription(
        TransitionEvent, f"{target}/transition_event", events.append, QoSProfile(depth=100))
    clients = {
        "change_state": node.create_client(ChangeState, f"{target}/change_state"),
        "get_state": node.create_client(GetState, f"{target}/get_state"),
        "get_available_states": node.create_client(
            GetAvailableStates, f"{target}/get_available_states"),
        "get_available_transitions": node.create_client(
            GetAvailableTransitions, f"{target}/get_available_transitions"),
        "get_transition_graph": node.create_client(
            GetAvailableTransitions, f"{target}/get_transition_graph"),
    }
    for name, client in clients.items():
        if not client.wait_for_service(timeout_sec=60.0):
            print(f"no service {name}", flush=True)
            sys.exit(1)
    # The subscription must match before the first transition, or its event is lost
    # (volatile): wait for the publisher.
    deadline = time.monotonic() + 60.0
    while node.count_publishers(f"{target}/transition_event") == 0:
        if time.monotonic() > deadline:
            print("no transition_event publisher", flush=True)
            sys.exit(1)
        rclpy.spin_once(node, timeout_sec=0.1)
    return node, events, clients


class Calls:
    """The answers of TARGET's services, each printed as it comes."""

    def __init__(self, node, clients):
        self.node = node
        self.clients = clients

    def get_state(self):
        answer = call(self.node, self.clients["get_state"], GetState.Request())
        print("answer get_state " + json.dumps(state(answer.current_state)), flush=True)

    def change(self, label="", id=0):
        request = ChangeState.Request(transition=Transition(id=id, label=label))
        answer = call(self.node, self.clients["change_state"], request)
        print(f"answer change_state {json.dumps({'id': id, 'label': label})} "
              + json.dumps({"success": answer.success}), flush=True)


def walk(target, invalid_id):
    node, events, clients = connect(target)
    calls = Calls(node, clients)
    get_state, change = calls.get_state, calls.change

    def available():
        answer = call(node, clients["get_available_transitions"], GetAvailableTransitions.Request())
        listed = [description(d) for d in answer.available_transitions]
        print("answer get_available_transitions " + json.dumps(listed), flush=True)

    get_state()
    answer = call(node, clients["get_available_states"], GetAvailableStates.Request())
    print("answer get_available_states "
          + json.dumps([state(s) for s in answer.available_states]), flush=True)
    answer = call(node, clients["get_transition_graph"], GetAvailableTransitions.Request())
    print("answer get_transition_graph "
          + json.dumps([description(d) for d in answer.available_transitions]), flush=True)
    available()
    change(label="configure")
    get_state()
    available()
    change(id=Transition.TRANSITION_ACTIVATE)
    get_state()
    available()
    change(label="deactivate")
    get_state()
    change(id=Transition.TRANSITION_CLEANUP)
    get_state()
    # Refused: unconfigured has no activate. By id only when asked: rclpy's own LifecycleNode
    # does not catch that error, and its process ends (rclcpp's answers false).
    if invalid_id:
        change(id=Transition.TRANSITION_ACTIVATE)
    change(label="activate")
    change(label="no_such_transition")
    get_state()
    change(label="configure")
    change(label="shutdown")
    get_state()
    available()
    # Every successful change is two events; wait for the six changes' twelve.
    report_events(node, events, 12)


def moody_walk(target):
    node, events, clients = connect(target)
    calls = Calls(node, clients)
    get_state, change = calls.get_state, calls.change

    for _ in range(3):
        change(label="configure")
        get_state()
    change(id=Transition.TRANSITION_ACTIVATE)
    get_state()
    # A failure is two events, an error through errorprocessing three: 2 + 3 + 2 + 3.
    report_events(node, events, 10)


def report_events(node, events, count):
    deadline = time.monotonic() + 30.0
    while len(events) < count and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    for event in events:
        print("event " + json.dumps({
            "start_state": state(event.start_state),
            "goal_state": state(event.goal_state),
            "transition": transition(event.transition),
            "timestamp": event.timestamp,
        }), flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "node":
        serve(sys.argv[2], sys.argv[3:] == ["moody"])
    elif sys.argv[1] == "client":
        walk(sys.argv[2], sys.argv[3:] == ["invalid-id"])
    elif sys.argv[1] == "moody-client":
        moody_walk(sys.argv[2])
    else:
        sys.exit(f"unknown mode {sys.argv[1]}")
