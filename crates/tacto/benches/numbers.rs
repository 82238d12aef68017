//! A sensor's sequence of numbers through CDR, element by element (serde's `Vec<f32>`) and as
//! one block (`tacto::idl::Numbers`, what generated `float32[]` fields use): encode into a
//! kept buffer, and decode, of 1 Mi `float32` (4 MiB), interleaved, best of R rounds.
//!
//! ```sh
//! cargo bench -p tacto --bench numbers            # or: ... --bench numbers -- ROUNDS
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct PerElement {
    ranges: Vec<f32>,
}

#[derive(Serialize, Deserialize)]
struct Block {
    #[serde(with = "tacto::idl::Numbers")]
    ranges: Vec<f32>,
}

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

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let ranges: Vec<f32> = (0..1 << 20).map(|i| i as f32 * 0.001).collect();
    let per_element = PerElement {
        ranges: ranges.clone(),
    };
    let block = Block { ranges };
    let mut buffer = Vec::new();
    let mut encode = |value: &dyn Fn(&mut Vec<u8>)| {
        best(rounds, || {
            buffer.clear();
            value(&mut buffer);
            black_box(&buffer);
        })
    };
    let element_encode = encode(&|b| tacto::cdr::encode_into(&per_element, b).unwrap());
    let block_encode = encode(&|b| tacto::cdr::encode_into(&block, b).unwrap());
    let bytes = tacto::cdr::to_vec(&block).unwrap();
    assert_eq!(bytes, tacto::cdr::to_vec(&per_element).unwrap());
    let element_decode = best(rounds, || {
        black_box(tacto::cdr::from_bytes::<PerElement>(&bytes).unwrap());
    });
    let block_decode = best(rounds, || {
        black_box(tacto::cdr::from_bytes::<Block>(&bytes).unwrap());
    });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("1 Mi float32 (4 MiB), best of {rounds} rounds, ms:");
    println!(
        "  encode: per element {:.3}, block {:.3} ({:.1}x faster)",
        ms(element_encode),
        ms(block_encode),
        ms(element_encode) / ms(block_encode)
    );
    println!(
        "  decode: per element {:.3}, block {:.3} ({:.1}x faster)",
        ms(element_decode),
        ms(block_decode),
        ms(element_decode) / ms(block_decode)
    );
}
