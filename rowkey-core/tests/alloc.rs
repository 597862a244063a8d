//! Zero heap allocations on the fixed-width and borrowed paths, counted by a
//! global allocator (per thread, so the test harness cannot interfere).
// A counting allocator has to implement the unsafe GlobalAlloc trait.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use rowkey_core::prelude::*;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made by `f` on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> usize {
    let before = ALLOCS.with(Cell::get);
    black_box(f());
    ALLOCS.with(Cell::get) - before
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    kind: u8,
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 8, hash = "java")]
struct Named {
    tenant: u32,
    #[fixed(16)]
    name: String,
    #[desc]
    score: Option<f64>,
}

#[derive(RowKey, Debug, PartialEq)]
struct Path<'a> {
    #[reverse]
    host: u32,
    dir: &'a str,
    #[fixed(4)]
    ext: &'a [u8],
    file: &'a str,
}

#[test]
fn counter_sees_allocations() {
    // The counter works: a String allocates.
    assert!(allocations(|| String::from("heap")) >= 1);
}

#[test]
fn fixed_width_paths_do_not_allocate() {
    let e = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: 3,
    };
    assert_eq!(allocations(|| e.encode()), 0, "encode()");
    assert_eq!(allocations(|| e.try_encode()), 0, "try_encode()");
    assert_eq!(allocations(|| e.bucket()), 0, "bucket()");
    let mut buf = [0u8; 32];
    assert_eq!(allocations(|| e.encode_into(&mut buf)), 0, "encode_into");
    let bytes = e.encode();
    assert_eq!(allocations(|| UserEvent::decode(&bytes)), 0, "decode");
    assert_eq!(UserEvent::decode(&bytes).unwrap(), e);
    // Errors do not allocate either.
    assert_eq!(
        allocations(|| UserEvent::decode(&bytes[..5])),
        0,
        "decode error"
    );
    assert_eq!(
        allocations(|| e.encode_into(&mut buf[..3])),
        0,
        "encode error"
    );

    // The String is owned by the value, but encoding it does not allocate.
    let n = Named {
        tenant: 9,
        name: "sensor-7".into(),
        score: Some(-1.5),
    };
    assert_eq!(
        allocations(|| n.try_encode()),
        0,
        "try_encode with #[fixed] String"
    );
    assert_eq!(
        allocations(|| n.try_bucket()),
        0,
        "try_bucket with #[fixed] String"
    );
}

#[test]
fn borrowed_variable_length_paths_do_not_allocate() {
    let p = Path {
        host: 0x0A00_0001,
        dir: "static/img",
        ext: b"png",
        file: "logo",
    };
    let mut buf = [0u8; 64];
    let n = allocations(|| p.encode_into(&mut buf).unwrap());
    assert_eq!(n, 0, "encode_into");
    let len = p.encoded_len();
    assert_eq!(allocations(|| p.encoded_len()), 0, "encoded_len");
    let key = &buf[..len];
    assert_eq!(allocations(|| Path::decode(key)), 0, "decode");
    let back = Path::decode(key).unwrap();
    assert_eq!(back, p);
    assert!(
        key.as_ptr_range().contains(&back.dir.as_ptr()),
        "dir borrows from the key"
    );
}

#[test]
fn fixed_width_scans_do_not_allocate() {
    let now = 1_700_000_000_000i64;
    assert_eq!(allocations(UserEvent::scan_all), 0, "scan_all");
    assert_eq!(allocations(|| UserEvent::scan_by_user_id(42)), 0, "scan_by");
    assert_eq!(
        allocations(|| UserEvent::range_by_user_id_ts_millis(42, now - 3_600_000..now)),
        0,
        "range_by"
    );
    let fan_out = UserEvent::range_by_user_id(10..20);
    let n = allocations(|| {
        let mut count = 0;
        for r in fan_out.ranges() {
            count += r.start().len() + r.stop().len();
            black_box(r.bounds());
        }
        count
    });
    assert_eq!(n, 0, "iterating a fanned-out scan's 16 ranges");
    assert_eq!(fan_out.range_count(), 16);
}
