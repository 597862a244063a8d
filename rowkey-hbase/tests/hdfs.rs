//! HBase on a real HDFS.

use rowkey_hbase::testing::HBase;

#[test]
fn probe() {
    let hbase = HBase::builder().gateway(false).hdfs(true).start().unwrap();
    let url = hbase.hdfs_url().unwrap().to_string();
    eprintln!("hdfs at {url}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = hdfs_native::ClientBuilder::new().with_url(&url).build().unwrap();
        let list = client.list_status("/", false).await.unwrap();
        eprintln!("{:?}", list.iter().map(|s| s.path.clone()).collect::<Vec<_>>());
        let mut w = client
            .create("/probe/x", hdfs_native::WriteOptions::default())
            .await
            .unwrap();
        w.write_bytes(bytes::Bytes::from(vec![7u8; 3_000_000])).await.unwrap();
        w.close().await.unwrap();
        let r = client.read("/probe/x").await.unwrap();
        let data = r.read_range(0, r.file_length()).await.unwrap();
        assert_eq!(data.len(), 3_000_000);
    });
}
