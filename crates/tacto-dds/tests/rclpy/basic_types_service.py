"""A test_msgs/srv/BasicTypes service peer in rclpy, run on rmw_cyclonedds (python-cyclone):
services do not cross Fast DDS and Cyclone DDS, and tacto speaks rmw_cyclonedds' mapping.

    basic_types_service.py server NAME
        serves NAME: each response is its request with int64_value + 1 and string_value
        suffixed " answered"; prints "answered <string_value>" per request
    basic_types_service.py clients NAME CLIENTS CALLS
        CLIENTS clients of NAME in one node, each sending CALLS requests at once (all
        outstanding together), string_value "client <k> call <c>", int64_value k * 1000 + c;
        prints "client <k> got <int64_value> <string_value>" per response, then "done"
    basic_types_service.py flood NAME
        one client of NAME sending a request every 10 ms, replies ignored

Each prints "ready" once its service or clients exist (clients: once the service is
available); it runs until killed (the clients mode exits after its last response).
"""
import sys

import rclpy
from rclpy.executors import SingleThreadedExecutor
from test_msgs.srv import BasicTypes


def serve(node, name):
    def answer(request, response):
        response.int64_value = request.int64_value + 1
        response.string_value = request.string_value + " answered"
        print(f"answered {request.string_value}", flush=True)
        return response

    node.create_service(BasicTypes, name, answer)
    print("ready", flush=True)
    rclpy.spin(node)


def wait_for(node, clients):
    for client in clients:
        while not client.wait_for_service(timeout_sec=1.0):
            pass
    print("ready", flush=True)


def call(node, name, clients, calls):
    clients = [node.create_client(BasicTypes, name) for _ in range(clients)]
    wait_for(node, clients)
    futures = []
    for c in range(calls):
        for k, client in enumerate(clients):
            request = BasicTypes.Request(int64_value=k * 1000 + c, string_value=f"client {k} call {c}")
            futures.append((k, client.call_async(request)))
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    while not all(future.done() for _, future in futures):
        executor.spin_once(timeout_sec=0.1)
    for k, future in futures:
        response = future.result()
        print(f"client {k} got {response.int64_value} {response.string_value}", flush=True)
    print("done", flush=True)


def flood(node, name):
    client = node.create_client(BasicTypes, name)
    wait_for(node, [client])
    count = 0

    def tick():
        nonlocal count
        count += 1
        client.call_async(BasicTypes.Request(int64_value=count, string_value="flood"))

    node.create_timer(0.01, tick)
    rclpy.spin(node)


def main():
    mode, name = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node(f"rclpy_basic_types_{mode}")
    if mode == "server":
        serve(node, name)
    elif mode == "clients":
        call(node, name, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "flood":
        flood(node, name)
    else:
        sys.exit(f"unknown mode {mode!r}: server, clients or flood")


if __name__ == "__main__":
    main()
