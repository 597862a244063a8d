//! The native client's batched reads: the gets of many rows sent as
//! `Multi` calls, one region action per region, as HBase's Java client
//! sends `Table.get(List<Get>)`, instead of one `Get` call per row.

use std::collections::BTreeMap;
use std::time::Duration;

use super::client::{NativeClient, Refusal, OVERLOADED_PAUSE};
use super::convert::{busy_class, moved_class, remote_error, results_cells, specifier};
use super::regions;
use crate::{Cell, Error};
use rowkey_hbase_protocol::pb;

/// The most gets one `Multi` call carries.
const MULTI_GETS: usize = 1_000;

/// One call's gets: per region, the places in the caller's keys.
type Batch = Vec<(Vec<u8>, Vec<usize>)>;

/// A server's gets by region, cut into calls of at most [`MULTI_GETS`].
fn batches(by_region: BTreeMap<Vec<u8>, Vec<usize>>) -> Vec<Batch> {
    let mut out = Vec::new();
    let mut batch: Batch = Vec::new();
    let mut size = 0;
    for (name, places) in by_region {
        for place in places {
            if size == MULTI_GETS {
                out.push(std::mem::take(&mut batch));
                size = 0;
            }
            size += 1;
            match batch.last_mut() {
                Some((last, places)) if *last == name => places.push(place),
                _ => batch.push((name.clone(), vec![place])),
            }
        }
    }
    if !batch.is_empty() {
        out.push(batch);
    }
    out
}

impl NativeClient {
    /// The rows `keys` of `table`, each `None` where there is no such row:
    /// one answer per key, in order. The gets go in `Multi` calls (up to
    /// 1,000 rows each, sent as the writes' are: `multi_calls`); the gets of a region that moved are sent again where it is
    /// now, those of an overloaded server after a pause.
    pub async fn get_many(
        &self,
        table: &str,
        keys: &[&[u8]],
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        self.within("Multi", table, self.get_many_tries(table, keys))
            .await
    }

    async fn get_many_tries(
        &self,
        table: &str,
        keys: &[&[u8]],
    ) -> Result<Vec<Option<Vec<Cell>>>, Error> {
        let mut out: Vec<Option<Vec<Cell>>> = vec![None; keys.len()];
        let mut left: Vec<usize> = (0..keys.len()).collect();
        let mut refresh = false;
        let mut tries = self.tries();
        let multi_error =
            |e: &pb::NameBytesPair| remote_error("Multi", table, None, &e.name, e.value.as_deref());
        while !left.is_empty() {
            let regions = self.regions(table, refresh).await?;
            refresh = false;
            let mut busy: Option<Error> = None;
            let mut by_server: BTreeMap<String, BTreeMap<Vec<u8>, Vec<usize>>> = BTreeMap::new();
            for i in left.drain(..) {
                let region = regions::find(&regions, keys[i]).ok_or_else(|| Error::Connection {
                    op: "Multi",
                    table: table.into(),
                    server: String::new(),
                    cause: "hbase:meta lists no region for a row".into(),
                })?;
                by_server
                    .entry(region.server.clone())
                    .or_default()
                    .entry(region.name.clone())
                    .or_default()
                    .push(i);
            }
            let per_server = by_server
                .into_iter()
                .map(|(server, by_region)| (server, batches(by_region)))
                .collect();
            let answers = self
                .multi_calls(table, per_server, |batch| get_request(batch, keys))
                .await;
            for (batch, answer) in answers {
                let (response, block) = match answer {
                    Ok(answer) => answer,
                    Err(Refusal::Moved(_)) => {
                        refresh = true;
                        left.extend(batch.into_iter().flat_map(|(_, places)| places));
                        continue;
                    }
                    Err(Refusal::Busy(e)) => {
                        busy = Some(e);
                        left.extend(batch.into_iter().flat_map(|(_, places)| places));
                        continue;
                    }
                    Err(Refusal::Fatal(e)) => return Err(e),
                };
                // Every result of the answer in order, for the cellblock.
                let mut found: Vec<(usize, &pb::Result)> = Vec::new();
                let mut results = response.region_action_result.iter();
                for (_, places) in &batch {
                    let Some(result) = results.next() else {
                        refresh = true;
                        left.extend(places);
                        continue;
                    };
                    if let Some(e) = &result.exception {
                        if moved_class(&e.name) {
                            refresh = true;
                            left.extend(places);
                            continue;
                        }
                        if busy_class(&e.name) {
                            busy = Some(multi_error(e));
                            left.extend(places);
                            continue;
                        }
                        return Err(multi_error(e));
                    }
                    let mut answered = vec![false; places.len()];
                    for r in &result.result_or_exception {
                        let j = r.index.and_then(|j| usize::try_from(j).ok());
                        let Some(j) = j.filter(|&j| j < places.len()) else {
                            return Err(multi_error(&pb::NameBytesPair {
                                name: "a Multi answer for a get it was not sent".into(),
                                value: None,
                            }));
                        };
                        answered[j] = true;
                        match (&r.exception, &r.result) {
                            (Some(e), _) if moved_class(&e.name) => {
                                refresh = true;
                                left.push(places[j]);
                            }
                            (Some(e), _) if busy_class(&e.name) => {
                                busy = Some(multi_error(e));
                                left.push(places[j]);
                            }
                            (Some(e), _) => return Err(multi_error(e)),
                            (None, Some(result)) => found.push((places[j], result)),
                            (None, None) => {}
                        }
                    }
                    // A get the answer left out is asked again.
                    left.extend(
                        places
                            .iter()
                            .zip(&answered)
                            .filter(|(_, a)| !**a)
                            .map(|(p, _)| *p),
                    );
                }
                let results: Vec<&pb::Result> = found.iter().map(|(_, r)| *r).collect();
                let cells = results_cells(&results, &block, table, "Multi")?;
                for ((place, _), cells) in found.into_iter().zip(cells) {
                    out[place] = (!cells.is_empty()).then_some(cells);
                }
            }
            if !left.is_empty() {
                let pause = if busy.is_some() {
                    OVERLOADED_PAUSE
                } else {
                    Duration::ZERO
                };
                if let Err(spent) = tries.again_after(pause).await {
                    if let Some(e) = busy {
                        return Err(e);
                    }
                    let what = format!("{} rows not read: their regions kept moving", left.len());
                    return Err(spent.error("Multi", table, &what));
                }
                self.count_retry();
            }
        }
        Ok(out)
    }
}

/// The `Multi` request reading `batch`'s rows, newest cell of each column.
fn get_request(batch: &Batch, keys: &[&[u8]]) -> pb::MultiRequest {
    pb::MultiRequest {
        region_action: batch
            .iter()
            .map(|(name, places)| pb::RegionAction {
                region: specifier(name),
                atomic: None,
                action: places
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| pb::Action {
                        index: Some(j as u32),
                        get: Some(pb::Get {
                            row: keys[i].to_vec(),
                            max_versions: Some(1),
                            cache_blocks: Some(true),
                            ..Default::default()
                        }),
                        ..Default::default()
                    })
                    .collect(),
                condition: None,
            })
            .collect(),
        ..Default::default()
    }
}
