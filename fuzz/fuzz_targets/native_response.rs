//! The native HBase client's readers of what a server sends
//! (`rowkey_hbase_protocol::wire`): a response frame's length, the frame
//! (header, message, cellblock) and a cellblock's cells, from arbitrary
//! bytes. Each is an error or a value, never a panic, and allocates no
//! more than the input holds (a stated length or cell count past it is
//! refused, not reserved).
//!
//! Input: the first byte is a cell count to ask for; the rest is a frame
//! (its first 4 bytes also read as a frame length).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_hbase_protocol::wire;

fuzz_target!(|input: &[u8]| {
    let Some((&count, frame)) = input.split_first() else {
        return;
    };
    if let Some(prefix) = frame.first_chunk::<4>() {
        if let Ok(len) = wire::frame_len(*prefix) {
            assert!(len <= wire::MAX_FRAME);
        }
    }
    if let Ok(response) = wire::response(frame) {
        if let Ok(answer) = response.body {
            assert!(answer.message.len() + answer.cellblock.len() <= frame.len());
            let _ = wire::cells(&answer.cellblock, usize::from(count));
        }
    }
    if let Ok(cells) = wire::cells(frame, usize::from(count)) {
        assert!(cells.len() <= usize::from(count));
        let held: usize = cells
            .iter()
            .map(|c| c.row.len() + c.family.len() + c.qualifier.len() + c.value.len())
            .sum();
        assert!(held <= frame.len());
    }
});
