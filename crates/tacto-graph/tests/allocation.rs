//! No length prefix drives an allocation: decoding malformed bytes never allocates more than
//! a small multiple of the input (a counting allocator watches the largest single request).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tacto_graph::{TypeRegistry, decode};

struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's layout, passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: as in `alloc` and `dealloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

#[test]
fn huge_length_prefixes_allocate_nothing_large() {
    let registry = TypeRegistry::shipped();
    // Each type with a sequence or string right after the header (or after a fixed prefix).
    for (name, prefix_len) in [
        ("std_msgs/msg/String", 0),
        ("sensor_msgs/msg/JointState", 8),
        ("std_msgs/msg/Float64MultiArray", 0),
        ("std_msgs/msg/UInt8MultiArray", 0),
        ("geometry_msgs/msg/PoseArray", 8),
    ] {
        let ty = registry.resolve(name).unwrap();
        for length in [0xFFFF_FFFFu32, 0x7FFF_FFFF, 1 << 20, 4096] {
            let mut bytes = vec![0, 1, 0, 0];
            bytes.extend(std::iter::repeat_n(0u8, prefix_len));
            bytes.extend(length.to_le_bytes());
            bytes.extend([0u8; 64]);
            LARGEST.store(0, Ordering::Relaxed);
            assert!(decode(&ty, &bytes).is_err(), "{name} with length {length}");
            let largest = LARGEST.load(Ordering::Relaxed);
            assert!(
                largest < 64 * 1024,
                "{name}: {largest} bytes for length {length}"
            );
        }
    }
}
