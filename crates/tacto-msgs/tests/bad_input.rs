//! Bad input never panics a generated decoder and never makes it allocate what a length prefix
//! claims: every message type (the list comes from the build script) decodes 20 000 random and
//! mutated inputs, from a fixed seed, while a counting allocator records the largest single
//! allocation.
//!
//! The allocator counts per thread, so tests running beside this one do not move the figure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tacto::Message;

#[allow(dead_code)] // only some of the test packages' items are used here
mod test_interfaces {
    include!(concat!(env!("OUT_DIR"), "/test_interfaces.rs"));
}

/// The system allocator, noting the largest request of the current thread.
struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: the thread may be tearing down its locals.
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call is passed unchanged to `System`, which upholds GlobalAlloc's contract;
// `note` only updates a thread-local `Cell` (const-initialized, no destructor, no allocation).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc` is the one `System.alloc` needs.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System` underneath.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, which is `System` underneath.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the largest allocation it made.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|largest| largest.set(0));
    let result = f();
    (result, LARGEST.with(Cell::get))
}

/// xorshift64*: deterministic, good enough to spread mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INPUTS_PER_TYPE: usize = 20_000;

/// The bytes a decoder may allocate for an input of `len` bytes: each element a length prefix
/// admits takes at least one input byte, and one element of these types takes at most 1 KiB in
/// memory; plus 64 KiB for fixed-size arrays, whose size the type gives.
fn allowance(len: usize) -> usize {
    1024 * len + 64 * 1024
}

/// An input for `T`: random bytes, or `T`'s default encoding with a few mutations.
fn input<T: Message + Default>(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = tacto::cdr::to_vec(&T::default()).expect("defaults encode");
    match rng.below(8) {
        0 => {
            let len = rng.below(64);
            return (0..len).map(|_| rng.next() as u8).collect();
        }
        1 => bytes.truncate(rng.below(bytes.len() + 1)),
        _ => {}
    }
    for _ in 0..1 + rng.below(4) {
        if bytes.len() <= 4 {
            break;
        }
        let at = 4 + rng.below(bytes.len() - 4);
        match rng.below(5) {
            // A length prefix or count of 4 G, or just past what is left.
            0 if at + 4 <= bytes.len() => {
                bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes())
            }
            1 if at + 4 <= bytes.len() => {
                let n = (bytes.len() - at) as u32 + rng.below(3) as u32;
                bytes[at..at + 4].copy_from_slice(&n.to_le_bytes());
            }
            2 => bytes.extend((0..rng.below(32)).map(|_| rng.next() as u8)),
            _ => bytes[at] = rng.next() as u8,
        }
    }
    bytes
}

/// Decodes `INPUTS_PER_TYPE` inputs as `T`: no panic, allocations within `allowance`, and what
/// decodes re-encodes to bytes that decode to the same encoding again.
fn hammer<T: Message + Default>(seed: u64) -> usize {
    let mut rng = Rng(seed | 1);
    let mut accepted = 0;
    for _ in 0..INPUTS_PER_TYPE {
        let bytes = input::<T>(&mut rng);
        let (decoded, largest) = largest_allocation(|| tacto::cdr::from_bytes::<T>(&bytes));
        assert!(
            largest <= allowance(bytes.len()),
            "{}: decoding {} bytes allocated {largest} at once: {bytes:02x?}",
            T::TYPE_NAME,
            bytes.len()
        );
        let Ok(value) = decoded else { continue };
        accepted += 1;
        let again = tacto::cdr::to_vec(&value)
            .unwrap_or_else(|e| panic!("{}: a decoded value does not encode: {e}", T::TYPE_NAME));
        let twice = tacto::cdr::from_bytes::<T>(&again)
            .and_then(|v| tacto::cdr::to_vec(&v).map_err(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{}: our own encoding does not decode: {e}", T::TYPE_NAME));
        assert_eq!(
            again,
            twice,
            "{}: decode and encode are not inverse",
            T::TYPE_NAME
        );
    }
    accepted
}

#[test]
fn every_generated_decoder_survives_random_and_mutated_input() {
    macro_rules! every_message {
        ($($ty:ty),* $(,)?) => {
            [$(hammer::<$ty> as fn(u64) -> usize),*]
        };
    }
    let hammers = include!(concat!(env!("OUT_DIR"), "/message_list.rs"));
    let types = hammers.len();
    let accepted: usize = hammers
        .iter()
        .enumerate()
        .map(|(i, hammer)| hammer(0x7ac7_0000 + i as u64))
        .sum();
    assert!(types > 150, "only {types} message types listed");
    // Mutations must not all be rejected, or the decoders' acceptance paths go untested.
    assert!(
        accepted > INPUTS_PER_TYPE * types / 10,
        "only {accepted} inputs decoded"
    );
}

#[test]
fn a_sequence_count_of_4g_in_12_bytes_is_an_error_without_allocating() {
    use tacto_msgs::sensor_msgs::msg::JointState;
    use tacto_msgs::std_msgs::msg::Float64MultiArray;
    // Float64MultiArray: layout.dim count, then data_offset, then data count.
    let bytes = [0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
    let (result, largest) =
        largest_allocation(|| tacto::cdr::from_bytes::<Float64MultiArray>(&bytes));
    assert!(result.is_err());
    assert!(largest < 1024, "allocated {largest} bytes");

    let mut bytes = [0u8; 12];
    bytes[1] = 1;
    bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let (result, largest) = largest_allocation(|| tacto::cdr::from_bytes::<JointState>(&bytes));
    assert!(result.is_err());
    assert!(largest < 1024, "allocated {largest} bytes");

    // Through each codec of tacto::idl: a count of 4 G right after the header.
    let (result, largest) = largest_allocation(|| {
        tacto::cdr::from_bytes::<test_interfaces::tacto_test_msgs::msg::Everything>(&[
            0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff,
        ])
    });
    assert!(result.is_err());
    assert!(largest < 64 * 1024, "allocated {largest} bytes");
}
