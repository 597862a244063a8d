//! A global allocator that counts allocations per thread (so the test
//! harness's other threads cannot interfere), for the allocation tests.
//! Included by path by each test binary that counts: `#[path =
//! "common/counting.rs"] mod counting;`.
// A counting allocator has to implement the unsafe GlobalAlloc trait.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated and not yet freed on this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn live(delta: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + delta));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        live(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        live(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made by `f` on this thread.
#[allow(dead_code)]
pub fn allocations<R>(f: impl FnOnce() -> R) -> usize {
    let before = ALLOCS.with(Cell::get);
    black_box(f());
    ALLOCS.with(Cell::get) - before
}

/// Bytes that `f` allocated on this thread and that are still allocated
/// once its result is dropped: what it leaked.
#[allow(dead_code)]
pub fn leaked<R>(f: impl FnOnce() -> R) -> isize {
    let before = LIVE.with(Cell::get);
    drop(black_box(f()));
    LIVE.with(Cell::get) - before
}
