//! The schema examples live beside this crate as `[[example]]`s; the
//! library is empty.
