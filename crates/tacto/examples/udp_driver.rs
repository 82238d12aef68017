//! A lidar driver: its UDP socket triggers it, on an ordinary executor, with no thread of its own.
//!
//! A lidar streams its measurements as UDP packets. The driver node is triggered by the socket
//! (`Trigger::readable`): when a packet is waiting, the executor runs the node, which drains
//! the socket and publishes one scan message per packet. A consumer node on the same executor
//! is triggered by the scans. Here a thread plays the lidar, sending a packet every 10 ms for
//! 2 s to 127.0.0.1; at the end, the counts show that every packet became a scan, and the
//! executor's wake-ups that it slept between packets.
//!
//! ```sh
//! cargo run --release --example udp_driver
//! ```

use std::error::Error;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use tacto::{Context, Executor, History, SpinOutcome, Trigger, WaitSetExecutor};

/// How long the lidar sends.
const RUN_FOR: Duration = Duration::from_secs(2);
/// One packet per rotation step, at 100 Hz.
const PACKET_PERIOD: Duration = Duration::from_millis(10);
/// Ranges per packet.
const BEAMS: usize = 16;

/// One packet's worth of a lidar sweep.
#[tacto::message("example_msgs/msg/LidarScan")]
#[derive(Debug, Clone, Default)]
struct LidarScan {
    /// The packet's sequence number, as the lidar counts.
    sequence: u32,
    /// Measured ranges, metres.
    ranges_m: Vec<f32>,
}

/// The wire format: a little-endian `u32` sequence number, then one `u16` range in
/// millimetres per beam.
fn parse(packet: &[u8]) -> Option<LidarScan> {
    let (sequence, ranges) = packet.split_first_chunk::<4>()?;
    let ranges_m = ranges
        .chunks_exact(2)
        .map(|mm| f32::from(u16::from_le_bytes([mm[0], mm[1]])) / 1000.0)
        .collect();
    Some(LidarScan {
        sequence: u32::from_le_bytes(*sequence),
        ranges_m,
    })
}

/// Plays the lidar: sends a packet to `driver` every [`PACKET_PERIOD`] for [`RUN_FOR`], or
/// until Ctrl-C; returns how many it sent.
fn lidar(driver: SocketAddr) -> std::io::Result<u32> {
    let socket = UdpSocket::bind("127.0.0.1:0")?;
    let start = Instant::now();
    let mut sequence = 0u32;
    while start.elapsed() < RUN_FOR && !tacto::shutdown::requested() {
        let mut packet = sequence.to_le_bytes().to_vec();
        for beam in 0..BEAMS as u16 {
            packet.extend_from_slice(&(5000 + 10 * beam).to_le_bytes());
        }
        socket.send_to(&packet, driver)?;
        sequence += 1;
        // Paced on absolute deadlines, so the rate does not drift with the sender's own work.
        let next = start + PACKET_PERIOD * sequence;
        thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    Ok(sequence)
}

fn main() -> Result<(), Box<dyn Error>> {
    // `--ros-args` rename, remap and parameterise it as any ROS 2 node.
    let ctx = Context::from_args(std::env::args())?;
    let socket = Arc::new(UdpSocket::bind("127.0.0.1:0")?);
    // The node drains the socket until it would block.
    socket.set_nonblocking(true)?;
    let address = socket.local_addr()?;

    let mut driver = ctx.node("lidar_driver")?;
    let scans = driver.publisher::<LidarScan>("scan").create()?;
    let (packets, runs) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (packet_count, run_count, input) = (packets.clone(), runs.clone(), socket.clone());
    driver.execute(Trigger::readable(socket), move |_| {
        run_count.fetch_add(1, Ordering::Relaxed);
        let mut buffer = [0u8; 1500];
        // Drain: a packet left unread would run the node again at once.
        loop {
            match input.recv(&mut buffer) {
                Ok(n) => {
                    packet_count.fetch_add(1, Ordering::Relaxed);
                    if let Some(scan) = parse(&buffer[..n]) {
                        scans.publish(scan);
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => {
                    eprintln!("lidar_driver: recv failed: {e}");
                    break;
                }
            }
        }
    })?;

    let mut consumer = ctx.node("obstacle_check")?;
    let scan = consumer
        .subscription::<LidarScan>("scan")
        .history(History::KeepLast(10))
        .create()?;
    let (received, nearest_mm) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (received_count, nearest) = (received.clone(), nearest_mm.clone());
    consumer.execute(Trigger::on(&scan), move |_| {
        for s in scan.take_all() {
            received_count.fetch_add(1, Ordering::Relaxed);
            let closest = s.ranges_m.iter().copied().fold(f32::INFINITY, f32::min);
            nearest.store((closest * 1000.0) as u64, Ordering::Relaxed);
        }
    })?;

    let mut executor = WaitSetExecutor::new()?;
    executor.add(driver)?;
    executor.add(consumer)?;
    println!("lidar_driver: triggered by its UDP socket {address}; one scan per packet.");

    let sender = thread::spawn(move || lidar(address));
    let start = Instant::now();
    // A little past the lidar's last packet, so the executor handles it.
    let outcome = executor.spin_for(RUN_FOR + Duration::from_millis(100))?;
    let sent = sender.join().map_err(|_| "the lidar thread panicked")??;

    let how = match outcome {
        SpinOutcome::Interrupted => "interrupted",
        SpinOutcome::Elapsed | SpinOutcome::Stopped => "stopped",
    };
    println!(
        "\n{how} after {:.2} s: the lidar sent {sent} packets.",
        start.elapsed().as_secs_f64()
    );
    println!(
        "lidar_driver ran {} times, read {} packets and published a scan for each; \
         obstacle_check took {} scans (nearest {} mm).",
        runs.load(Ordering::Relaxed),
        packets.load(Ordering::Relaxed),
        received.load(Ordering::Relaxed),
        nearest_mm.load(Ordering::Relaxed),
    );
    let stats = executor.stats();
    println!(
        "The executor woke {} times and ran {} executables: it slept between packets.",
        stats.wakeups, stats.executions
    );
    Ok(())
}
