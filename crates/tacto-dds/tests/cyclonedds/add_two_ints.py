"""An independent Cyclone DDS peer for tacto-dds' services: the PyPI `cyclonedds` package, with
the request and reply types laid out as rmw_cyclonedds lays them out on the wire (the 16-byte
request header, client id then sequence number, before the fields), in XCDR1 as it writes.

    add_two_ints.py server DOMAIN        answers every request on /add_two_ints; before its
                                         first answer it sends a reply to another client id
    add_two_ints.py client DOMAIN A B    sends one request (client id 0x1234abcd, sequence 7)
                                         and prints the reply
    add_two_ints.py flood DOMAIN         once a reader matches, sends a request every 10 ms
                                         (sequence 1, 2, ...), ignoring replies

Each prints `ready` once its endpoints exist, then one line per event; it runs until killed
(or 120 s).
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


@dataclass
class AddTwoInts_Request_(IdlStruct, typename="example_interfaces::srv::dds_::AddTwoInts_Request_"):
    client_id: uint64
    sequence: int64
    a: int64
    b: int64


@dataclass
class AddTwoInts_Response_(IdlStruct, typename="example_interfaces::srv::dds_::AddTwoInts_Response_"):
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


def wait_matched(writer, deadline):
    while writer.get_publication_matched_status().current_count == 0:
        if time.monotonic() > deadline:
            sys.exit("no reader matched")
        time.sleep(0.01)


def main():
    mode, domain = sys.argv[1], int(sys.argv[2])
    participant = DomainParticipant(domain)
    rq = Topic(participant, "rq/add_two_intsRequest", AddTwoInts_Request_)
    rr = Topic(participant, "rr/add_two_intsReply", AddTwoInts_Response_)
    deadline = time.monotonic() + LIFETIME_S
    if mode == "server":
        requests = DataReader(participant, rq, qos=QOS)
        replies = DataWriter(participant, rr, qos=QOS)
        print("ready", flush=True)
        foreign_sent = False
        while time.monotonic() < deadline:
            for request in requests.take(N=10):
                wait_matched(replies, deadline)
                if not foreign_sent:
                    replies.write(AddTwoInts_Response_(request.client_id ^ 1, request.sequence, -1))
                    foreign_sent = True
                replies.write(
                    AddTwoInts_Response_(request.client_id, request.sequence, request.a + request.b)
                )
                print(f"answered {request.client_id} {request.sequence}", flush=True)
            time.sleep(0.01)
    elif mode == "flood":
        requests = DataWriter(participant, rq, qos=QOS)
        print("ready", flush=True)
        wait_matched(requests, deadline)
        sequence = 0
        while time.monotonic() < deadline:
            sequence += 1
            requests.write(AddTwoInts_Request_(CLIENT_ID, sequence, sequence, 1))
            time.sleep(0.01)
    else:
        a, b = int(sys.argv[3]), int(sys.argv[4])
        requests = DataWriter(participant, rq, qos=QOS)
        replies = DataReader(participant, rr, qos=QOS)
        print("ready", flush=True)
        wait_matched(requests, deadline)
        # The server's reply writer must match our reader before it answers: give discovery
        # until the reply reader has a writer.
        while replies.get_subscription_matched_status().current_count == 0:
            if time.monotonic() > deadline:
                sys.exit("no reply writer matched")
            time.sleep(0.01)
        requests.write(AddTwoInts_Request_(CLIENT_ID, 7, a, b))
        while time.monotonic() < deadline:
            for reply in replies.take(N=10):
                print(f"reply {reply.client_id} {reply.sequence} {reply.sum}", flush=True)
            time.sleep(0.01)


if __name__ == "__main__":
    main()
