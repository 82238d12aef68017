"""Goal requests no ROS 2 client sends, for tacto's action servers: the PyPI `cyclonedds`
package writes them on /fibonacci/_action/send_goal (test_msgs/action/Fibonacci) laid out as
rmw_cyclonedds lays a request out (the 16-byte request header, client id then sequence number,
before the fields, in XCDR1), each from a type of its own under the request's type name:

    action_malformed_goal.py DOMAIN

1. "cut id": the header (client 0x1234abcd, sequence 1) and 8 of the goal id's 16 bytes;
2. a good goal (same client, sequence 2, id 1..16, order 3), and prints the answer:
   "reply <client> <sequence> <accepted>".

Each waits until the server's reader acknowledged the one before, so they reach it in this
order. Prints "ready" once the first writer exists; runs until killed (or 120 s).
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
from cyclonedds.idl.types import array, int32, int64, uint8, uint32, uint64  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402
from cyclonedds.util import duration  # noqa: E402

REQUEST = "test_msgs::action::dds_::Fibonacci_SendGoal_Request_"


@dataclass
class CutId(IdlStruct, typename=REQUEST):
    client_id: uint64
    sequence: int64
    half_id: uint64


@dataclass
class Request(IdlStruct, typename=REQUEST):
    client_id: uint64
    sequence: int64
    goal_id: array[uint8, 16]
    order: int32


@dataclass
class Response(IdlStruct, typename="test_msgs::action::dds_::Fibonacci_SendGoal_Response_"):
    client_id: uint64
    sequence: int64
    accepted: bool
    sec: int32
    nanosec: uint32


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
    samples = [CutId(CLIENT_ID, 1, 0x0102030405060708),
               Request(CLIENT_ID, 2, list(range(1, 17)), 3)]
    writers = []
    for sample in samples:
        # One participant per layout: a participant holds one type per topic name.
        participant = DomainParticipant(domain)
        topic = Topic(participant, "rq/fibonacci/_action/send_goalRequest", type(sample))
        writers.append((participant, DataWriter(participant, topic, qos=QOS)))
    participant = writers[-1][0]
    replies = DataReader(
        participant, Topic(participant, "rr/fibonacci/_action/send_goalReply", Response), qos=QOS)
    print("ready", flush=True)
    for (_, writer), sample in zip(writers, samples):
        wait_until(lambda: writer.get_publication_matched_status().current_count > 0, deadline,
                   "no request reader matched")
        if sample is samples[-1]:
            # The server must see our reply reader before it answers.
            wait_until(lambda: replies.get_subscription_matched_status().current_count > 0,
                       deadline, "no reply writer matched")
        writer.write(sample)
        if not writer.wait_for_acks(duration(seconds=LIFETIME_S)):
            sys.exit(f"{type(sample).__name__} never acknowledged")
    while time.monotonic() < deadline:
        for reply in replies.take(N=10):
            print(f"reply {reply.client_id} {reply.sequence} {reply.accepted}", flush=True)
        time.sleep(0.01)


if __name__ == "__main__":
    main()
