//! Where `hbase:meta` and the active master are, read from ZooKeeper
//! (feature `zookeeper`): a `zk://` bootstrap, HBase's path before its
//! registry (`ClientMetaService`, 2.3). Each lookup opens a short
//! ZooKeeper session, reads one znode and closes it: the answers are
//! cached by the client, so lookups are rare.
//!
//! A znode's data is HBase's: a magic byte (`0xFF`), the length of the
//! writer's id and the id, then `PBUF` and a protobuf message whose field
//! 1 is the server (`MetaRegionServer`, `Master`).

use std::time::Duration;

use rowkey_hbase_protocol::pb;

use crate::Error;

/// A ZooKeeper quorum and HBase's parent znode in it.
#[derive(Debug, Clone)]
pub(super) struct ZooKeeper {
    quorum: String,
    parent: String,
}

/// Field 1 of HBase's `MetaRegionServer` and `Master` znodes: the server.
#[derive(Clone, PartialEq, prost::Message)]
struct Located {
    #[prost(message, optional, tag = "1")]
    server: Option<pb::ServerName>,
}

impl ZooKeeper {
    /// `zk://host:port[,host:port...][/parent]` (parent `/hbase` when
    /// none is given).
    pub(super) fn parse(bootstrap: &str) -> Result<ZooKeeper, Error> {
        let rest = bootstrap
            .strip_prefix("zk://")
            .ok_or_else(|| Error::Config(format!("{bootstrap:?} is not a zk:// bootstrap")))?;
        let (quorum, parent) = match rest.find('/') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/hbase"),
        };
        let parent = parent.trim_end_matches('/');
        if quorum.is_empty() || parent.is_empty() {
            return Err(Error::Config(format!(
                "{bootstrap:?}: a zk:// bootstrap is zk://host:port[,host:port...][/znode-parent]"
            )));
        }
        Ok(ZooKeeper {
            quorum: quorum.to_owned(),
            parent: parent.to_owned(),
        })
    }

    /// The server holding `hbase:meta`, `host:port`.
    pub(super) async fn meta_server(&self, timeout: Duration) -> Result<String, Error> {
        self.server("meta-region-server", timeout).await
    }

    /// The active master, `host:port`.
    pub(super) async fn master(&self, timeout: Duration) -> Result<String, Error> {
        self.server("master", timeout).await
    }

    async fn server(&self, znode: &str, timeout: Duration) -> Result<String, Error> {
        let path = format!("{}/{znode}", self.parent);
        let failed = |cause: String| Error::Connection {
            op: "ZooKeeper",
            table: "hbase:meta".into(),
            server: self.quorum.clone(),
            cause: format!("{path}: {cause}"),
        };
        let read = async {
            let zk = zookeeper_client::Client::connector()
                .with_session_timeout(timeout.max(Duration::from_secs(2)))
                .connect(&self.quorum)
                .await
                .map_err(|e| failed(e.to_string()))?;
            let (data, _) = zk
                .get_data(&path)
                .await
                .map_err(|e| failed(e.to_string()))?;
            server_of(&data).map_err(failed)
        };
        tokio::time::timeout(timeout, read)
            .await
            .unwrap_or_else(|_| {
                Err(Error::Timeout {
                    op: "ZooKeeper",
                    table: "hbase:meta".into(),
                    deadline: timeout,
                })
            })
    }
}

/// The `host:port` in a znode's data, HBase's framing checked.
fn server_of(data: &[u8]) -> Result<String, String> {
    let rest = data
        .strip_prefix(&[0xFF])
        .ok_or("not HBase's znode data (no magic byte)")?;
    let len = rest
        .get(..4)
        .map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")) as usize)
        .ok_or("cut before the writer's id")?;
    let rest = rest
        .get(4..)
        .and_then(|r| r.get(len..))
        .ok_or("cut in the writer's id")?;
    let message = rest
        .strip_prefix(b"PBUF")
        .ok_or("no PBUF magic (a server older than HBase 0.96?)")?;
    let located = <Located as prost::Message>::decode(message)
        .map_err(|e| format!("not a server location: {e}"))?;
    let server = located.server.ok_or("no server in it")?;
    let port = server.port.ok_or("a server with no port")?;
    Ok(format!("{}:{port}", server.host_name))
}

#[cfg(test)]
mod tests {
    use super::{server_of, ZooKeeper};
    use rowkey_hbase_protocol::pb;

    fn znode(id: &[u8], server: Option<pb::ServerName>) -> Vec<u8> {
        let mut data = vec![0xFF];
        data.extend_from_slice(&(id.len() as u32).to_be_bytes());
        data.extend_from_slice(id);
        data.extend_from_slice(b"PBUF");
        data.extend_from_slice(&prost::Message::encode_to_vec(&super::Located { server }));
        data
    }

    #[test]
    fn znodes_are_read_and_every_cut_is_an_error() {
        let data = znode(
            b"rs1",
            Some(pb::ServerName {
                host_name: "rs1.example".into(),
                port: Some(16020),
                start_code: Some(7),
            }),
        );
        assert_eq!(server_of(&data).unwrap(), "rs1.example:16020");
        for cut in 0..data.len() - 10 {
            assert!(server_of(&data[..cut]).is_err(), "cut at {cut}");
        }
        assert!(server_of(&znode(b"x", None)).is_err());
        let mut huge = data.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(server_of(&huge).is_err());
    }

    #[test]
    fn bootstraps_name_a_quorum_and_a_parent() {
        let zk = ZooKeeper::parse("zk://a:2181,b:2181/hbase-prod/").unwrap();
        assert_eq!(
            (zk.quorum.as_str(), zk.parent.as_str()),
            ("a:2181,b:2181", "/hbase-prod")
        );
        let zk = ZooKeeper::parse("zk://a:2181").unwrap();
        assert_eq!(zk.parent, "/hbase");
        assert!(ZooKeeper::parse("zk:///hbase").is_err());
        assert!(ZooKeeper::parse("a:2181").is_err());
    }
}
