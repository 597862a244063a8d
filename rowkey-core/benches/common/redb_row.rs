/// A row of a redb range as the typed tables' scans hand it to the merge
/// (`rowkey_core::redb`'s `StreamRow`, without needing the `redb` feature):
/// as redb returned it, its key compared in place, with no copy and no
/// allocation per row.
pub struct RedbRow<'a>(
    pub  Result<
        (
            redb::AccessGuard<'a, &'static [u8]>,
            redb::AccessGuard<'a, ()>,
        ),
        redb::StorageError,
    >,
);

impl rowkey_core::MergeItem for RedbRow<'_> {
    #[inline]
    fn merge_key(&self) -> Option<&[u8]> {
        self.0.as_ref().ok().map(|(k, _)| k.value())
    }
}
