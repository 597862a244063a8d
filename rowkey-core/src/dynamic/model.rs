//! The run-time layout's own data: the descriptor, each field's codec
//! operations and value type. Below both the building of a layout
//! (`build.rs`) and its use (`mod.rs`).

use alloc::vec::Vec;

use super::ops::Ops;
use super::ordered_code;
use super::scalar::Scalar;
use crate::layout::Layout;

/// A key layout known at run time: see the [module documentation](crate::dynamic).
#[derive(Clone)]
pub struct DynLayout {
    pub(super) layout: &'static Layout,
    pub(super) ops: Vec<Ops>,
    pub(super) scalars: Vec<Scalar>,
    /// A key family's members (`A: [...] | B: [...]`); empty for a struct.
    pub(super) members: Vec<DynLayout>,
    /// The salt's `by` fields, by index in key order.
    pub(super) by: Vec<usize>,
    /// An ordered-code layout's field codecs and rules.
    pub(super) oc: Option<ordered_code::OcRt>,
    /// What a key's buffer starts with room for: the layout's length when
    /// fixed, else its least length and some.
    pub(super) capacity: usize,
    /// Whether a field is `#[rowkey(added)]` (trailing `None`s are then
    /// not written).
    pub(super) has_added: bool,
}

impl core::fmt::Debug for DynLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DynLayout({})", self.layout)
    }
}
