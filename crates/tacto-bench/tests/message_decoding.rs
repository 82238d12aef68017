//! Decoding ros2-performance messages from untrusted bytes: a short or malformed input is an
//! error, found before anything the size of the message it claims to be is allocated.
//!
//! A binary of its own, with one test: its global allocator records the largest allocation of
//! the process, which a test running beside it would disturb.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tacto_bench::topology::ros2_performance::messages::{Stamped8mb, Stamped10b};

/// The system allocator, remembering the largest block asked for.
struct Recording;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator with the caller's arguments, unchanged.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::SeqCst);
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::SeqCst);
        // SAFETY: `ptr` and `layout` come from this allocator, hence from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, hence from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

#[test]
fn a_short_input_for_a_large_byte_array_fails_without_allocating_its_size() {
    let short = tacto::cdr::to_vec(&Stamped10b::default()).unwrap();
    let before = LARGEST.load(Ordering::SeqCst);

    let decoded = tacto::cdr::from_bytes::<Stamped8mb>(&short);

    assert!(decoded.is_err());
    let largest = LARGEST.load(Ordering::SeqCst);
    assert!(
        largest <= before.max(64 * 1024),
        "decoding {} bytes allocated a block of {largest} bytes",
        short.len()
    );
}
