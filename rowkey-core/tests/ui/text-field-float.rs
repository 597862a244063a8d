use rowkey_core::prelude::*;

#[derive(RowKey)]
#[rowkey(text, sep = "_")]
struct Reading {
    sensor: u32,
    value: f64,
}

fn main() {}
