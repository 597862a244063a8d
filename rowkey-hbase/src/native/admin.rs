//! Tables through the active master's `MasterService`: created with split
//! points, disabled and deleted, looked up; each change waited for until
//! its procedure finishes.

use std::time::Duration;

use rowkey_hbase_protocol::pb;
use tokio::time::Instant;

use super::client::{NativeClient, Refusal};
use super::conn::CallError;
use super::convert::{call_error, remote_error, specifier};
use crate::Error;

const MASTER_SERVICE: &str = "MasterService";
const REGISTRY_SERVICE: &str = "ClientMetaService";

/// The longest a table change is waited for (HBase's own admin waits as
/// long by default for a table's creation).
const PROCEDURE_WAIT: Duration = Duration::from_secs(300);

impl NativeClient {
    /// The user HBase's servers see this client as (HBase's `whoami`), by
    /// the short name its access control uses: a Kerberos login's
    /// principal mapped by the cluster's `auth_to_local` rules
    /// (`alice@EXAMPLE.COM` is `alice`), or a SIMPLE client's claimed name. Asked of `hbase:meta`'s region
    /// server through the `TokenProvider` coprocessor
    /// (`org.apache.hadoop.hbase.security.token.TokenProvider` in
    /// `hbase.coprocessor.region.classes`, as secured clusters load it for
    /// delegation tokens); a cluster without it answers with an error
    /// saying so.
    pub async fn whoami(&self) -> Result<String, Error> {
        const TABLE: &str = "hbase:meta";
        self.within("WhoAmI", TABLE, async {
            let meta = self.meta_region().await?;
            let request = pb::CoprocessorServiceRequest {
                region: specifier(&meta.name),
                call: pb::CoprocessorServiceCall {
                    row: Vec::new(),
                    // HBase names its own services without their package
                    // (CoprocessorRpcUtils.getServiceName).
                    service_name: "AuthenticationService".into(),
                    method_name: "WhoAmI".into(),
                    request: Vec::new(),
                },
            };
            let answer = self
                .call::<pb::CoprocessorServiceResponse>(
                    &meta.server,
                    "ExecService",
                    &request,
                    &[],
                    TABLE,
                )
                .await;
            let response = match answer {
                Ok((response, _)) => response,
                Err(Refusal::Fatal(e) | Refusal::Busy(e)) => return Err(e),
                Err(Refusal::Moved(_)) => {
                    return Err(Error::Connection {
                        op: "WhoAmI",
                        table: TABLE.into(),
                        server: meta.server.clone(),
                        cause: "hbase:meta's region moved; ask again".into(),
                    })
                }
            };
            let bytes = response.value.value.unwrap_or_default();
            let who =
                <pb::WhoAmIResponse as prost::Message>::decode(bytes.as_slice()).map_err(|e| {
                    Error::Connection {
                        op: "WhoAmI",
                        table: TABLE.into(),
                        server: meta.server.clone(),
                        cause: format!("the WhoAmI answer is no WhoAmIResponse: {e}"),
                    }
                })?;
            who.username.ok_or_else(|| Error::Connection {
                op: "WhoAmI",
                table: TABLE.into(),
                server: meta.server,
                cause: "the WhoAmI answer names no user".into(),
            })
        })
        .await
    }

    /// Creates `table` with `families` (HBase's defaults for each),
    /// pre-split at `split_points` (sorted, distinct, none empty), and
    /// waits until its regions are open.
    pub async fn create_table(
        &self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
    ) -> Result<(), Error> {
        self.create_table_with(
            table,
            families,
            split_points,
            &crate::types::TableOptions::default(),
        )
        .await
    }

    /// [`create_table`](Self::create_table) with every family set as
    /// `options` says (see [`TableOptions`](crate::types::TableOptions)).
    pub async fn create_table_with(
        &self,
        table: &str,
        families: &[&str],
        split_points: &[Vec<u8>],
        options: &crate::types::TableOptions,
    ) -> Result<(), Error> {
        let families = families
            .iter()
            .map(|f| pb::ColumnFamilySchema {
                name: f.as_bytes().to_vec(),
                attributes: Vec::new(),
                configuration: Vec::new(),
            })
            .collect();
        self.create(table, families, split_points, options).await
    }

    /// Creates `table` with the column families of `like`, each with its
    /// settings (versions, time to live, compression, encodings, bloom
    /// filters, its configuration), then set as `options` says, pre-split
    /// at `split_points`.
    pub async fn create_table_like(
        &self,
        table: &str,
        like: &str,
        split_points: &[Vec<u8>],
        options: &crate::types::TableOptions,
    ) -> Result<(), Error> {
        let schema = self
            .descriptor(like)
            .await?
            .ok_or_else(|| Error::TableNotFound {
                op: "GetTableDescriptors",
                table: like.into(),
            })?;
        self.create(table, schema.column_families, split_points, options)
            .await
    }

    async fn create(
        &self,
        table: &str,
        mut families: Vec<pb::ColumnFamilySchema>,
        split_points: &[Vec<u8>],
        options: &crate::types::TableOptions,
    ) -> Result<(), Error> {
        for f in &mut families {
            set_family(f, options);
        }
        let request = pb::CreateTableRequest {
            table_schema: pb::TableSchema {
                table_name: Some(table_name(table)),
                attributes: Vec::new(),
                column_families: families,
                configuration: Vec::new(),
            },
            split_keys: split_points.to_vec(),
            nonce_group: None,
            nonce: None,
        };
        let response: pb::CreateTableResponse =
            self.master_call("CreateTable", &request, table).await?;
        self.forget_regions(table);
        self.wait_for(response.proc_id, "CreateTable", table).await
    }

    /// Disables and deletes `table` (a disabled one is deleted as it is).
    pub async fn drop_table(&self, table: &str) -> Result<(), Error> {
        let disable = pb::DisableTableRequest {
            table_name: table_name(table),
            nonce_group: None,
            nonce: None,
        };
        match self
            .master_call::<pb::DisableTableResponse>("DisableTable", &disable, table)
            .await
        {
            Ok(r) => self.wait_for(r.proc_id, "DisableTable", table).await?,
            Err(Error::Server { message, .. })
                if message.starts_with("org.apache.hadoop.hbase.TableNotEnabledException") => {}
            Err(e) => return Err(e),
        }
        let delete = pb::DeleteTableRequest {
            table_name: table_name(table),
            nonce_group: None,
            nonce: None,
        };
        let r: pb::DeleteTableResponse = self.master_call("DeleteTable", &delete, table).await?;
        self.forget_regions(table);
        self.wait_for(r.proc_id, "DeleteTable", table).await
    }

    /// Whether `table` exists.
    pub async fn table_exists(&self, table: &str) -> Result<bool, Error> {
        Ok(self.descriptor(table).await?.is_some())
    }

    /// The column families of `table`, in the order HBase lists them.
    pub async fn families(&self, table: &str) -> Result<Vec<String>, Error> {
        let schema = self
            .descriptor(table)
            .await?
            .ok_or_else(|| Error::TableNotFound {
                op: "GetTableDescriptors",
                table: table.into(),
            })?;
        Ok(schema
            .column_families
            .iter()
            .map(|f| String::from_utf8_lossy(&f.name).into_owned())
            .collect())
    }

    async fn descriptor(&self, table: &str) -> Result<Option<pb::TableSchema>, Error> {
        let request = pb::GetTableDescriptorsRequest {
            table_names: vec![table_name(table)],
            ..Default::default()
        };
        match self
            .master_call::<pb::GetTableDescriptorsResponse>("GetTableDescriptors", &request, table)
            .await
        {
            Ok(r) => Ok(r.table_schema.into_iter().next()),
            Err(Error::TableNotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits until procedure `id` is finished: its failure is the call's.
    async fn wait_for(&self, id: Option<u64>, op: &'static str, table: &str) -> Result<(), Error> {
        let Some(id) = id else { return Ok(()) };
        let until = Instant::now() + PROCEDURE_WAIT.max(self.request_timeout());
        let mut pause = Duration::from_millis(20);
        loop {
            let request = pb::GetProcedureResultRequest { proc_id: id };
            let result: pb::GetProcedureResultResponse = self
                // The one method of MasterService named in lower camel case.
                .master_call("getProcedureResult", &request, table)
                .await?;
            if let Some(e) = result.exception {
                let generic = e.generic_exception.unwrap_or_default();
                return Err(Error::Server {
                    op,
                    table: table.into(),
                    key: None,
                    message: format!(
                        "{}: {}",
                        generic.class_name.unwrap_or_default(),
                        generic.message.unwrap_or_default()
                    ),
                    can_retry: false,
                });
            }
            if result.state == pb::get_procedure_result_response::State::Finished as i32 {
                return Ok(());
            }
            if Instant::now() + pause > until {
                return Err(Error::Timeout {
                    op,
                    table: table.into(),
                    deadline: PROCEDURE_WAIT,
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(500));
        }
    }

    /// A call to the active master (found through a bootstrap server's
    /// registry).
    async fn master_call<R: prost::Message + Default>(
        &self,
        method: &'static str,
        request: &impl prost::Message,
        table: &str,
    ) -> Result<R, Error> {
        let master = self.active_master(table).await?;
        let answer = match self.conn(&master, MASTER_SERVICE).await {
            Ok(c) => c.call(method, request, &[], self.deadline()).await,
            Err(e) => Err(e),
        };
        match answer {
            Ok((r, _)) => Ok(r),
            Err(CallError::Remote(e)) => Err(remote_error(
                method,
                table,
                None,
                e.exception_class_name.as_deref().unwrap_or_default(),
                e.stack_trace.as_deref().map(str::as_bytes),
            )),
            Err(e) => Err(call_error(
                e,
                method,
                table,
                &master,
                self.request_timeout(),
            )),
        }
    }

    /// The active master's address, from the first bootstrap server that
    /// knows it.
    async fn active_master(&self, table: &str) -> Result<String, Error> {
        #[cfg(feature = "zookeeper")]
        if let Some(zk) = self.zookeeper() {
            return zk.master(self.request_timeout()).await;
        }
        let mut last = None;
        for server in self.bootstrap() {
            let answer = match self.conn(server, REGISTRY_SERVICE).await {
                Ok(c) => {
                    c.call::<pb::GetActiveMasterResponse>(
                        "GetActiveMaster",
                        &pb::GetActiveMasterRequest {},
                        &[],
                        self.deadline(),
                    )
                    .await
                }
                Err(e) => Err(e),
            };
            match answer {
                Ok((r, _)) => match r.server_name {
                    Some(s) => return Ok(format!("{}:{}", s.host_name, s.port.unwrap_or(16000))),
                    None => {
                        last = Some(Error::Connection {
                            op: "GetActiveMaster",
                            table: table.into(),
                            server: server.clone(),
                            cause: "no active master".into(),
                        })
                    }
                },
                Err(e) => {
                    last = Some(call_error(
                        e,
                        "GetActiveMaster",
                        table,
                        server,
                        self.request_timeout(),
                    ))
                }
            }
        }
        Err(last.expect("at least one bootstrap server"))
    }
}

/// `ns:qualifier` (or `qualifier` in `default`) as HBase's table name.
pub(super) fn table_name(table: &str) -> pb::TableName {
    let (ns, qualifier) = table.split_once(':').unwrap_or(("default", table));
    pb::TableName {
        namespace: ns.as_bytes().to_vec(),
        qualifier: qualifier.as_bytes().to_vec(),
    }
}

/// Sets on `family` what `options` sets (replacing the same settings it
/// had).
fn set_family(family: &mut pb::ColumnFamilySchema, options: &crate::types::TableOptions) {
    let mut set = |name: &[u8], value: String| {
        family.attributes.retain(|a| a.first != name);
        family.attributes.push(pb::BytesBytesPair {
            first: name.to_vec(),
            second: value.into_bytes(),
        });
    };
    if options.new_version_behavior {
        set(b"NEW_VERSION_BEHAVIOR", "true".into());
    }
    if let Some(versions) = options.versions {
        set(b"VERSIONS", versions.to_string());
    }
    if let Some(d) = options.keep_deletes {
        let name = crate::types::PURGE_DELETES;
        family.configuration.retain(|c| c.name != name);
        family.configuration.push(pb::NameStringPair {
            name: name.into(),
            value: d.as_millis().to_string(),
        });
    }
}
