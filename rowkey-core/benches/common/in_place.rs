/// A key read in place through redb's guard, as the typed tables'
/// `rowkey_core::redb::StoredKey` does (without needing the `redb`
/// feature): the merge compares it without a copy or an allocation per row.
pub struct InPlace<'a>(pub redb::AccessGuard<'a, &'static [u8]>);

impl AsRef<[u8]> for InPlace<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0.value()
    }
}
