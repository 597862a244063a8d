//! Where a table's regions are: `hbase:meta`'s rows, read into a sorted
//! list per table, and the region that holds a row.

use prost::Message;

use rowkey_hbase_protocol::pb;

/// One region of a table and the server holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The region's name (its `hbase:meta` row key).
    pub name: Vec<u8>,
    /// Its first row (empty: the table's start).
    pub start: Vec<u8>,
    /// The row after its last (empty: the table's end).
    pub end: Vec<u8>,
    /// The region server, `host:port`.
    pub server: String,
}

impl Region {
    /// Whether `row` is in the region.
    pub fn holds(&self, row: &[u8]) -> bool {
        self.start.as_slice() <= row && (self.end.is_empty() || row < self.end.as_slice())
    }
}

/// `host` of a server's `host:port` (`[v6]:port` too): the name its
/// certificate and its Kerberos principal are checked against.
#[cfg_attr(not(any(feature = "tls", feature = "kerberos")), allow(dead_code))]
pub fn host_of(server: &str) -> &str {
    let host = server.rsplit_once(':').map_or(server, |(host, _)| host);
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// The region of a sorted, gapless list that holds `row`.
pub fn find<'a>(regions: &'a [Region], row: &[u8]) -> Option<&'a Region> {
    index(regions, row).map(|i| &regions[i])
}

/// Where in `regions` (sorted by start) the region holding `row` is.
pub fn index(regions: &[Region], row: &[u8]) -> Option<usize> {
    // The last region starting at or before the row.
    let i = regions.partition_point(|r| r.start.as_slice() <= row);
    let i = i.checked_sub(1)?;
    regions[i].holds(row).then_some(i)
}

/// The `hbase:meta` rows of `table`, as HBase's own client bounds them:
/// from `table,,` (meta's comparator orders rows by table, then start
/// key, then region id: a first region's row `table,,id` is not below it)
/// to `table ` (a space: after every row of `table`, before any other
/// table's, whose names have no byte below `-`).
pub fn meta_bounds(table: &str) -> (Vec<u8>, Vec<u8>) {
    let mut start = table.as_bytes().to_vec();
    start.extend_from_slice(b",,");
    let mut stop = table.as_bytes().to_vec();
    stop.push(b' ');
    (start, stop)
}

/// `hbase:meta`'s own region name, from its location in the registry:
/// `hbase:meta,,<id>` (meta's names have no encoded suffix).
pub fn meta_region_name(info: &pb::RegionInfo) -> Vec<u8> {
    let table = &info.table_name;
    let mut name = table.namespace.clone();
    name.push(b':');
    name.extend_from_slice(&table.qualifier);
    name.push(b',');
    name.extend_from_slice(info.start_key.as_deref().unwrap_or_default());
    name.push(b',');
    name.extend_from_slice(info.region_id.to_string().as_bytes());
    name
}

/// The region of one `hbase:meta` row of `table` (its `info:regioninfo`
/// and `info:server` cells), `None` for a row to skip (an offline or
/// split parent, a replica, another table's) or a region no server holds
/// yet (`Err` naming it: the caller looks again later).
pub fn from_meta_row(
    table: &str,
    row: &[u8],
    cells: &[(Vec<u8>, Vec<u8>, Vec<u8>)],
) -> Result<Option<Region>, String> {
    let cell = |q: &[u8]| {
        cells
            .iter()
            .find(|(f, qualifier, _)| f == b"info" && qualifier == q)
            .map(|(_, _, v)| v.as_slice())
    };
    let Some(info) = cell(b"regioninfo") else {
        return Ok(None);
    };
    let info = info
        .strip_prefix(b"PBUF")
        .ok_or_else(|| "an info:regioninfo without its PBUF magic".to_owned())?;
    let info = pb::RegionInfo::decode(info).map_err(|e| format!("info:regioninfo: {e}"))?;
    let (ns, qualifier) = match table.split_once(':') {
        Some((ns, q)) => (ns, q),
        None => ("default", table),
    };
    if info.table_name.namespace != ns.as_bytes()
        || info.table_name.qualifier != qualifier.as_bytes()
        || info.offline == Some(true)
        || info.split == Some(true)
        || info.replica_id.unwrap_or(0) != 0
    {
        return Ok(None);
    }
    let server = cell(b"server")
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            format!(
                "region {} is not open on any server yet",
                String::from_utf8_lossy(row)
            )
        })?;
    Ok(Some(Region {
        name: row.to_vec(),
        start: info.start_key.unwrap_or_default(),
        end: info.end_key.unwrap_or_default(),
        server,
    }))
}

/// Whether `regions` (sorted by start) cover the whole key space with no
/// gap or overlap: a list read while a region splits may not.
pub fn whole(regions: &[Region]) -> bool {
    regions.first().is_some_and(|r| r.start.is_empty())
        && regions.last().is_some_and(|r| r.end.is_empty())
        && regions.windows(2).all(|w| w[0].end == w[1].start)
}

#[cfg(test)]
mod tests {
    use crate::native::regions::{find, host_of, whole, Region};

    #[test]
    fn hosts_of_servers() {
        assert_eq!(host_of("rs1.example.com:16020"), "rs1.example.com");
        assert_eq!(host_of("127.0.0.1:16020"), "127.0.0.1");
        assert_eq!(host_of("[::1]:16020"), "::1");
    }

    fn region(start: &[u8], end: &[u8]) -> Region {
        Region {
            name: start.to_vec(),
            start: start.to_vec(),
            end: end.to_vec(),
            server: "s:1".into(),
        }
    }

    #[test]
    fn a_row_is_found_in_its_region() {
        let regions = vec![region(b"", b"b"), region(b"b", b"d"), region(b"d", b"")];
        assert!(whole(&regions));
        assert_eq!(find(&regions, b"").unwrap().start, b"");
        assert_eq!(find(&regions, b"a\xff").unwrap().start, b"");
        assert_eq!(find(&regions, b"b").unwrap().start, b"b");
        assert_eq!(find(&regions, b"c").unwrap().start, b"b");
        assert_eq!(find(&regions, b"zz").unwrap().start, b"d");
        let gap = vec![region(b"", b"b"), region(b"c", b"")];
        assert!(!whole(&gap));
        assert!(find(&gap, b"b").is_none());
    }
}
