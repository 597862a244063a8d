//! The bottom layer: how one value becomes bytes that sort like it.
//!
//! Nothing here knows a key type, a scan or a store; every layer above
//! builds on these codecs, so the derive and run-time layouts write the
//! same bytes. Imports inside the folder run one way, from the top of this
//! list to the bottom (`time` and `binary` import nothing of the crate):
//! - `time`: time units and instants; `binary`: HBase's `toStringBinary`;
//! - `error`: [`EncodeError`](error::EncodeError),
//!   [`DecodeError`](error::DecodeError), [`FieldError`](error::FieldError);
//! - `field`: the field traits ([`FixedField`](field::FixedField),
//!   [`VarField`](field::VarField), ...); `escape`: the `00 00`/`00 01`
//!   escaping of variable-length fields;
//! - `codec`: the binary field codecs; `text`: the text-key codecs;
//!   `timestamp`: timestamps of a `#[ts]` unit over either;
//!   `types`: the ecosystem types; `salt`: the salt head (a bucket byte or
//!   bucket digits) and its hashes; `ordered_code`: Bigtable's
//!   `OrderedCodeBytes` structs.

pub(crate) mod binary;
pub(crate) mod codec;
pub(crate) mod error;
pub mod escape;
pub(crate) mod field;
pub mod ordered_code;
pub mod salt;
pub mod text;
pub(crate) mod time;
pub mod timestamp;
mod types;
