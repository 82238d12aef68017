//! A flat message of 1 MiB and of 8 MiB (a stamp, a label and a `uint8[]` image) from its
//! CDR: serde's decode (built on the stack, then moved into an `Arc`: what a flat
//! subscription did up to 64 KiB, here on a thread with a stack large enough) against
//! `tacto::flat` decoding in place (into a zeroed `Box`, and into a zeroed `Arc` as a
//! subscription does), with a plain copy of the bytes as the floor; and serde's encode,
//! which DDS and serialized delivery use, from a reference. Best of R rounds, interleaved.
//!
//! ```sh
//! cargo bench -p tacto --bench flat_cdr            # or: ... --bench flat_cdr -- ROUNDS
//! ```

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tacto::{Flat, FlatString};

macro_rules! images {
    ($($name:ident = $size:expr),* $(,)?) => {$(
        #[tacto::message("tacto_bench/msg/Image", flat)]
        #[derive(Clone, Copy)]
        struct $name {
            stamp: u64,
            label: FlatString<24>,
            #[serde(with = "tacto::idl::Array::<tacto::idl::Plain>")]
            pixels: [u8; $size],
        }
    )*};
}

images!(Image1M = 1 << 20, Image8M = 8 << 20);

fn best(rounds: u32, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The costs of `T` in ms: serde decode, in place (Box), in place (Arc), copy, serde encode.
fn measure<T: Flat>(rounds: u32, fill: impl Fn(&mut T)) -> [f64; 5] {
    let mut image: Box<T> = tacto::flat::zeroed_box();
    fill(&mut image);
    let bytes = tacto::cdr::to_vec(&*image).unwrap();
    assert!(
        tacto::bytemuck::bytes_of(&*tacto::flat::from_cdr::<T>(&bytes).unwrap())
            == tacto::bytemuck::bytes_of(&*image)
    );
    let mut times = [Duration::ZERO; 5];
    let mut buffer = Vec::new();
    for _ in 0..rounds {
        let round = [
            best(1, || {
                black_box(Arc::new(tacto::cdr::from_bytes::<T>(&bytes).unwrap()));
            }),
            best(1, || {
                black_box(tacto::flat::from_cdr::<T>(&bytes).unwrap());
            }),
            best(1, || {
                black_box(tacto::flat::shared_from_cdr::<T>(&bytes).unwrap());
            }),
            best(1, || {
                let mut copy: Box<T> = tacto::flat::zeroed_box();
                let into = tacto::bytemuck::bytes_of_mut(&mut *copy);
                let len = into.len().min(bytes.len() - 4);
                into[..len].copy_from_slice(&bytes[4..4 + len]);
                black_box(copy);
            }),
            best(1, || {
                tacto::cdr::encode_into(&*image, &mut buffer).unwrap();
                black_box(&buffer);
            }),
        ];
        for (time, now) in times.iter_mut().zip(round) {
            *time = if *time == Duration::ZERO {
                now
            } else {
                (*time).min(now)
            };
        }
    }
    times.map(|d| d.as_secs_f64() * 1e3)
}

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    // serde builds the 8 MiB value on the stack: give it room.
    let thread = std::thread::Builder::new().stack_size(64 << 20);
    let rows = thread
        .spawn(move || {
            [
                ("1 MiB", measure::<Image1M>(rounds, |i| i.pixels.fill(7))),
                ("8 MiB", measure::<Image8M>(rounds, |i| i.pixels.fill(7))),
            ]
        })
        .unwrap()
        .join()
        .unwrap();
    println!("flat image from CDR, best of {rounds} rounds, ms:");
    println!("  size  | serde decode | in place (Box) | in place (Arc) | copy  | serde encode");
    for (size, [serde, boxed, shared, copy, encode]) in rows {
        println!(
            "  {size} | {serde:12.3} | {boxed:14.3} | {shared:14.3} | {copy:5.3} | {encode:12.3}"
        );
    }
}
