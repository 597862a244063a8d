/// A row of a redb range of byte-string keys, as redb returns it.
pub type RedbRow<'a> = Result<
    (
        redb::AccessGuard<'a, &'static [u8]>,
        redb::AccessGuard<'a, ()>,
    ),
    redb::StorageError,
>;

/// The key of a [`RedbRow`], read in place through redb's guard, for
/// `merge_salted_by`: the rows go through the merge as redb returned them
/// (as `rowkey_core::redb`'s typed tables merge them), with no wrapper, no
/// copy and no allocation per row.
#[inline]
pub fn redb_key<'r>(row: &'r RedbRow<'_>) -> Option<&'r [u8]> {
    row.as_ref().ok().map(|(k, _)| k.value())
}
