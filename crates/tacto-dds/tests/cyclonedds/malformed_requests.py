"""Requests no ROS 2 client sends, for tacto's services: the PyPI `cyclonedds` package writes
them on /add_two_ints (example_interfaces/srv/AddTwoInts) laid out as rmw_cyclonedds lays a
request out (the 16-byte request header, client id then sequence number, before the fields, in
XCDR1), each from a type of its own under the request's type name:

    malformed_requests.py DOMAIN

1. "short header": 8 bytes after the encapsulation, where the header needs 16;
2. "short body": the header (client 0x1234abcd, sequence 1) and `a`, without `b`;
3. a good request (same client, sequence 2, 20 + 22), and prints its reply: "reply <client>
   <sequence> <sum>".

Each waits until the server's reader acknowledged the one before, so they reach it in this
order. Prints "ready" once the first writer exists; runs until killed (or 120 s). rclpy is the
peer for every well-formed service exchange (tests/rclpy/basic_types_service.py).
"""

import os
import sys
import time
from dataclasses import dataclass

# Loopback only, no multicast: what the Rust side's DiscoveryRange::Localhost configures.
os.environ["CYCLONEDDS_URI"] = (
    "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces>"
    "<AllowMulticast>false</AllowMulticast></General>"
    "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
    "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>"
    "<Peers><Peer address=\"localhost\"/></Peers></Discovery></Domain></CycloneDDS>"
)

from cyclonedds.core import Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlStruct  # noqa: E402
from cyclonedds.idl.types import int64, uint64  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402
from cyclonedds.util import duration  # noqa: E402

REQUEST = "example_interfaces::srv::dds_::AddTwoInts_Request_"


@dataclass
class ShortHeader(IdlStruct, typename=REQUEST):
    client_id: uint64


@dataclass
class ShortBody(IdlStruct, typename=REQUEST):
    client_id: uint64
    sequence: int64
    a: int64


@dataclass
class Request(IdlStruct, typename=REQUEST):
    client_id: uint64
    sequence: int64
    a: int64
    b: int64


@dataclass
class Response(IdlStruct, typename="example_interfaces::srv::dds_::AddTwoInts_Response_"):
    client_id: uint64
    sequence: int64
    sum: int64


# rmw_cyclonedds' services QoS: reliable, volatile, keep last 10; XCDR1 on the wire.
QOS = Qos(
    Policy.Reliability.Reliable(duration(milliseconds=100)),
    Policy.Durability.Volatile,
    Policy.History.KeepLast(10),
    Policy.DataRepresentation(use_cdrv0_representation=True),
)
CLIENT_ID = 0x1234ABCD
LIFETIME_S = 120


def wait_until(condition, deadline, what):
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"timed out: {what}")
        time.sleep(0.01)


def main():
    domain = int(sys.argv[1])
    deadline = time.monotonic() + LIFETIME_S
    # One participant per layout: a participant holds one type per topic name.
    samples = [ShortHeader(CLIENT_ID), ShortBody(CLIENT_ID, 1, 20), Request(CLIENT_ID, 2, 20, 22)]
    writers = []
    for sample in samples:
        participant = DomainParticipant(domain)
        topic = Topic(participant, "rq/add_two_intsRequest", type(sample))
        writers.append((participant, DataWriter(participant, topic, qos=QOS)))
    participant = writers[-1][0]
    replies = DataReader(participant, Topic(participant, "rr/add_two_intsReply", Response), qos=QOS)
    print("ready", flush=True)
    for (_, writer), sample in zip(writers, samples):
        wait_until(lambda: writer.get_publication_matched_status().current_count > 0, deadline,
                   "no request reader matched")
        if sample is samples[-1]:
            # The server must see our reply reader before it answers.
            wait_until(lambda: replies.get_subscription_matched_status().current_count > 0,
                       deadline, "no reply writer matched")
        writer.write(sample)
        # One long wait: this binding raises instead of returning False when it times out.
        if not writer.wait_for_acks(duration(seconds=LIFETIME_S)):
            sys.exit(f"{type(sample).__name__} never acknowledged")
    while time.monotonic() < deadline:
        for reply in replies.take(N=10):
            print(f"reply {reply.client_id} {reply.sequence} {reply.sum}", flush=True)
        time.sleep(0.01)


if __name__ == "__main__":
    main()
