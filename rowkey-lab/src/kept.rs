//! A design's rows kept after the lab's run ([`Lab::keep_rows`]), and the
//! `rowkey sql` command that asks them.
//!
//! [`Lab::keep_rows`]: crate::Lab::keep_rows

use std::path::Path;

use rowkey_core::Layout;

use crate::store::Store;
use crate::BoxError;

/// Rows per write transaction of [`keep`].
const KEEP_CHUNK: usize = 100_000;

/// Copies the rows of the store's `table` into `db`'s table `name`,
/// replacing it: each value as 8 big-endian bytes, a transaction per
/// [`KEEP_CHUNK`] rows (memory stays bounded on a large run).
pub(crate) fn keep(
    store: &mut dyn Store,
    table: &str,
    db: &redb::Database,
    name: &str,
) -> Result<(), BoxError> {
    let def = redb::TableDefinition::<&[u8], &[u8]>::new(name);
    let tx = db.begin_write()?;
    tx.delete_table(def)?;
    tx.open_table(def)?;
    tx.commit()?;
    let write = |rows: &mut Vec<(Vec<u8>, u64)>| -> Result<(), BoxError> {
        let tx = db.begin_write()?;
        {
            let mut t = tx.open_table(def)?;
            for (key, value) in rows.drain(..) {
                t.insert(key.as_slice(), value.to_be_bytes().as_slice())?;
            }
        }
        tx.commit()?;
        Ok(())
    };
    let mut rows = Vec::with_capacity(KEEP_CHUNK);
    let mut failed = None;
    store.scan(
        table,
        &rowkey_core::Scan::from_bounds(&[], &[]),
        &mut |key, value| {
            rows.push((key.to_vec(), value));
            if rows.len() == KEEP_CHUNK {
                if let Err(e) = write(&mut rows) {
                    failed = Some(e);
                    return false;
                }
            }
            true
        },
    )?;
    match failed {
        Some(e) => Err(e),
        None => write(&mut rows),
    }
}

/// The arguments of `rowkey` that count the rows of the kept table
/// `table` of `layout` in the redb file `path`: `sql --layout ... --table
/// ... --redb ... --value event=int64 QUERY`, the line the lab prints.
pub fn sql_args(path: &Path, table: &str, layout: &Layout) -> Vec<String> {
    [
        "sql".to_owned(),
        "--layout".to_owned(),
        layout.to_string(),
        "--table".to_owned(),
        table.to_owned(),
        "--redb".to_owned(),
        path.display().to_string(),
        "--value".to_owned(),
        "event=int64".to_owned(),
        format!("SELECT count(*) AS events FROM \"{table}\""),
    ]
    .into()
}

/// `args` as one POSIX shell line after `rowkey`, each argument with a
/// space or a shell character in single quotes.
pub fn shell_line(args: &[String]) -> String {
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_=./:,@%+".contains(&b))
    };
    let quoted = args.iter().map(|a| {
        if plain(a) {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    });
    std::iter::once("rowkey".to_owned())
        .chain(quoted)
        .collect::<Vec<_>>()
        .join(" ")
}
