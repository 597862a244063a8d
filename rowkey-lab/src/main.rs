//! The hot-spot lab: the same event workload stored under four row-key
//! designs in redb, with HBase-style regions, showing where the writes land
//! and what typical queries cost.
//!
//! Run: `cargo run --release -p rowkey-lab [-- --events N --users N --seed N --out DIR]`

use std::path::PathBuf;

use rowkey_lab::{self as lab, Config};

fn usage() -> ! {
    eprintln!("usage: hotspots [--events N] [--users N] [--seed N] [--split-rows N] [--out DIR] [--no-progress]");
    std::process::exit(2)
}

fn main() {
    let mut cfg = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        let number = |v: String| v.replace('_', "").parse().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--events" => cfg.events = number(value()),
            "--users" => cfg.users = number(value()) as u32,
            "--seed" => cfg.seed = number(value()) as u64,
            "--split-rows" => cfg.split_rows = number(value()),
            "--out" => cfg.dir = PathBuf::from(value()),
            "--no-progress" => cfg.progress = false,
            _ => usage(),
        }
    }
    match lab::run(&cfg) {
        Ok(report) => print!("{}", lab::format_report(&cfg, &report)),
        Err(e) => {
            eprintln!("hotspots: {e}");
            std::process::exit(1);
        }
    }
}
